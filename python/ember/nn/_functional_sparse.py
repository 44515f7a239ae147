"""Embeddings for ember.nn.functional: embedding, embedding_bag and one_hot."""
import ember as _ember
from ember._C import _nn

__all__ = ["embedding", "embedding_bag", "one_hot"]


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """The rows of weight at the indices input; max_norm renormalises the rows used, in place."""
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    return _ember.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def _embedding_renorm_(weight, input, max_norm, norm_type):
    """Scales the rows of weight that input uses down to norm max_norm (no gradient)."""
    with _ember.no_grad():
        rows = _ember.unique(input.reshape(-1))
        norms = _ember.linalg.vector_norm(weight.index_select(0, rows), norm_type, dim=1)
        scale = _ember.where(norms > max_norm, max_norm / (norms + 1e-7), _ember.ones_like(norms))
        weight.index_copy_(0, rows, weight.index_select(0, rows) * scale.unsqueeze(1))
    return weight


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,
                  mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False,
                  padding_idx=None):
    """Sums, means or maxima of bags of embeddings: input [B, L] (one bag per row) or 1-d
    with offsets (bag i is input[offsets[i]:offsets[i+1]]); empty bags give zeros."""
    if mode not in ("sum", "mean", "max"):
        raise ValueError(f"mode has to be one of sum, mean or max, but got {mode}")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is "
                                  f"only supported for mode='sum' (got mode='{mode}'). Please open a "
                                  "feature request on GitHub.")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch "
                             "of fixed length sequences.")
        bags, length = input.shape
        offsets = _ember.arange(0, bags * length, length) if length else _ember.zeros(bags, dtype=_ember.int64)
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
        include_last_offset = False
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if padding_idx is not None and padding_idx < 0:
        padding_idx = weight.size(0) + padding_idx
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    n = input.numel()
    ends = offsets.to(_ember.int64)
    bags = ends.numel() - 1 if include_last_offset else ends.numel()
    # The bag of each index: the number of offsets at or before its position, minus one.
    bag_of = _ember.bucketize(_ember.arange(n), ends[:bags], right=True) - 1
    keep = bag_of >= 0
    if padding_idx is not None:
        keep = keep & (input != padding_idx)
    sel = keep.nonzero().reshape(-1)
    rows = _ember.embedding(weight, input.index_select(0, sel), -1, scale_grad_by_freq, False)
    bag_sel = bag_of.index_select(0, sel)
    dim = weight.shape[1]
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.index_select(0, sel).unsqueeze(1)
    if mode == "max":
        out = _ember.zeros((bags, dim), dtype=weight.dtype)
        return out.scatter_reduce(0, bag_sel.unsqueeze(1).expand(-1, dim), rows, "amax", include_self=False)
    out = _ember.zeros((bags, dim), dtype=weight.dtype).index_add(0, bag_sel, rows)
    if mode == "mean":
        counts = _ember.bincount(bag_sel, minlength=bags).to(weight.dtype).clamp_min(1)
        out = out / counts.unsqueeze(1)
    return out


def one_hot(tensor, num_classes=-1):
    """int64 one-hot vectors of the class indices (num_classes -1: the largest index + 1)."""
    return _nn.one_hot(tensor, num_classes)
