"""ember.onnx: exporting models to ONNX, which needs the tracer (not built yet)."""
from __future__ import annotations


def export(model, args=(), f=None, **kwargs):
    """torch.onnx.export's entry point: raises NotImplementedError until Ember's tracer records
    graphs to export (the tracing issue)."""
    raise NotImplementedError("ember.onnx.export(): exporting to ONNX is not implemented yet; "
                              "it needs Ember's tracer (the tracing issue), which will record "
                              "the model's graph to export")


def is_in_onnx_export() -> bool:
    """Whether an ONNX export is running: never, yet."""
    return False
