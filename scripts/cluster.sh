#!/usr/bin/env bash
# `make cluster`: a throwaway PostgreSQL (scripts/postgres.sh) and NODES `accord serve
# --cluster` nodes on 127.0.0.1, ports PORT, PORT+1, ..., sharing one dev secret, so the
# printed token works on every node. Ctrl-C stops the nodes (each flushes) and removes
# the PostgreSQL cluster; nothing is left behind.
#   scripts/cluster.sh ACCORD_BINARY [PORT] [NODES]
set -euo pipefail

accord="${1:?usage: cluster.sh ACCORD_BINARY [PORT] [NODES]}"
port="${2:-8787}"
nodes="${3:-2}"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d -t accord-cluster.XXXXXX)"
# PostgreSQL runs as its own user when we are root: it must reach its directory in here.
chmod 755 "$work"
pids=()

cleanup() {
    trap - INT TERM EXIT
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    bash "$here/postgres.sh" stop "$work/postgres" || true
    rm -rf "$work"
    echo "cluster stopped, PostgreSQL removed"
}
trap cleanup INT TERM EXIT

url="$(bash "$here/postgres.sh" start "$work/postgres")"
echo "PostgreSQL: $url"
for ((i = 0; i < nodes; i++)); do
    data="$work/node$i"
    mkdir -m 700 -p "$data"
    # One secret for every node: the first node's dev secret, copied before the others start.
    [[ $i -gt 0 ]] && cp "$work/node0/dev.secret" "$data/dev.secret"
    "$accord" serve --dev --host 127.0.0.1 --port $((port + i)) --data "$data" \
        --postgres "$url" --cluster >"$data/stdout" 2>"$data/stderr" &
    pids+=($!)
    for _ in $(seq 1 300); do
        grep -q '^listening ' "$data/stdout" 2>/dev/null && break
        kill -0 "${pids[-1]}" 2>/dev/null || { cat "$data/stderr" >&2; exit 1; }
        sleep 0.1
    done
    grep -q '^listening ' "$data/stdout" || { cat "$data/stderr" >&2; echo "node $i did not start" >&2; exit 1; }
done
token="$(sed -n 's/^dev token: //p' "$work/node0/stdout")"
echo
echo "dev token: $token"
for ((i = 0; i < nodes; i++)); do
    echo "node $i: ws://127.0.0.1:$((port + i))/v1/sync/<document>?token=<dev token>   (log: $work/node$i/stderr)"
done
echo "Edits made through one node reach the clients of the others. Ctrl-C stops everything."
wait
