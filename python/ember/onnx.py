"""ember.onnx: export a traced graph to ONNX (torch.onnx.export's signature).

    ember.onnx.export(model, (x,), "model.onnx", input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})

The model is traced (ember.jit.trace, in eval mode, no gradients), optimised without fusion,
and each node is translated into ONNX operators (opset 17) through the `onnx` package; a
module's parameters and buffers become initializers under their state-dict names. An op with
no translation is an error naming it and the Python line it came from. The covered ops are
those of MLPs, CNNs (convolution, batch norm, pooling), embeddings, layer norm and the
Transformer encoder layer.
"""
from __future__ import annotations

import numpy as np

__all__ = ["export", "is_in_onnx_export", "OPSET"]

OPSET = 17
_exporting = False


def is_in_onnx_export() -> bool:
    """Whether an ONNX export runs now (torch.onnx.is_in_onnx_export)."""
    return _exporting


class _Builder:
    def __init__(self, graph, helper, numpy_helper, names):
        self.g = graph
        self.h = helper
        self.nh = numpy_helper
        self.nodes = []
        self.initializers = []
        self.names = names          # value id -> ONNX name
        self.count = 0

    def fresh(self, hint="t"):
        self.count += 1
        return f"_{hint}{self.count}"

    def const(self, array, hint="c"):
        name = self.fresh(hint)
        self.initializers.append(self.nh.from_array(np.asarray(array), name))
        return name

    def ints(self, values, hint="shape"):
        return self.const(np.asarray(list(values), dtype=np.int64), hint)

    def node(self, op, inputs, outputs=None, **attrs):
        outputs = outputs or [self.fresh(op.lower())]
        self.nodes.append(self.h.make_node(op, list(inputs), list(outputs), **attrs))
        return outputs[0] if len(outputs) == 1 else outputs

    def dtype_of(self, v):
        return self.g.value(v)["dtype"]

    def shape_of(self, v):
        return list(self.g.value(v)["shape"])


def _np_dtype(dtype):
    import ember
    return {ember.float32: np.float32, ember.float64: np.float64, ember.int64: np.int64,
            ember.int32: np.int32, ember.bool: np.bool_, ember.float16: np.float16,
            ember.uint8: np.uint8, ember.int8: np.int8}[dtype]


def _scalar_for(b, v, number):
    return b.const(np.asarray(number, dtype=_np_dtype(b.dtype_of(v))))


def _axes(dims, rank):
    if dims is None:
        return list(range(rank))
    dims = [dims] if isinstance(dims, int) else list(dims)
    return [d % rank if rank else 0 for d in dims]


# Each translator: (builder, args, out_ids) -> list of ONNX names for the outputs. `args` are
# the node's inputs: an ONNX name for a tensor value, a list of names for a list, else the
# constant itself. `ins` are the raw slots, for the value ids (shapes, dtypes).
def _binary(op):
    def f(b, a, out, ins):
        x, y = a[0], a[1]
        if not isinstance(y, str):
            y = _scalar_for(b, ins[0][1], y)
        if len(a) > 2 and a[2] not in (1, None):
            y = b.node("Mul", [y, _scalar_for(b, ins[0][1], a[2])])
        return [b.node(op, [x, y], [out[0]])]
    return f


def _unary(op):
    return lambda b, a, out, ins: [b.node(op, [a[0]], [out[0]])]


def _rsub(b, a, out, ins):
    y = a[1] if isinstance(a[1], str) else _scalar_for(b, ins[0][1], a[1])
    x = a[0]
    if len(a) > 2 and a[2] not in (1, None):
        x = b.node("Mul", [x, _scalar_for(b, ins[0][1], a[2])])
    return [b.node("Sub", [y, x], [out[0]])]


def _linear(b, a, out, ins):
    x, w, bias = a[0], a[1], a[2] if len(a) > 2 else None
    wt = b.node("Transpose", [w], perm=[1, 0])
    if len(b.shape_of(ins[0][1])) == 2 and isinstance(bias, str):
        return [b.node("Gemm", [x, w, bias], [out[0]], transB=1)]
    y = b.node("MatMul", [x, wt])
    if isinstance(bias, str):
        return [b.node("Add", [y, bias], [out[0]])]
    return [b.node("Identity", [y], [out[0]])]


