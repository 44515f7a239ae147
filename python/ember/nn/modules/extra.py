"""More layers: AdaptiveMaxPool3d, FractionalMaxPool2d/3d, MaxUnpool1d/2d/3d, FeatureAlphaDropout,
CrossMapLRN2d, NLLLoss2d, AdaptiveLogSoftmaxWithLoss, SyncBatchNorm and LinearCrossEntropyLoss."""
from __future__ import annotations

import dataclasses
import math
import warnings
from collections import namedtuple

import ember
from ember.autograd.function import Function
from ember.nn import functional as F
from ember.nn.modules.batchnorm import _BatchNorm
from ember.nn.modules.container import ModuleList, Sequential
from ember.nn.modules.linear import Linear
from ember.nn.modules.loss import NLLLoss, _WeightedLoss
from ember.nn.modules.module import Module

__all__ = ["AdaptiveMaxPool3d", "FractionalMaxPool2d", "FractionalMaxPool3d", "MaxUnpool1d", "MaxUnpool2d",
           "MaxUnpool3d", "FeatureAlphaDropout", "CrossMapLRN2d", "NLLLoss2d", "AdaptiveLogSoftmaxWithLoss",
           "SyncBatchNorm", "LinearCrossEntropyLoss", "LinearCrossEntropyOptions"]


