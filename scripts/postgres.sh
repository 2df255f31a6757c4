#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests and `make cluster`, in a directory of its own.
#   scripts/postgres.sh start DIR   initdb into DIR (if empty), start on a free port of
#                                   127.0.0.1, print the connection URL on stdout
#   scripts/postgres.sh stop DIR    stop it and remove DIR
# Uses Debian's server binaries (/usr/lib/postgresql/<version>/bin) or initdb on PATH.
# PostgreSQL refuses to run as root; as root the server runs as the `postgres` user
# (created by Debian's postgresql package).
set -euo pipefail

die() { echo "postgres.sh: $*" >&2; exit 1; }

bindir() {
    if command -v initdb >/dev/null 2>&1; then dirname "$(command -v initdb)"; return; fi
    local found
    found="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
    [[ -n "$found" && -x "$found/initdb" ]] || die "initdb not found (install Debian's postgresql package: make deps)"
    echo "$found"
}

as_owner() {
    if [[ $(id -u) -eq 0 ]]; then
        getent passwd postgres >/dev/null || die "running as root needs the postgres user (Debian's postgresql package creates it)"
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

cmd="${1:-}"; dir="${2:-}"
[[ -n "$cmd" && -n "$dir" ]] || die "usage: postgres.sh start|stop DIR"
BIN="$(bindir)"

case "$cmd" in
start)
    mkdir -p "$dir"
    [[ $(id -u) -eq 0 ]] && chown postgres "$dir"
    if [[ ! -f "$dir/data/PG_VERSION" ]]; then
        as_owner "$BIN/initdb" -D "$dir/data" -U accord --auth=trust -E UTF8 --no-locale --no-sync >"$dir/initdb.log" 2>&1 \
            || { cat "$dir/initdb.log" >&2; die "initdb failed"; }
    fi
    port="$(free_port)"
    # fsync stays on: the adapter's durability is part of what the tests check.
    if ! as_owner "$BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start \
        -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories='$dir' -c max_connections=300" >/dev/null; then
        cat "$dir/server.log" >&2 || true
        die "PostgreSQL did not start (log above)"
    fi
    echo "postgres://accord@127.0.0.1:$port/postgres"
    ;;
stop)
    if [[ -f "$dir/data/postmaster.pid" ]]; then
        as_owner "$BIN/pg_ctl" -D "$dir/data" -m fast -w -t 60 stop >/dev/null || true
    fi
    rm -rf "$dir"
    ;;
*)
    die "unknown command $cmd (start|stop)"
    ;;
esac
