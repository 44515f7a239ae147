"""ember.onnx.export: the exported demo CNN, an MLP, a Transformer encoder layer, an
embedding with layer norm and each translated elementwise op run in onnxruntime and match
Ember's outputs; dynamic axes; the errors for ops without a translation and training mode."""
import io

import numpy as np
import pytest

import ember

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
nn = ember.nn


def run_onnx(model, args, **kw):
    buf = io.BytesIO()
    names = [f"x{i}" for i in range(len(args))]
    proto = ember.onnx.export(model, args, buf, input_names=names, output_names=["y"], **kw)
    sess = ort.InferenceSession(buf.getvalue(), providers=["CPUExecutionProvider"])
    return proto, sess, names


def check(model, *args, rtol=1e-5):
    proto, sess, names = run_onnx(model, args)
    got = sess.run(None, {n: a.numpy() for n, a in zip(names, args)})[0]
    with ember.no_grad():
        want = model(*args).numpy()
    assert got.shape == want.shape
    scale = max(np.abs(want).max(), 1e-30)
    assert np.abs(got - want).max() / scale <= rtol
    return proto


def demo_cnn():
    return nn.Sequential(
        nn.Conv2d(1, 32, kernel_size=3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, kernel_size=3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Dropout(0.3), nn.Linear(256, 128), nn.ReLU(), nn.Dropout(0.3),
        nn.Linear(128, 10))


def test_mlp():
    ember.manual_seed(0)
    net = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.Tanh(),
                        nn.Linear(512, 10), nn.LogSoftmax(dim=1))
    proto = check(net, ember.randn(8, 784))
    assert {i.name for i in proto.graph.initializer} >= {"0.weight", "4.bias"}


def test_demo_cnn_with_trained_batch_norm_statistics():
    ember.manual_seed(0)
    net = demo_cnn()
    net(ember.randn(16, 1, 8, 8))           # running statistics move away from 0 and 1
    net.eval()
    check(net, ember.randn(5, 1, 8, 8))
    assert net.training is False


def test_export_of_a_training_module_exports_eval_and_restores_training():
    ember.manual_seed(0)
    net = demo_cnn()
    assert net.training
    buf = io.BytesIO()
    ember.onnx.export(net, (ember.randn(2, 1, 8, 8),), buf)
    assert net.training


def test_transformer_encoder_layer():
    ember.manual_seed(0)
    layer = nn.TransformerEncoderLayer(32, 4, 64, batch_first=True).eval()
    check(layer, ember.randn(2, 5, 32))


def test_embedding_and_layer_norm():
    ember.manual_seed(0)
    model = nn.Sequential(nn.Embedding(10, 8), nn.LayerNorm(8)).eval()
    check(model, ember.tensor([[1, 2, 9], [3, 0, 4]]))


OPS = {
    "add": lambda x, y: x + y * 2, "sub": lambda x, y: ember.sub(x, y, alpha=3),
    "mul": lambda x, y: x * y, "div": lambda x, y: x / (y.abs() + 1),
    "rsub": lambda x, y: 1 - x, "maximum": ember.maximum, "minimum": ember.minimum,
    "exp": lambda x, y: x.exp(), "log": lambda x, y: (x.abs() + 1).log(),
    "sqrt": lambda x, y: x.abs().sqrt(), "sigmoid": lambda x, y: x.sigmoid(),
    "gelu": lambda x, y: nn.functional.gelu(x), "gelu_tanh": lambda x, y: nn.functional.gelu(x, approximate="tanh"),
    "clamp": lambda x, y: x.clamp(-0.5, 0.5), "where": lambda x, y: ember.where(x > y, x, y),
    "softmax": lambda x, y: x.softmax(-1), "sum": lambda x, y: x.sum(1, keepdim=True),
    "mean": lambda x, y: x.mean(0), "cat": lambda x, y: ember.cat([x, y], 1),
    "matmul": lambda x, y: x @ y.t(), "compare": lambda x, y: (x > y).float() + (x <= 0.5).float(), "permute": lambda x, y: x.permute(1, 0) * 2,
    "unsqueeze": lambda x, y: x.unsqueeze(1), "pow": lambda x, y: x ** 2,
    "chunk": lambda x, y: x.chunk(2, 1)[1] * 3,
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_translated_ops_match(name):
    ember.manual_seed(1)
    check(lambda x, y: OPS[name](x, y), ember.randn(4, 6), ember.randn(4, 6))


def test_dynamic_axes_run_another_batch_size():
    ember.manual_seed(0)
    net = nn.Sequential(nn.Linear(6, 3), nn.ReLU()).eval()
    _, sess, _ = run_onnx(net, (ember.randn(2, 6),), dynamic_axes={"x0": {0: "batch"},
                                                                    "y": {0: "batch"}})
    x = ember.randn(7, 6)
    np.testing.assert_allclose(sess.run(None, {"x0": x.numpy()})[0], net(x).detach().numpy(),
                               rtol=1e-5, atol=1e-6)


def test_writes_a_file_onnx_reads(tmp_path):
    path = tmp_path / "m.onnx"
    ember.onnx.export(nn.Linear(3, 2), (ember.ones(1, 3),), str(path))
    onnx.checker.check_model(onnx.load(str(path)))


def test_an_op_without_a_translation_names_it_and_the_line():
    with pytest.raises(RuntimeError, match=r"no ONNX translation for aten::cumsum \(at test_onnx.py:\d+\)"):
        ember.onnx.export(lambda x: x.cumsum(0), (ember.ones(3),), io.BytesIO())
    assert not ember.onnx.is_in_onnx_export()


def test_bad_arguments():
    with pytest.raises(ValueError, match="opset_version 9"):
        ember.onnx.export(nn.Linear(2, 2), (ember.ones(1, 2),), io.BytesIO(), opset_version=9)
    with pytest.raises(ValueError, match="3 input_names for 1 inputs"):
        ember.onnx.export(nn.Linear(2, 2), (ember.ones(1, 2),), io.BytesIO(),
                          input_names=["a", "b", "c"])
