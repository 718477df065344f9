# The README's two quick-start commands. Each installs what it needs, configures, builds.
#   make demo   simulate the built-in lab scene with the OS0-128 profile, write HDF5, print
#               targets, end with a fidelity report (build/demo/report/report.html)
#   make test   build everything, run the whole test suite and brief fuzzer runs (what CI runs)
BUILD_DIR ?= build
JOBS ?= 2
CMAKE_FLAGS ?=

.PHONY: deps configure build demo test fuzz bench format check-format clean

deps:
	@bash scripts/install-deps.sh

configure: deps
	@if [ ! -f $(BUILD_DIR)/build.ninja ]; then \
	  cmake --preset default -B $(BUILD_DIR) $(CMAKE_FLAGS); fi

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

demo: build
	$(BUILD_DIR)/bin/lidartwin demo --out $(BUILD_DIR)/demo

test: build
	cmake --build $(BUILD_DIR) --target check-format
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) --label-exclude gpu
	JOBS=$(JOBS) bash scripts/fuzz-smoke.sh

# Brief deterministic libFuzzer runs of every reader (clang build in build-fuzz/).
fuzz: deps
	JOBS=$(JOBS) RUNS=$(or $(RUNS),200000) bash scripts/fuzz-smoke.sh

bench: build
	$(BUILD_DIR)/bin/lidartwin bench --json $(BUILD_DIR)/bench.json

format: configure
	cmake --build $(BUILD_DIR) --target format

clean:
	rm -rf $(BUILD_DIR)