def _addmm(b, a, out, ins):
    beta, alpha = (a[3] if len(a) > 3 else 1), (a[4] if len(a) > 4 else 1)
    return [b.node("Gemm", [a[1], a[2], a[0]], [out[0]], alpha=float(alpha), beta=float(beta))]


def _reshape(b, a, out, ins):
    return [b.node("Reshape", [a[0], b.ints(b.shape_of(out[1][0]))], [out[0]])]


def _transpose(b, a, out, ins):
    rank = len(b.shape_of(ins[0][1]))
    perm = list(range(rank))
    if len(a) >= 3:
        d0, d1 = a[1] % rank, a[2] % rank
        perm[d0], perm[d1] = perm[d1], perm[d0]
    elif rank == 2:
        perm = [1, 0]
    return [b.node("Transpose", [a[0]], [out[0]], perm=perm)]


def _permute(b, a, out, ins):
    rank = len(b.shape_of(ins[0][1]))
    return [b.node("Transpose", [a[0]], [out[0]], perm=[d % rank for d in a[1]])]


def _softmax(op):
    def f(b, a, out, ins):
        rank = len(b.shape_of(ins[0][1]))
        return [b.node(op, [a[0]], [out[0]], axis=(a[1] % rank) if rank else 0)]
    return f


def _layer_norm(b, a, out, ins):
    x, shape, w, bias, eps = a[0], a[1], a[2], a[3], a[4]
    rank = len(b.shape_of(ins[0][1]))
    dt = _np_dtype(b.dtype_of(ins[0][1]))
    if not isinstance(w, str):
        w = b.const(np.ones(shape, dtype=dt))
    inputs = [x, w] + ([bias] if isinstance(bias, str) else [])
    return [b.node("LayerNormalization", inputs, [out[0]], axis=rank - len(shape),
                   epsilon=float(eps))]


def _dropout(b, a, out, ins):
    if a[2]:
        raise RuntimeError("onnx.export(): a dropout in training mode; call model.eval() first")
    return [b.node("Identity", [a[0]], [out[0]])]


def _identity(b, a, out, ins):
    return [b.node("Identity", [a[0]], [out[0]])]


def _gelu(b, a, out, ins):
    x = a[0]
    approximate = a[1] if len(a) > 1 else "none"
    v = ins[0][1]
    if approximate == "tanh":
        c = _scalar_for(b, v, np.sqrt(2 / np.pi))
        inner = b.node("Mul", [c, b.node("Add", [x, b.node("Mul", [_scalar_for(b, v, 0.044715),
                                                              b.node("Pow", [x, _scalar_for(b, v, 3.0)])])])])
        t = b.node("Add", [_scalar_for(b, v, 1.0), b.node("Tanh", [inner])])
    else:
        t = b.node("Add", [_scalar_for(b, v, 1.0),
                           b.node("Erf", [b.node("Div", [x, _scalar_for(b, v, np.sqrt(2.0))])])])
    return [b.node("Mul", [b.node("Mul", [x, t]), _scalar_for(b, v, 0.5)], [out[0]])]


def _conv(b, a, out, ins):
    # convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
    # conv2d/conv1d(input, weight, bias, stride, padding, dilation, groups)
    x, w, bias = a[0], a[1], a[2]
    if len(a) >= 9:
        stride, padding, dilation, transposed, groups = a[3], a[4], a[5], a[6], a[8]
        if transposed:
            raise RuntimeError("onnx.export(): transposed convolution is not translated")
    else:
        stride, padding, dilation, groups = a[3], a[4], a[5], a[6]
    if isinstance(padding, str):
        raise RuntimeError("onnx.export(): a convolution with padding='same'/'valid' is not "
                           "translated; give the padding as numbers")
    n = len(b.shape_of(ins[1][1])) - 2
    expand = (lambda v: list(v) * n if len(v) == 1 else list(v))
    inputs = [x, w] + ([bias] if isinstance(bias, str) else [])
    pads = expand(padding)
    return [b.node("Conv", inputs, [out[0]], strides=expand(stride), pads=pads + pads,
                   dilations=expand(dilation), group=int(groups))]


def _batch_norm(b, a, out, ins):
    # batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn)
    x, w, bias, mean, var, training, eps = a[0], a[1], a[2], a[3], a[4], a[5], a[7]
    if training or not isinstance(mean, str):
        raise RuntimeError("onnx.export(): batch_norm in training mode (or without running "
                           "statistics); call model.eval() first")
    c = b.shape_of(ins[0][1])[1]
    dt = _np_dtype(b.dtype_of(ins[0][1]))
    w = w if isinstance(w, str) else b.const(np.ones(c, dtype=dt))
    bias = bias if isinstance(bias, str) else b.const(np.zeros(c, dtype=dt))
    return [b.node("BatchNormalization", [x, w, bias, mean, var], [out[0]], epsilon=float(eps))]


