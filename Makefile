# Accord build/test/bench entry points. CI runs `bash .ci/run`, i.e. `make test`.
SHELL := /bin/bash
.DEFAULT_GOAL := build

SOAK_TIMEOUT ?= 3600

.PHONY: deps build test bench soak run clean

deps:
	@bash scripts/install-deps.sh

build:
	swift build --build-tests

test: deps
	@bash scripts/test.sh

bench: deps
	@bash scripts/bench.sh

# Long randomized/stress runs, opted in by ACCORD_SOAK=1; bounded by SOAK_TIMEOUT seconds.
soak: deps
	ACCORD_SOAK=1 ACCORD_PYTHON="$(CURDIR)/.venv/bin/python" ACCORD_SHARED="$(CURDIR)/../shared" \
		timeout --foreground --kill-after=30 $(SOAK_TIMEOUT) swift test --no-parallel

run: deps
	swift build
	@echo
	@echo "Built. Use the accord CLI with:"
	@echo "  swift run accord --help"
	@echo "  # or directly: $$(swift build --show-bin-path)/accord --help"

clean:
	swift package clean
	rm -rf .build/bench
