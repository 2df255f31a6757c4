#!/usr/bin/env bash
# Idempotent dependency installer for Accord's test/bench tooling.
#  - apt packages (only if missing; `apt-get update` only when something is missing)
#  - .venv (Python virtualenv) with the reference engines and the pycrdt-websocket
#    reference sync server/client from scripts/requirements.txt,
#    reinstalled only when requirements.txt changes (stamp: .venv/.requirements.sha).
# Quiet on success when nothing needs doing.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

VENV="$ROOT/.venv"
REQ="$ROOT/scripts/requirements.txt"
STAMP="$VENV/.requirements.sha"
# openssl: the CLI the TLS tests make their throwaway certificates with.
# chromium, chromium-driver: the dashboard's browser tests (scripts/dashboard_browser_check.py).
# libssl-dev: OpenSSL for the server's TLS sessions (COpenSSL).
APT_PACKAGES=(python3-venv pkg-config libsqlite3-dev libsodium-dev libwebsockets-dev zlib1g-dev libpq-dev libssl-dev postgresql openssl chromium chromium-driver)

die() { echo "install-deps: error: $*" >&2; exit 1; }
say() { echo "install-deps: $*" >&2; }

# ---------------------------------------------------------------------------
# 1. apt packages
# ---------------------------------------------------------------------------
missing=()
for p in "${APT_PACKAGES[@]}"; do
    if ! dpkg -s "$p" >/dev/null 2>&1 || ! dpkg -s "$p" 2>/dev/null | grep -q '^Status: install ok installed'; then
        missing+=("$p")
    fi
done
if ((${#missing[@]})); then
    command -v apt-get >/dev/null 2>&1 || die "missing packages (${missing[*]}) and no apt-get"
    SUDO=""
    if [[ $(id -u) -ne 0 ]]; then
        command -v sudo >/dev/null 2>&1 || die "need root (or sudo) to install: ${missing[*]}"
        SUDO="sudo"
    fi
    say "installing apt packages: ${missing[*]}"
    log="$(mktemp)"
    if ! { $SUDO apt-get update -qq && \
           DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
        cat "$log" >&2; rm -f "$log"
        die "apt-get install ${missing[*]} failed"
    fi
    rm -f "$log"
fi

# ---------------------------------------------------------------------------
# 2. virtualenv
# ---------------------------------------------------------------------------
venv_ok() { [[ -x "$VENV/bin/python" ]] && "$VENV/bin/python" -c 'import sys, pip' >/dev/null 2>&1; }

if ! venv_ok; then
    [[ -e "$VENV" ]] && { say "removing broken $VENV"; rm -rf "$VENV"; }
    # Prefer Debian's python3 (the one python3-venv belongs to); fall back to whatever
    # python3 is on PATH (e.g. a pyenv shim) if that fails.
    candidates=()
    [[ -x /usr/bin/python3 ]] && candidates+=(/usr/bin/python3)
    if command -v python3 >/dev/null 2>&1; then
        p="$(command -v python3)"
        [[ "$p" != /usr/bin/python3 ]] && candidates+=("$p")
    fi
    ((${#candidates[@]})) || die "no python3 found"
    created=""
    errs=""
    for py in "${candidates[@]}"; do
        if out="$("$py" -m venv "$VENV" 2>&1)" && venv_ok; then
            created="$py"; break
        fi
        errs+=$'\n'"  $py -m venv: ${out:-venv created but has no working pip}"
        rm -rf "$VENV"
    done
    [[ -n "$created" ]] || die "could not create $VENV:$errs"
    say "created .venv with $created ($("$VENV/bin/python" -V 2>&1))"
fi

# ---------------------------------------------------------------------------
# 3. Python requirements (only when requirements.txt changed)
# ---------------------------------------------------------------------------
[[ -f "$REQ" ]] || die "missing $REQ"
want="$(sha256sum "$REQ" | cut -d' ' -f1)"
have="$(cat "$STAMP" 2>/dev/null || true)"
if [[ "$want" != "$have" ]]; then
    say "pip install -r scripts/requirements.txt"
    log="$(mktemp)"
    if ! PIP_DISABLE_PIP_VERSION_CHECK=1 "$VENV/bin/python" -m pip install -q --no-input -r "$REQ" >"$log" 2>&1; then
        cat "$log" >&2; rm -f "$log"
        die "pip install failed"
    fi
    rm -f "$log"
    "$VENV/bin/python" -c 'import pycrdt, loro, pycrdt.websocket, pycrdt.store, hypercorn, httpx_ws' || die "installed packages do not import"
    echo "$want" >"$STAMP"
fi
