#!/usr/bin/env bash
# Benchmark Accord against the reference engines (pycrdt = Yrs, loro) on the
# sequential editing traces in ../shared/traces.
#
# Output: JSON lines in .build/bench/results.jsonl, Markdown tables on stdout
# (also saved as .build/bench/results.md).
#
# Environment knobs:
#   BENCH_TRACES    traces to run (default: "automerge-paper seph-blog1 sveltecomponent")
#   BENCH_ENGINES   engines to run (default: "accord pycrdt loro")
#   PYCRDT_SAMPLES  replay samples for pycrdt (default 3; its replays take ~10 s each)
#   LORO_SAMPLES    replay samples for loro (default 5)
#   BENCH_STORE     1 (default) also runs `accord-bench store` on automerge-paper in
#                   .build/bench/store (the document and blob stores; Accord only), and
#                   its document measurements again on a throwaway PostgreSQL cluster
#   BENCH_RECORDS   1 (default) also runs `accord-bench records`: the records layer (AccordRecords
#                   through an offline AccordClient) on a 100,000-task document beside a
#                   hand-written SQLite schema, in .build/bench/records (about a minute);
#                   BENCH_RECORDS_ARGS adds options (e.g. --quick)
#   BENCH_SERVER    1 (default) also runs `accord-bench server --target both`: accord serve
#                   and the pycrdt-websocket server under the same load (a few minutes);
#                   BENCH_SERVER_ARGS adds options (e.g. --quick)
#   BENCH_TOML      1 (default) also runs `accord-bench toml`: AccordTOML and Python's
#                   tomllib parsing the same two 1 MB documents (models.toml-like and
#                   mixed), in .build/bench/toml
#   BENCH_CLIENT    1 (default) also runs `accord-bench client`: AccordClient against
#                   accord serve (edit-to-remote latency with 2 and 50 clients, opening a
#                   cached document, catching up 10,000 offline edits; about a minute);
#                   BENCH_CLIENT_ARGS adds options (e.g. --quick)
#   BENCH_DATABASE  1 (default) also runs `accord-bench database`: the JSON document database
#                   beside a plain SQLite JSON table (BENCH_DATABASE_ARGS, e.g. --quick)
#   BENCH_COLLAB    1 (default) also runs `accord-bench collab`: undo/redo, relative
#                   positions, counters
#   BENCH_DIRECTORY 1 (default) also runs `accord-bench directory`: the server's listings and
#                   alias race
#   BENCH_BLOBS     1 (default) also runs `accord-bench blobs`: 100 MB up and down through
#                   accord serve with AccordClient beside curl (5 samples each, medians and
#                   spread; --samples N in BENCH_BLOBS_ARGS), 1,000 small blobs end to end,
#                   cache-hit reads (BENCH_BLOBS_ARGS, e.g. --quick)
#   BENCH_INGEST    1 (default) also runs `accord-bench ingest`: ingest, records/bulk and
#                   export/import bundles against accord serve (several minutes;
#                   BENCH_INGEST_ARGS, e.g. --records 100000)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
SHARED="$ROOT/../shared"
PY="$ROOT/.venv/bin/python"
OUT="$ROOT/.build/bench"
TRACES=(${BENCH_TRACES:-automerge-paper seph-blog1 sveltecomponent})
ENGINES=" ${BENCH_ENGINES:-accord pycrdt loro} "

die() { echo "bench.sh: error: $*" >&2; exit 1; }
has() { [[ "$ENGINES" == *" $1 "* ]]; }

[[ -x "$PY" ]] || die "$PY missing; run 'make deps' first"
[[ -d "$SHARED/traces" ]] || die "$SHARED/traces not found"
for t in "${TRACES[@]}"; do
    [[ -f "$SHARED/traces/$t.json.gz" ]] || die "trace $SHARED/traces/$t.json.gz not found"
done

if has accord; then
    echo "bench.sh: swift build -c release --product accord-bench" >&2
    swift build -c release --product accord-bench >&2 \
        || die "could not build the accord-bench product (does Package.swift define it yet?)"
    BIN="$(swift build -c release --show-bin-path)/accord-bench"
    [[ -x "$BIN" ]] || die "accord-bench binary not found at $BIN"
fi

mkdir -p "$OUT"
RESULTS="$OUT/results.jsonl"
: >"$RESULTS"

run() {  # run ENGINE TRACE CMD...
    local engine="$1" trace="$2"; shift 2
    echo "bench.sh: $engine on $trace" >&2
    "$@" | "$PY" "$ROOT/scripts/bench_table.py" annotate --engine "$engine" --trace "$trace" >>"$RESULTS" \
        || die "$engine failed on $trace"
}

for t in "${TRACES[@]}"; do
    f="$SHARED/traces/$t.json.gz"
    if has accord; then run accord "$t" "$BIN" trace "$f"; fi
    if has pycrdt; then
        run pycrdt "$t" "$PY" scripts/bench_reference.py --engine pycrdt "$f" --samples "${PYCRDT_SAMPLES:-3}"
    fi
    if has loro; then
        run loro "$t" "$PY" scripts/bench_reference.py --engine loro "$f" --samples "${LORO_SAMPLES:-5}"
    fi
