"""Factories, Ember against libtorch (the codegen issue's cases): small ones measure a
factory's per-call overhead (goal 0.5), large ones its kernel (goal 1.0)."""

from runner.registry import CppCase, CppSuite, cpp_suite

cpp_suite(CppSuite(
    name="factory",
    ember_target="ember_factory_bench",
    reference="libtorch",
    reference_target="torch_factory_bench",
    cases=(
        CppCase("zeros_4", 0.5),
        CppCase("full_4", 0.5),
        CppCase("arange_1000", 1.0),
        CppCase("randn_1m", 1.0),
    ),
    notes=(
        "factory: single thread; ember::empty({4}) is the dispatch suite's empty_4",
        "factory: randn draws from each library's own default CPU generator (Ember: "
        "Philox4x32-10 with Box-Muller; the streams differ, the distribution is the same)",
    ),
))
