"""Public torch names that Ember's API coverage does not count, each with the reason.

test_api_coverage.py counts, per namespace, the names dir() shows without a leading
underscore, less what it drops by rule (modules imported from elsewhere, typing
constructs, docstring-template strings) and less the names below. A name belongs here only
when no user program is expected to need it: removed or deprecated-and-raising API,
TorchScript and __torch_function__ plumbing, re-exports, internals, or a device Ember does not
have. Missing features that users do call (quantized tensors, lazy modules, DataPipes' heirs)
stay counted. Review each addition.
"""

_REMOVED = "removed from torch (calling it raises)"
_DEVICE = "accessor for a device Ember has no backend for (IPU/XPU/MTIA/XLA)"
_OVERRIDES = "__torch_function__ plumbing re-exported from torch.overrides (internal)"
_TORCHSCRIPT = "TorchScript typing/dispatch helper (torch._jit_internal)"
_AO = "deprecated alias package of torch.ao.nn (quantization modules live in torch.ao)"
_DATAPIPES = "DataPipes: deprecated in torch 2.x (moved out to torchdata, slated for removal)"
_PROFILER = "kineto profiler internals re-exported from torch._C (torch.profiler is the API)"
_REEXPORT = "re-export of torch.Tensor (counted under torch.Tensor methods)"

EXCLUDED = {
    "Tensor": {
        "eig": _REMOVED, "symeig": _REMOVED, "lstsq": _REMOVED, "solve": _REMOVED,
        "reinforce": _REMOVED,
        "volatile": "removed attribute: always False, with a warning",
        "is_distributed": "legacy THD attribute: always False",
        "ipu": _DEVICE, "xpu": _DEVICE, "mtia": _DEVICE, "is_xla": _DEVICE,
        "record_stream": "CUDA-only: CUDA caching-allocator stream bookkeeping",
        "slice_inverse": "internal: used by torch.compile's functionalization",
        "storage_type": "legacy TypedStorage API (deprecated; untyped_storage replaces it)",
        "index": "functorch.dim's first-class dimensions (experimental, its own package): "
                 "binds positions to Dim objects; not tensor indexing",
    },
    "nn": {
        "intrinsic": _AO, "qat": _AO, "quantizable": _AO, "quantized": _AO,
        "common_types": "type aliases for annotations inside torch.nn (internal)",
        "factory_kwargs": "internal helper of module constructors (device/dtype kwargs)",
        "Container": "deprecated since 0.2: warns and points to Module",
    },
    "nn.functional": {
        "BroadcastingList1": _TORCHSCRIPT, "BroadcastingList2": _TORCHSCRIPT,
        "BroadcastingList3": _TORCHSCRIPT, "boolean_dispatch": _TORCHSCRIPT,
        "DType": "typing alias (int) used in annotations",
        "TYPE_CHECKING": "typing.TYPE_CHECKING re-export",
        "Tensor": _REEXPORT,
        "handle_torch_function": _OVERRIDES, "has_torch_function": _OVERRIDES,
        "has_torch_function_unary": _OVERRIDES, "has_torch_function_variadic": _OVERRIDES,
        "assert_int_or_pair": "internal argument check of the pooling functions",
        "GRID_SAMPLE_INTERPOLATION_MODES": "internal lookup table of grid_sample",
        "GRID_SAMPLE_PADDING_MODES": "internal lookup table of grid_sample",
        "ScalingType": "CUDA-only: FP8 scaled_mm scaling recipe enum",
        "SwizzleType": "CUDA-only: FP8 scaled_mm scale swizzle enum",
        "scaled_mm": "CUDA-only: FP8 GEMM (needs sm89+ tensor cores)",
        "scaled_grouped_mm": "CUDA-only: FP8 grouped GEMM (needs sm90+)",
    },
    "optim": {},
    "linalg": {},
    "special": {"Tensor": _REEXPORT},
    "fft": {"Tensor": _REEXPORT},
    "autograd": {
        "handle_torch_function": _OVERRIDES, "has_torch_function": _OVERRIDES,
        "is_tensor_like": _OVERRIDES,
        "DeviceType": _PROFILER, "ProfilerConfig": _PROFILER, "ProfilerEvent": _PROFILER,
        "ProfilerState": _PROFILER, "kineto_available": _PROFILER,
        "profiler_util": _PROFILER, "profiler_legacy": "legacy profiler, superseded by profiler",
        "NestedIOFunction": "kept in torch for backward compatibility only (documented so)",
    },
    "utils.data": {
        "DFIterDataPipe": _DATAPIPES, "DataChunk": _DATAPIPES, "IterDataPipe": _DATAPIPES,
        "MapDataPipe": _DATAPIPES, "argument_validation": _DATAPIPES,
        "datapipes": _DATAPIPES, "functional_datapipe": _DATAPIPES, "graph": _DATAPIPES,
        "graph_settings": _DATAPIPES, "guaranteed_datapipes_determinism": _DATAPIPES,
        "non_deterministic": _DATAPIPES, "runtime_validation": _DATAPIPES,
        "runtime_validation_disabled": _DATAPIPES,
    },
}
