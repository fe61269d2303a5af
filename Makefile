# The README's two commands: `make run` and `make test`. Both install missing Debian build
# dependencies (when run as root), configure with CMake presets and build with Ninja.
PRESET ?= release
BUILD_DIR := build/$(PRESET)
JOBS ?= $(shell nproc)

.PHONY: all deps configure build run test test-asan test-tsan bench format clean fuzz-build fuzz fuzz-smoke

all: build

deps:
	@scripts/install-deps.sh

$(BUILD_DIR)/build.ninja: | deps
	cmake --preset $(PRESET)

configure: $(BUILD_DIR)/build.ninja

build: configure
	cmake --build --preset $(PRESET) -j $(JOBS)

# The main job on the embedded default scenario.
run: build
	$(BUILD_DIR)/orrery demo --out out/demo

test: build
	ctest --preset $(PRESET) -j $(JOBS)

# The whole suite under ASan+UBSan (CI runs it after `make test`), and the multi-threaded parts
# under TSan (not in CI). docs/RELIABILITY.md, "Sanitizers".
test-asan:
	$(MAKE) build PRESET=asan
	scripts/sanitizer-tests.sh asan $(JOBS)

# (The tsan build and test presets name the subset: its targets and their labels.)
test-tsan:
	$(MAKE) build PRESET=tsan
	scripts/sanitizer-tests.sh tsan $(JOBS)

bench: build
	@for b in $(BUILD_DIR)/bench/*_bench; do echo "== $$b"; $$b --benchmark_min_time=0.5; done

# Coverage-guided fuzzing (fuzz/README.md): clang-14 + libFuzzer with ASan/UBSan, in build/fuzz.
# `make fuzz` runs every target for FUZZ_SECONDS (two at a time); `make fuzz-smoke` is CI's
# short run of each: FUZZ_SMOKE_RUNS inputs (10,000: 14 targets two at a time take ~25 s,
# whatever the machine's speed; FUZZ_SMOKE_SECONDS only caps a target) from libFuzzer seed 1.
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 120
FUZZ_SMOKE_RUNS ?= 10000
FUZZ_JOBS ?= 2
FUZZ_SMOKE_SEED ?= 1
fuzz-build: | deps
	cmake --preset fuzz $(if $(shell command -v ccache),-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
	cmake --build --preset fuzz -j $(JOBS)

fuzz: fuzz-build
	scripts/fuzz.sh $(FUZZ_SECONDS) $(FUZZ_JOBS)

fuzz-smoke: fuzz-build
	FUZZ_SEED=$(FUZZ_SMOKE_SEED) FUZZ_RUNS=$(FUZZ_SMOKE_RUNS) scripts/fuzz.sh $(FUZZ_SMOKE_SECONDS) 2

format:
	find src tests bench -name '*.h' -o -name '*.cc' | xargs clang-format -i

clean:
	rm -rf build