class AdaptiveMaxPool3d(Module):
    """Maxima over adaptive windows of (N, C, D, H, W) input."""

    def __init__(self, output_size, return_indices: bool = False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def forward(self, input):
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class _FractionalMaxPoolNd(Module):
    _n = 0

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices: bool = False,
                 _random_samples=None):
        super().__init__()
        name = type(self).__name__
        self.kernel_size = kernel_size
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = output_size
        self.output_ratio = output_ratio
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if output_ratio is not None:
            ratios = output_ratio if isinstance(output_ratio, (list, tuple)) else (output_ratio,) * self._n
            if not all(0 < r < 1 for r in ratios):
                raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        fn = F.fractional_max_pool2d if self._n == 2 else F.fractional_max_pool3d
        return fn(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                  _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Fractional max pooling over (N, C, H, W) input, windows at pseudo-random intervals."""
    _n = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """Fractional max pooling over (N, C, D, H, W) input, windows at pseudo-random intervals."""
    _n = 3


class _MaxUnpoolNd(Module):
    _n = 0

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        n = self._n
        tup = (lambda v: tuple(v) if isinstance(v, (list, tuple)) else (v,) * n)
        self.kernel_size = tup(kernel_size)
        self.stride = tup(stride if stride is not None else kernel_size)
        self.padding = tup(padding)

    def forward(self, input, indices, output_size=None):
        fn = getattr(F, f"max_unpool{self._n}d")
        return fn(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """Partial inverse of MaxPool1d: values back at their indices, zeros elsewhere."""
    _n = 1


class MaxUnpool2d(_MaxUnpoolNd):
    """Partial inverse of MaxPool2d: values back at their indices, zeros elsewhere."""
    _n = 2


class MaxUnpool3d(_MaxUnpoolNd):
    """Partial inverse of MaxPool3d: values back at their indices, zeros elsewhere."""
    _n = 3


class FeatureAlphaDropout(Module):
    """Alpha dropout of whole channels (keeps SELU's mean and variance)."""

    def __init__(self, p: float = 0.5, inplace: bool = False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class CrossMapLRN2d(Module):
    """Legacy local response normalization across channels of (N, C, H, W) input:
    x / (k + alpha/size * sum of x^2 over the neighbouring channels)^beta."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        return _CrossMapLRN2dFn.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class _CrossMapLRN2dFn(Function):
    """PyTorch's legacy cross-map LRN, values and gradient as its hand-written autograd Function
    computes them: the running window of the forward never drops channel 0 (a quirk kept for
    compatibility), while the backward uses the symmetric size-wide window."""

    @staticmethod
    def forward(ctx, input, size, alpha, beta, k):
        channels = input.shape[1]
        pre_pad = int((size - 1) / 2 + 1)
        cs = (input * input).cumsum(1)
        upper = cs.index_select(1, ember.tensor([min(c + pre_pad - 1, channels - 1) for c in range(channels)]))
        lower_idx = [c - pre_pad if c > pre_pad else 0 for c in range(channels)]
        lower = cs.index_select(1, ember.tensor(lower_idx)) - cs.narrow(1, 0, 1)
        keep = ember.tensor([1.0 if c > pre_pad else 0.0 for c in range(channels)], dtype=input.dtype)
        scale = (upper - lower * keep.reshape(1, -1, 1, 1)) * (alpha / size) + k
        output = scale.pow(-beta) * input
        ctx.save_for_backward(input, output, scale)
        ctx.size, ctx.alpha, ctx.beta = size, alpha, beta
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, output, scale = ctx.saved_tensors
        size, channels = ctx.size, input.shape[1]
        inverse_pre_pad = int(size - (size - 1) / 2)
        ratio = grad_output * output / scale
        padded = F.pad(ratio, (0, 0, 0, 0, inverse_pre_pad, size - 1 - inverse_pre_pad))
        accum = padded.narrow(1, 0, channels)
        for off in range(1, size):
            accum = accum + padded.narrow(1, off, channels)
        grad = scale.pow(-ctx.beta) * grad_output - input * accum * (2 * ctx.alpha * ctx.beta / size)
        return grad, None, None, None, None


class NLLLoss2d(NLLLoss):
    """Deprecated alias of NLLLoss for (N, C, H, W) log-probabilities."""

    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean"):
        warnings.warn("`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a drop-in replacement "
                      "and see https://pytorch.org/docs/main/nn.html#torch.nn.NLLLoss for more details.",
                      FutureWarning, stacklevel=2)
        super().__init__(weight, size_average, ignore_index, reduce, reduction)


_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """Efficient softmax approximation (Grave et al., 2016): a head over the frequent classes plus one
    cluster per tail, each a two-layer projection of reduced size."""

    def __init__(self, in_features: int, n_classes: int, cutoffs, div_value: float = 4.0, head_bias: bool = False,
                 device=None, dtype=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > (n_classes - 1)
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an increasing "
                             "order, where each value is between 1 and n_classes-1")
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, dtype=dtype)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hsz = int(in_features // (div_value ** (i + 1)))
            osz = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hsz, bias=False, dtype=dtype),
                                        Linear(hsz, osz, bias=False, dtype=dtype)))

    def reset_parameters(self) -> None:
        """Re-initializes the head and every tail projection."""
        self.head.reset_parameters()
        for i2h, h2o in self.tail:
            i2h.reset_parameters()
            h2o.reset_parameters()

    def forward(self, input, target):
        targ_dim = target.dim()
        if targ_dim == 1:
            if input.shape[0] != target.shape[0]:
                raise RuntimeError("Input and target should have the same size in the batch dimension.")
            if input.dim() != 2:
                raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with size "
                                   f"{list(input.shape)}")
        elif targ_dim == 0:
            if input.dim() != 1:
                raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with size "
                                   f"{list(input.shape)}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = targ_dim > 0
        x = input if batched else input.unsqueeze(0)
        t = target if batched else target.unsqueeze(0)
        batch = t.shape[0]
        output = x.new_zeros(batch)
        gather_inds = t.clone()
        used_rows = 0
        bounds = [0] + self.cutoffs
        for i in range(len(bounds) - 1):
            low, high = bounds[i], bounds[i + 1]
            mask = (t >= low) & (t < high)
            rows = mask.nonzero().reshape(-1)
            if rows.numel() == 0:
                continue
            if i > 0:
                relative = t[mask] - low
                cluster_logprob = F.log_softmax(self.tail[i - 1](x.index_select(0, rows)), dim=1)
                local = cluster_logprob.gather(1, relative.unsqueeze(1)).squeeze(1)
                gather_inds = gather_inds.index_fill(0, rows, self.shortlist_size + i - 1)
                output = output.index_copy(0, rows, local)
            used_rows += rows.numel()
        if used_rows != batch:
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                               f"[{t.min().item()}, {t.max().item()}] were found. ")
        head_logprob = F.log_softmax(self.head(x), dim=1)
        output = output + head_logprob.gather(1, gather_inds.unsqueeze(1)).reshape(-1)
        loss = (-output).mean()
        if not batched:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _get_full_log_prob(self, input, head_output):
        head_logprob = F.log_softmax(head_output, dim=1)
        parts = [head_logprob[:, :self.shortlist_size]]
        for i in range(self.n_clusters):
            cluster_logprob = F.log_softmax(self.tail[i](input), dim=1)
            parts.append(cluster_logprob + head_logprob[:, self.shortlist_size + i].unsqueeze(1))
        return ember.cat(parts, 1)

    def log_prob(self, input):
        """Log-probabilities of every class, (N, n_classes) (or (n_classes,) for 1-d input)."""
        batched = input.dim() == 2
        x = input if batched else input.unsqueeze(0)
        out = self._get_full_log_prob(x, self.head(x))
        return out if batched else out.squeeze(0)

    def predict(self, input):
        """The most likely class of each row, computing the tails only where the head needs them."""
        batched = input.dim() == 2
        x = input if batched else input.unsqueeze(0)
        head_output = self.head(x)
        output = ember.argmax(head_output, dim=1)
        not_in_shortlist = output >= self.shortlist_size
        if bool(not_in_shortlist.any()):
            if bool(not_in_shortlist.all()):
                output = ember.argmax(self._get_full_log_prob(x, head_output), dim=1)
            else:
                rows = not_in_shortlist.nonzero().reshape(-1)
                full = self._get_full_log_prob(x[not_in_shortlist], head_output[not_in_shortlist])
                output = output.index_copy(0, rows, ember.argmax(full, dim=1))
        return output if batched else output.squeeze(0)


class SyncBatchNorm(_BatchNorm):
    """Batch normalization whose statistics would be reduced over a process group; without a
    distributed run (ember has none) it normalizes as BatchNorm does."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum=0.1, affine: bool = True,
                 track_running_stats: bool = True, process_group=None, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def _check_non_zero_input_channels(self, input):
        if input.shape[1] == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    def forward(self, input):
        self._check_input_dim(input)
        self._check_non_zero_input_channels(input)
        return super().forward(input)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """module with every BatchNorm*d (recursively) replaced by a SyncBatchNorm sharing its
        parameters and running statistics."""
        module_output = module
        if isinstance(module, _BatchNorm):
            module_output = SyncBatchNorm(module.num_features, module.eps, module.momentum, module.affine,
                                          module.track_running_stats, process_group)
            if module.affine:
                with ember.no_grad():
                    module_output.weight = module.weight
                    module_output.bias = module.bias
            module_output.running_mean = module.running_mean
            module_output.running_var = module.running_var
            module_output.num_batches_tracked = module.num_batches_tracked
            module_output.training = module.training
            if hasattr(module, "qconfig"):
                module_output.qconfig = module.qconfig
        for name, child in module.named_children():
            module_output.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        del module
        return module_output


@dataclasses.dataclass(frozen=True)
class LinearCrossEntropyOptions:
    """Options of linear_cross_entropy's chunked path: ember processes batch_chunk_size rows at a time
    (the other fields are accepted for PyTorch compatibility; ember's chunks compute in the input dtype)."""

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str = "auto"
    acc_policy: str = "auto"
    acc_dtype: object = None


class LinearCrossEntropyLoss(_WeightedLoss):
    """cross_entropy(Linear(input), target) in one module; the linear weight has shape
    (num_classes * prod(out_features), in_features)."""

    def __init__(self, in_features: int, num_classes: int, *, out_features=(), bias: bool = False, device=None,
                 dtype=None, reduction: str = "mean", weight=None, ignore_index=None, label_smoothing: float = 0.0,
                 options=None):
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(f"expected weight shape to be {(num_classes,)}, got {tuple(weight.shape)}")
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError(f"expected label_smoothing to be in range [0, 1], got {label_smoothing}")
        super().__init__(weight, None, None, reduction)
        self.num_classes = num_classes
        self.out_features = tuple(out_features)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing
        self.linear = Linear(in_features, math.prod(self.out_features, start=num_classes), bias=bias, dtype=dtype)
        self.options = options

    def forward(self, input, target):
        w = self.linear.weight.reshape(self.num_classes, *self.out_features, self.linear.in_features)
        b = None if self.linear.bias is None else self.linear.bias.reshape(self.num_classes, *self.out_features)
        return F.linear_cross_entropy(input, w, target, linear_bias=b, weight=self.weight, reduction=self.reduction,
                                      ignore_index=self.ignore_index, label_smoothing=self.label_smoothing,
                                      options=self.options)

    def extra_repr(self) -> str:
        return (f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
                f"out_features={self.out_features}, bias={self.linear.bias is not None}, "
                f"reduction={self.reduction}, ignore_index={self.ignore_index}, "
                f"label_smoothing={self.label_smoothing}, options={self.options}")
