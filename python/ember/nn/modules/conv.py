"""Convolution layers: Conv1d/2d/3d and ConvTranspose1d/2d/3d."""
from __future__ import annotations

import math

import ember
from ember.nn import functional as F
from ember.nn import init
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]


def _ntuple(x, n):
    if isinstance(x, (tuple, list)):
        return tuple(x)
    return (x,) * n


class _ConvNd(Module):
    _n = 0

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed,
                 output_padding, groups, bias, padding_mode, device=None, dtype=None):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        valid_padding_strings = {"same", "valid"}
        if isinstance(padding, str):
            if padding not in valid_padding_strings:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {valid_padding_strings}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        valid_padding_modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in valid_padding_modes:
            raise ValueError(f"padding_mode must be one of {valid_padding_modes}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad's argument for non-zero padding modes: last dim first, (before, after) each.
        if isinstance(padding, str):
            self._reversed_padding_repeated_twice = [0, 0] * len(kernel_size)
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size, range(len(kernel_size) - 1, -1, -1)):
                    total = d * (k - 1)
                    left = total // 2
                    self._reversed_padding_repeated_twice[2 * i] = left
                    self._reversed_padding_repeated_twice[2 * i + 1] = total - left
        else:
            self._reversed_padding_repeated_twice = [p for p in reversed(padding) for _ in range(2)]
        if transposed:
            shape = (in_channels, out_channels // groups, *kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *kernel_size)
        self.weight = Parameter(ember.empty(shape, dtype=dtype))
        if bias:
            self.bias = Parameter(ember.empty(out_channels, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """W ~ kaiming_uniform_(a=sqrt(5)), b ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)) (PyTorch's)."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)

    def _conv_forward(self, input, weight, bias):
        conv = getattr(F, f"conv{self._n}d")
        if self.padding_mode != "zeros":
            return conv(F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode), weight, bias,
                        self.stride, (0,) * self._n, self.dilation, self.groups)
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


def _conv_class(n):
    class Conv(_ConvNd):
        _n = n

        def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                     groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
            kernel_size = _ntuple(kernel_size, n)
            stride = _ntuple(stride, n)
            padding = padding if isinstance(padding, str) else _ntuple(padding, n)
            dilation = _ntuple(dilation, n)
            super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, False,
                             _ntuple(0, n), groups, bias, padding_mode, device, dtype)
    Conv.__name__ = Conv.__qualname__ = f"Conv{n}d"
    Conv.__doc__ = f"{n}-d convolution over (N, C, *{n} spatial) input (see ember.nn.functional.conv{n}d)."
    return Conv


Conv1d = _conv_class(1)
Conv2d = _conv_class(2)
Conv3d = _conv_class(3)


class _ConvTransposeNd(_ConvNd):
    def _output_padding(self, input, output_size, stride, padding, kernel_size, dilation):
        if output_size is None:
            return self.output_padding
        n = self._n
        output_size = list(output_size)
        if len(output_size) == n + 2 or (len(output_size) == n + 1 and input.dim() == n + 1):
            output_size = output_size[-n:]
        if len(output_size) != n:
            raise ValueError(f"ConvTranspose{n}D: for {input.dim()}D input, output_size must have {n} or "
                             f"{n + 2} elements (got {len(output_size)})")
        ret = []
        for d in range(n):
            dim_size = input.shape[input.dim() - n + d]
            min_size = ((dim_size - 1) * stride[d] - 2 * padding[d] + dilation[d] * (kernel_size[d] - 1) + 1)
            max_size = min_size + stride[d] - 1
            if not min_size <= output_size[d] <= max_size:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes range from "
                                 f"{min_size} to {max_size} (for an input of {list(input.shape)[2:]})")
            ret.append(output_size[d] - min_size)
        return tuple(ret)

    def forward(self, input, output_size=None):
        if self.padding_mode != "zeros":
            raise ValueError(f"Only 'zeros' padding mode is supported for {type(self).__name__}")
        output_padding = self._output_padding(input, output_size, self.stride, self.padding,
                                              self.kernel_size, self.dilation)
        conv = getattr(F, f"conv_transpose{self._n}d")
        return conv(input, self.weight, self.bias, self.stride, self.padding, output_padding, self.groups,
                    self.dilation)


def _conv_transpose_class(n):
    class ConvTranspose(_ConvTransposeNd):
        _n = n

        def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                     groups=1, bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
            if isinstance(padding, str):
                raise ValueError(f"padding must be an int or a tuple of ints for ConvTranspose{n}d, not a "
                                 "string")
            super().__init__(in_channels, out_channels, _ntuple(kernel_size, n), _ntuple(stride, n),
                             _ntuple(padding, n), _ntuple(dilation, n), True, _ntuple(output_padding, n),
                             groups, bias, padding_mode, device, dtype)
    ConvTranspose.__name__ = ConvTranspose.__qualname__ = f"ConvTranspose{n}d"
    ConvTranspose.__doc__ = f"{n}-d transposed convolution (see ember.nn.functional.conv_transpose{n}d)."
    return ConvTranspose


ConvTranspose1d = _conv_transpose_class(1)
ConvTranspose2d = _conv_transpose_class(2)
ConvTranspose3d = _conv_transpose_class(3)