def _spatial(b, ins, values, default=None):
    n = len(b.shape_of(ins[0][1])) - 2
    values = list(values) if values else list(default)
    return values * n if len(values) == 1 else values


def _max_pool(b, a, out, ins):
    # max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)
    pads = _spatial(b, ins, a[3])
    return [b.node("MaxPool", [a[0]], [out[0]], kernel_shape=_spatial(b, ins, a[1]),
                   strides=_spatial(b, ins, a[2], a[1]), pads=pads + pads,
                   dilations=_spatial(b, ins, a[4]), ceil_mode=int(a[5]))]


def _max_pool_with_indices(b, a, out, ins):
    # (values, indices): ONNX's indices count differently, so only the values are translated;
    # a graph that reads the indices fails the checker naming the missing value.
    names = list(out[0])
    return [_max_pool(b, a, (names[0], out[1][:1]), ins)[0], names[1]]


def _avg_pool(b, a, out, ins):
    # avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
    if len(a) > 6 and a[6] is not None:
        raise RuntimeError("onnx.export(): avg_pool2d with divisor_override is not translated")
    pads = _spatial(b, ins, a[3])
    return [b.node("AveragePool", [a[0]], [out[0]], kernel_shape=_spatial(b, ins, a[1]),
                   strides=_spatial(b, ins, a[2], a[1]), pads=pads + pads,
                   ceil_mode=int(a[4]), count_include_pad=int(a[5]))]


def _adaptive_avg_pool(b, a, out, ins):
    if any(s != 1 for s in a[1]):
        raise RuntimeError("onnx.export(): adaptive_avg_pool to an output size other than 1 "
                           "is not translated")
    return [b.node("GlobalAveragePool", [a[0]], [out[0]])]


def _flatten(b, a, out, ins):
    return [b.node("Reshape", [a[0], b.ints(b.shape_of(out[1][0]))], [out[0]])]


def _matmul(b, a, out, ins):
    return [b.node("MatMul", [a[0], a[1]], [out[0]])]


def _embedding(b, a, out, ins):
    return [b.node("Gather", [a[0], a[1]], [out[0]], axis=0)]


def _chunk(b, a, out, ins):
    sizes = [b.shape_of(v)[a[2] % len(b.shape_of(ins[0][1]))] for v in out[1]]
    return b.node("Split", [a[0], b.ints(sizes, "split")], list(out[0]),
                  axis=a[2] % len(b.shape_of(ins[0][1])))


def _split(b, a, out, ins):
    rank = len(b.shape_of(ins[0][1]))
    dim = a[2] % rank
    sizes = [b.shape_of(v)[dim] for v in out[1]]
    return b.node("Split", [a[0], b.ints(sizes, "split")], list(out[0]), axis=dim)


def _reduce(op):
    def f(b, a, out, ins):
        rank = len(b.shape_of(ins[0][1]))
        dims = a[1] if len(a) > 1 else None
        keep = bool(a[2]) if len(a) > 2 else False
        axes = _axes(dims, rank)
        if op == "ReduceSum":
            return [b.node(op, [a[0], b.ints(axes, "axes")], [out[0]], keepdims=int(keep))]
        return [b.node(op, [a[0]], [out[0]], axes=axes, keepdims=int(keep))]
    return f


def _cat(b, a, out, ins):
    rank = len(b.shape_of(out[1][0]))
    return [b.node("Concat", list(a[0]), [out[0]], axis=a[1] % rank)]


def _clamp(b, a, out, ins):
    v = ins[0][1]
    lo = _scalar_for(b, v, a[1]) if len(a) > 1 and a[1] is not None else ""
    hi = _scalar_for(b, v, a[2]) if len(a) > 2 and a[2] is not None else ""
    return [b.node("Clip", [a[0], lo, hi], [out[0]])]


def _where(b, a, out, ins):
    return [b.node("Where", [a[0], a[1], a[2]], [out[0]])]


def _unsqueeze(b, a, out, ins):
    rank = len(b.shape_of(out[1][0]))
    return [b.node("Unsqueeze", [a[0], b.ints([a[1] % rank], "axes")], [out[0]])]


