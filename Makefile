# Thin wrapper over scripts/: the two commands that matter are `make demo` and `make test`.
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: demo test build bootstrap bench clean

bootstrap:
	@scripts/bootstrap

build: bootstrap
	@scripts/configure $(BUILD)
	@cmake --build $(BUILD) -j $(JOBS)

# The demo trains a small CNN on scikit-learn's digits with Ember, then the same script on
# PyTorch (examples/train_digits.py); it imports ember from where the build put the module.
demo: build
	@pkg=$$(sed -n 's/^EMBER_PYTHON_OUTPUT_DIR:PATH=//p' $(BUILD)/CMakeCache.txt); \
	  PYTHONPATH="$$(dirname "$${pkg:-$$PWD/python/ember}")" EMBER_BUILD_DIR=$(BUILD) \
	  .venv/bin/python examples/train_digits.py --backend both

test: build
	@scripts/run_tests $(BUILD)

# make bench [QUICK=1] [FILTER=<regex>]: benchmarks/run.py builds what it runs (configuring
# $(BUILD) with -DEMBER_BUILD_BENCHMARKS=ON) and writes $(BUILD)/bench/results.{json,md}, ratios.png.
bench: bootstrap
	@.venv/bin/python benchmarks/run.py --build $(BUILD) --jobs $(JOBS) $(if $(QUICK),--quick,) \
	  $(if $(FILTER),--filter '$(FILTER)',)

clean:
	rm -rf $(BUILD) build-asan
