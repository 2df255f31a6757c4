#!/usr/bin/env bash
# Measures blob upload and download through `accord serve` with curl, beside curl
# against trivial local servers in the same run (python's http.server for downloads, a
# python PUT sink that reads and drops the body for uploads), on 127.0.0.1.
#   scripts/bench-blobs-curl.sh [path/to/accord] [megabytes] [runs]
# Build first: swift build -c release --product accord
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ACCORD="${1:-$ROOT/.build/release/accord}"
MB="${2:-100}"
RUNS="${3:-3}"
WORK="$(mktemp -d)"
cleanup() { kill "${SERVE_PID:-}" "${HTTP_PID:-}" "${SINK_PID:-}" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT


"$ACCORD" serve --dev --port 0 --data "$WORK/data" > "$WORK/serve.out" 2>/dev/null &
SERVE_PID=$!
for _ in $(seq 100); do grep -q '^listening' "$WORK/serve.out" 2>/dev/null && break; sleep 0.1; done
PORT=$(grep '^listening' "$WORK/serve.out" | cut -d' ' -f2)
TOKEN=$(grep '^dev token' "$WORK/serve.out" | cut -d' ' -f3)
curl -s -o /dev/null -X POST -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
    -d '{"id":"bench"}' "http://127.0.0.1:$PORT/v1/documents"

mkdir -p "$WORK/www"
(cd "$WORK/www" && exec python3 -m http.server 0 --bind 127.0.0.1 > "$WORK/http.out" 2>&1) &
HTTP_PID=$!
cat > "$WORK/sink.py" <<'PY'
import http.server, sys
class Sink(http.server.BaseHTTPRequestHandler):
    def do_PUT(self):
        left = int(self.headers.get("Content-Length", "0"))
        while left > 0:
            chunk = self.rfile.read(min(left, 1 << 20))
            if not chunk: break
            left -= len(chunk)
        self.send_response(201); self.send_header("Content-Length", "0"); self.end_headers()
    def log_message(self, *args): pass
server = http.server.HTTPServer(("127.0.0.1", 0), Sink)
print(server.server_address[1], flush=True)
server.serve_forever()
PY
python3 "$WORK/sink.py" > "$WORK/sink.out" &
SINK_PID=$!
sleep 1
HTTP_PORT=$(grep -o 'port [0-9]*' "$WORK/http.out" | head -1 | cut -d' ' -f2)
SINK_PORT=$(head -1 "$WORK/sink.out")

mbps() { python3 -c "print(f'{$1 / 1048576:.0f}')"; }
for run in $(seq "$RUNS"); do
    # New content each run, so every upload stores new bytes (stored content answers 200 at once).
    head -c $((MB * 1024 * 1024)) /dev/urandom > "$WORK/www/blob.bin"
    HASH=$(sha256sum "$WORK/www/blob.bin" | cut -d' ' -f1)
    BLOB="http://127.0.0.1:$PORT/v1/documents/bench/blobs/$HASH"
    UP=$(curl -s -o /dev/null -w '%{http_code} %{speed_upload}' -T "$WORK/www/blob.bin" \
        -H "Authorization: Bearer $TOKEN" "$BLOB")
    DOWN=$(curl -s -o "$WORK/down.bin" -w '%{http_code} %{speed_download}' -H "Authorization: Bearer $TOKEN" "$BLOB")
    SINK=$(curl -s -o /dev/null -w '%{speed_upload}' -T "$WORK/www/blob.bin" "http://127.0.0.1:$SINK_PORT/blob.bin")
    PLAIN=$(curl -s -o "$WORK/plain.bin" -w '%{speed_download}' "http://127.0.0.1:$HTTP_PORT/blob.bin")
    cmp -s "$WORK/down.bin" "$WORK/www/blob.bin" && SAME="byte-identical" || SAME="DIFFERENT"
    echo "run $run: upload_${MB}MB accord $(mbps "${UP#* }") MB/s (${UP% *}) | python PUT sink $(mbps "$SINK") MB/s;" \
        "download_${MB}MB accord $(mbps "${DOWN#* }") MB/s (${DOWN% *}, $SAME) | python http.server $(mbps "$PLAIN") MB/s"
done