def _expand(b, a, out, ins):
    return [b.node("Expand", [a[0], b.ints(b.shape_of(out[1][0]))], [out[0]])]


def _pow_scalar(b, a, out, ins):
    return [b.node("Pow", [a[0], _scalar_for(b, ins[0][1], a[1])], [out[0]])]


def _to_dtype(b, a, out, ins):
    from onnx import helper
    to = helper.np_dtype_to_tensor_dtype(np.dtype(_np_dtype(b.dtype_of(out[1][0]))))
    return [b.node("Cast", [a[0]], [out[0]], to=int(to))]


TRANSLATIONS = {
    "aten::add.Tensor": _binary("Add"), "aten::add.Scalar": _binary("Add"),
    "aten::sub.Tensor": _binary("Sub"), "aten::sub.Scalar": _binary("Sub"),
    "aten::mul.Tensor": _binary("Mul"), "aten::mul.Scalar": _binary("Mul"),
    "aten::div.Tensor": _binary("Div"), "aten::div.Scalar": _binary("Div"),
    "aten::rsub.Scalar": _rsub, "aten::rsub.Tensor": _rsub,
    "aten::maximum": _binary("Max"), "aten::minimum": _binary("Min"),
    "aten::relu": _unary("Relu"), "aten::tanh": _unary("Tanh"), "aten::sigmoid": _unary("Sigmoid"),
    "aten::exp": _unary("Exp"), "aten::log": _unary("Log"), "aten::neg": _unary("Neg"),
    "aten::sqrt": _unary("Sqrt"), "aten::abs": _unary("Abs"), "aten::erf": _unary("Erf"),
    "aten::sin": _unary("Sin"), "aten::cos": _unary("Cos"), "aten::reciprocal": _unary("Reciprocal"),
    "aten::gelu": _gelu, "aten::linear": _linear, "aten::addmm": _addmm,
    "aten::mm": _matmul, "aten::matmul": _matmul, "aten::bmm": _matmul,
    "aten::reshape": _reshape, "aten::view": _reshape, "aten::flatten.using_ints": _flatten,
    "aten::_unsafe_view": _reshape, "aten::squeeze.dim": _reshape, "aten::squeeze": _reshape,
    "aten::transpose.int": _transpose, "aten::t": _transpose, "aten::permute": _permute,
    "aten::softmax.int": _softmax("Softmax"), "aten::_softmax": _softmax("Softmax"),
    "aten::log_softmax.int": _softmax("LogSoftmax"), "aten::_log_softmax": _softmax("LogSoftmax"),
    "aten::layer_norm": _layer_norm, "aten::dropout": _dropout,
    "aten::contiguous": _identity, "aten::clone": _identity, "aten::detach": _identity,
    "aten::alias": _identity,
    "aten::convolution": _conv, "aten::conv2d": _conv, "aten::conv1d": _conv,
    "aten::batch_norm": _batch_norm, "aten::max_pool2d": _max_pool,
    "aten::max_pool2d_with_indices": _max_pool_with_indices, "aten::avg_pool2d": _avg_pool,
    "aten::adaptive_avg_pool2d": _adaptive_avg_pool, "aten::embedding": _embedding,
    "aten::chunk": _chunk, "aten::split.Tensor": _split, "aten::split_with_sizes": _split,
    "aten::sum.dim_IntList": _reduce("ReduceSum"), "aten::mean.dim": _reduce("ReduceMean"),
    "aten::sum": _reduce("ReduceSum"), "aten::mean": _reduce("ReduceMean"),
    "aten::cat": _cat, "aten::clamp": _clamp, "aten::where.self": _where,
    "aten::unsqueeze": _unsqueeze, "aten::expand": _expand, "aten::pow.Tensor_Scalar": _pow_scalar,
    "aten::to.dtype": _to_dtype,
}
for _name, _op in (("gt", "Greater"), ("lt", "Less"), ("eq", "Equal"), ("ge", "GreaterOrEqual"),
                   ("le", "LessOrEqual")):
    TRANSLATIONS[f"aten::{_name}.Tensor"] = _binary(_op)
    TRANSLATIONS[f"aten::{_name}.Scalar"] = _binary(_op)
del _name, _op


