# Thin wrapper over scripts/: the two commands that matter are `make demo` and `make test`.
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: demo test build bootstrap bench clean

bootstrap:
	@scripts/bootstrap

build: bootstrap
	@scripts/configure $(BUILD)
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	@$(BUILD)/dispatch_demo

test: build
	@scripts/run_tests $(BUILD)

bench: bootstrap
	@scripts/configure $(BUILD) -DEMBER_BUILD_BENCHMARKS=ON
	@cmake --build $(BUILD) -j $(JOBS)
	@.venv/bin/python benchmarks/dispatch_bench.py --build $(BUILD) $(if $(QUICK),--quick,)

clean:
	rm -rf $(BUILD) build-asan
