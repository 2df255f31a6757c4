#!/usr/bin/env bash
# Build and run the Swift test suite with the reference engines available.
#   ACCORD_PYTHON  python of .venv (pycrdt, loro) used by differential tests
#   ACCORD_SHARED  ../shared (traces, golden vectors)
#   ACCORD_POSTGRES_URL  a throwaway PostgreSQL cluster started here (scripts/postgres.sh)
# Extra arguments are passed to `swift test` (e.g. --filter Foo).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

export ACCORD_PYTHON="$ROOT/.venv/bin/python"
export ACCORD_SHARED="$ROOT/../shared"

if [[ ! -x "$ACCORD_PYTHON" ]]; then
    echo "test.sh: $ACCORD_PYTHON missing; run 'make deps' (scripts/install-deps.sh) first" >&2
    exit 1
fi
if [[ ! -d "$ACCORD_SHARED" ]]; then
    echo "test.sh: warning: $ACCORD_SHARED not found; tests that need shared data will fail or skip" >&2
fi

swift build --build-tests

# A throwaway PostgreSQL cluster for the PostgreSQL adapter and cluster tests
# (scripts/postgres.sh; removed on exit). If it cannot start, the tests that need it
# fail and say so; nothing is skipped.
PG_DIR="$(mktemp -d -t accord-pg.XXXXXX)"
trap 'bash "$ROOT/scripts/postgres.sh" stop "$PG_DIR" >/dev/null 2>&1 || true' EXIT
if ACCORD_POSTGRES_URL="$(bash scripts/postgres.sh start "$PG_DIR")"; then
    export ACCORD_POSTGRES_URL
else
    echo "test.sh: PostgreSQL did not start (reason above); the PostgreSQL tests will fail" >&2
fi

# The example app (its own package, Accord by path): AccordCodegenPlugin generates its
# models during the build, and the program checks what it saves, queries, aggregates
# and traverses on a temporary SQLite store, exiting non-zero on any mismatch.
# ACCORD_SKIP_EXAMPLES=1 skips it (e.g. when iterating on one test with --filter).
if [[ "${ACCORD_SKIP_EXAMPLES:-0}" != "1" ]]; then
    started=$SECONDS
    swift build --package-path Examples/TasksApp
    echo "test.sh: Examples/TasksApp built in $((SECONDS - started))s"
    "$(swift build --package-path Examples/TasksApp --show-bin-path)/TasksApp"
fi

# Tests start subprocesses (the pycrdt peer), so run serially. Last, so the test
# runner's summary is the run's closing line.
swift test --skip-build --no-parallel "$@"