def _to_model(graph, input_names, output_names, dynamic_axes, bound):
    import onnx
    from onnx import helper, numpy_helper
    names = {}
    free = [v for v in graph.inputs if graph.value(v)["name"] not in bound]
    if input_names is not None and len(input_names) > len(free):
        raise ValueError(f"onnx.export(): {len(input_names)} input_names for {len(free)} inputs")
    for k, v in enumerate(free):
        names[v] = input_names[k] if input_names and k < len(input_names) else graph.value(v)["name"]
    b = _Builder(graph, helper, numpy_helper, names)
    for v in graph.inputs:
        if v not in names:                                # a parameter or buffer
            names[v] = graph.value(v)["name"]
            b.initializers.append(numpy_helper.from_array(
                bound[names[v]].detach().numpy(), names[v]))
    for v in range(graph.num_values):
        info = graph.value(v)
        if info["constant"] is not None:
            names[v] = b.const(info["constant"].detach().numpy(), "const")

    def name_of(v):
        if v not in names:
            names[v] = f"v{v}"
        return names[v]

    for node in graph.nodes():
        op = node["op"]
        fn = TRANSLATIONS.get(op)
        if fn is None:
            where = f" (at {node['source']})" if node["source"] else ""
            raise RuntimeError(f"onnx.export(): no ONNX translation for {op}{where}")
        args, ins = [], []
        for kind, x in node["inputs"]:
            if kind == "value":
                args.append(name_of(x))
            elif kind == "list":
                args.append([name_of(i) for i in x if i >= 0])
            else:
                args.append(x)
            ins.append((kind, x))
        out_ids = []
        for kind, x in node["outputs"]:
            out_ids += [x] if kind == "value" else list(x)
        out_names = [name_of(v) for v in out_ids]
        fn(b, args, (out_names if len(out_names) > 1 else out_names[0], out_ids), ins)

    def vinfo(v, name, axes):
        info = graph.value(v)
        shape = list(info["shape"])
        for d, label in (axes or {}).items():
            shape[d] = label
        dt = helper.np_dtype_to_tensor_dtype(np.dtype(_np_dtype(info["dtype"])))
        return helper.make_tensor_value_info(name, dt, shape)

    def axes_for(name):
        axes = (dynamic_axes or {}).get(name)
        if isinstance(axes, (list, tuple)):
            axes = {d: f"{name}_dim{d}" for d in axes}
        return axes

    inputs = [vinfo(v, names[v], axes_for(names[v])) for v in free]
    outputs = []
    for k, v in enumerate(graph.outputs):
        final = output_names[k] if output_names and k < len(output_names) else f"output{k}"
        b.node("Identity", [name_of(v)], [final])
        outputs.append(vinfo(v, final, axes_for(final)))
    used = {i for n in b.nodes for i in n.input}
    initializers = [t for t in b.initializers if t.name in used]  # (num_batches_tracked, ...)
    g = helper.make_graph(b.nodes, "ember", inputs, outputs, initializer=initializers)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="ember")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def export(model, args=(), f=None, *, input_names=None, output_names=None, dynamic_axes=None,
           opset_version=None, export_params=True, do_constant_folding=True, verbose=False,
           training=None, dynamo=False, **kwargs):
    """torch.onnx.export(model, args, f, input_names=..., output_names=..., dynamic_axes=...):
    traces model on args and writes the ONNX model to f (a path or a binary file); returns the
    onnx.ModelProto. opset_version must be None or 17 (the opset the translations target)."""
    global _exporting
    import ember
    if opset_version not in (None, OPSET):
        raise ValueError(f"onnx.export(): opset_version {opset_version} is not supported; "
                         f"Ember writes opset {OPSET}")
    if not export_params:
        raise ValueError("onnx.export(): export_params=False is not supported")
    if isinstance(args, ember.Tensor):
        args = (args,)
    was_training = isinstance(model, ember.nn.Module) and model.training
    if was_training:
        model.eval()
    _exporting = True
    try:
        with ember.no_grad():
            gm = ember.jit.trace(model, tuple(args), optimize=False)
            gm.graph.optimize(fuse=False)
        bound = gm._bound_tensors()
        proto = _to_model(gm.graph, input_names, output_names, dynamic_axes, bound)
    finally:
        _exporting = False
        if was_training:
            model.train()
    if f is not None:
        data = proto.SerializeToString()
        if isinstance(f, (str, bytes)) or hasattr(f, "__fspath__"):
            with open(f, "wb") as fh:
                fh.write(data)
        else:
            f.write(data)
    return proto
