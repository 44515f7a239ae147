"""Per-call dispatcher overhead, Ember against libtorch (the foundation issue's cases).

benchmarks/cpp/dispatch_bench.cpp and benchmarks/libtorch/dispatch_bench_torch.cpp carry
the same BENCHMARK() names; each measures one call, single thread.
"""

from runner.registry import CppCase, CppSuite, cpp_suite

GOAL = 0.5  # Ember's time per call at most half of libtorch's.

cpp_suite(CppSuite(
    name="dispatch",
    ember_target="ember_dispatch_bench",
    reference="libtorch",
    reference_target="torch_dispatch_bench",
    cases=(
        CppCase("noop_unboxed", GOAL),
        CppCase("noop_boxed", GOAL),
        CppCase("noop_void_unboxed", GOAL),
        CppCase("noop_void_boxed", GOAL),
        CppCase("key_extraction", GOAL),
        CppCase("empty_4", GOAL),
        CppCase("view", 0.3, note="view of a 4-element tensor (the views issue: <= 0.3)"),
        CppCase("tensor_copy", None,
                note="floor: copying and dropping a tensor handle (one atomic increment and "
                     "decrement); noop_unboxed pays it once, the boxed cases two or three times"),
        CppCase("ref_add", 0.3, note="add on 4-element tensors (the CPU-kernels issue: <= 0.3)"),
        CppCase("ref_add_out", 0.3, note="add_out on 4-element tensors"),
        CppCase("ref_add_autograd", 0.3,
                note="add with a requiring grad: records a node (the autograd issue: <= 0.3)"),
    ),
    notes=(
        "times are per call, single thread, the median over rounds of each run's median CPU "
        "time",
        "libtorch: bench::noop has a CPU kernel and an Autograd fallthrough (Ember's autograd "
        "keys fall through), so both dispatch straight to the CPU kernel",
        "at::empty and view run through both libraries' autograd layers, as for any user "
        "without InferenceMode",
        "libtorch: key_extraction times DispatchKeyExtractor::getDispatchKeySetUnboxed on an "
        "extractor rebuilt from the op's schema and fallthrough keys (no public accessor to "
        "the op's own; see Note [libtorch key extraction])",
    ),
))