done

if has accord && [[ "${BENCH_STORE:-1}" == 1 ]]; then
    mkdir -p "$OUT/store"
    # The same document measurements on PostgreSQL (a throwaway cluster, removed after).
    PG_DIR="$(mktemp -d -t accord-bench-pg.XXXXXX)"
    postgres_args=()
    if PG_URL="$(bash scripts/postgres.sh start "$PG_DIR")"; then
        postgres_args=(--postgres "$PG_URL")
    else
        echo "bench.sh: PostgreSQL did not start; store measurements on SQLite only" >&2
    fi
    run accord "store:automerge-paper" "$BIN" store "$SHARED/traces/automerge-paper.json.gz" --dir "$OUT/store" \
        "${postgres_args[@]}"
    bash scripts/postgres.sh stop "$PG_DIR" >/dev/null 2>&1 || true
fi

"$PY" scripts/bench_table.py table "$RESULTS" | tee "$OUT/results.md"

if has accord && [[ "${BENCH_RECORDS:-1}" == 1 ]]; then
    mkdir -p "$OUT/records"
    echo "bench.sh: accord-bench records ${BENCH_RECORDS_ARGS:-}" >&2
    "$BIN" records --dir "$OUT/records" ${BENCH_RECORDS_ARGS:-} >"$OUT/records.jsonl" || die "accord-bench records failed"
    "$PY" scripts/bench_table.py records-table "$OUT/records.jsonl" | tee -a "$OUT/results.md"
fi

if has accord && [[ "${BENCH_TOML:-1}" == 1 ]]; then
    echo "bench.sh: accord-bench toml (AccordTOML and tomllib on the same files)" >&2
    "$BIN" toml --dir "$OUT/toml" --python "$PY" >"$OUT/toml.jsonl" || die "accord-bench toml failed"
    {
        echo
        echo "TOML parse (MB/s; speedup = tomllib median / AccordTOML median):"
        cat "$OUT/toml.jsonl"
    } | tee -a "$OUT/results.md"
fi

if has accord && [[ "${BENCH_SERVER:-1}" == 1 ]]; then
    echo "bench.sh: swift build -c release --product accord (the server under test)" >&2
    swift build -c release --product accord >&2 || die "could not build accord"
    echo "bench.sh: accord-bench server --target both ${BENCH_SERVER_ARGS:-}" >&2
    "$BIN" server --target both ${BENCH_SERVER_ARGS:-} >"$OUT/server.jsonl" || die "accord-bench server failed"
    "$PY" scripts/bench_table.py server-table "$OUT/server.jsonl" | tee -a "$OUT/results.md"
fi

if has accord && [[ "${BENCH_CLIENT:-1}" == 1 ]]; then
    echo "bench.sh: swift build -c release --product accord (the server the clients sync with)" >&2
    swift build -c release --product accord >&2 || die "could not build accord"
    echo "bench.sh: accord-bench client ${BENCH_CLIENT_ARGS:-}" >&2
    "$BIN" client --trace "$SHARED/traces/automerge-paper.json.gz" ${BENCH_CLIENT_ARGS:-} >"$OUT/client.jsonl" \
        || die "accord-bench client failed"
    "$PY" scripts/bench_table.py client-table "$OUT/client.jsonl" | tee -a "$OUT/results.md"
fi
# The newer benchmarks, each as one table of its JSON lines.
lines_bench() { # flag name title args...
    local flag="$1" name="$2" title="$3"
    shift 3
    if has accord && [[ "${!flag:-1}" == 1 ]]; then
        echo "bench.sh: accord-bench $name $*" >&2
        "$BIN" "$name" "$@" >"$OUT/$name.jsonl" || die "accord-bench $name failed"
        "$PY" scripts/bench_table.py lines-table "$title" "$OUT/$name.jsonl" | tee -a "$OUT/results.md"
    fi
}
mkdir -p "$OUT/database" "$OUT/directory"
lines_bench BENCH_DATABASE database "database (JSON documents vs a plain SQLite JSON table)" \
    --dir "$OUT/database" ${BENCH_DATABASE_ARGS:-}
lines_bench BENCH_COLLAB collab "collab (undo/redo, relative positions, counters)" \
    --trace "$SHARED/traces/automerge-paper.json.gz"
lines_bench BENCH_DIRECTORY directory "directory (listings and aliases)" --dir "$OUT/directory"
if has accord && [[ "${BENCH_INGEST:-1}" == 1 ]]; then
    swift build -c release --product accord >&2 || die "could not build accord"
fi
lines_bench BENCH_INGEST ingest "ingest (records into accord serve; export/import bundles)" ${BENCH_INGEST_ARGS:-}
if has accord && [[ "${BENCH_BLOBS:-1}" == 1 ]]; then
    swift build -c release --product accord >&2 || die "could not build accord"
fi
lines_bench BENCH_BLOBS blobs "blobs (AccordClient through accord serve beside curl)" ${BENCH_BLOBS_ARGS:-}

echo "bench.sh: results in ${RESULTS#$ROOT/} and ${OUT#$ROOT/}/results.md" >&2
