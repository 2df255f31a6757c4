# Accord build/test/bench entry points. CI runs `bash .ci/run`, i.e. `make test`.
SHELL := /bin/bash
.DEFAULT_GOAL := build

SOAK_TIMEOUT ?= 3600

.PHONY: deps build test bench soak run cluster clean

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

# The sync server in dev mode on 127.0.0.1:$(PORT), data in .build/run-data. It prints
# the dev token; connect y-websocket clients to ws://127.0.0.1:$(PORT)/v1/sync/<doc>?token=<token>.
PORT ?= 8787
run: deps
	swift build --product accord
	@echo
	@echo "Starting accord serve --dev on 127.0.0.1:$(PORT) (Ctrl-C stops it after flushing)."
	@echo "Connect: ws://127.0.0.1:$(PORT)/v1/sync/<document>?token=<dev token>"
	@echo "REST:    curl -H 'Authorization: Bearer <dev token>' http://127.0.0.1:$(PORT)/v1/documents/<document>"
	@echo
	"$$(swift build --show-bin-path)/accord" serve --dev --host 127.0.0.1 --port $(PORT) --data .build/run-data

# Two `accord serve --cluster` nodes (ports $(PORT) and $(PORT)+1) on a throwaway
# PostgreSQL, with one printed dev token for both; Ctrl-C stops them and removes the
# database. NODES=3 for three.
NODES ?= 2
cluster: deps
	swift build --product accord
	@bash scripts/cluster.sh "$$(swift build --show-bin-path)/accord" $(PORT) $(NODES)

clean:
	swift package clean
	rm -rf .build/bench
