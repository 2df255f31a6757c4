#!/usr/bin/env python3
"""Measures what the dashboard costs a loaded server, and how fast its table answers.

Starts `accord serve --dev` (the binary given), connects --clients y-websocket clients
over --documents documents (the `accord-bench server` many_documents shape: every client
appends to its document's text once a second), then runs phases of --seconds
each, --rounds times: without a dashboard, then with one, and a last phase without.
"With one" is --pages emulated pages, each holding the live WebSocket (via a ticket)
and refetching on every `changed` notice, one request at a time, as the page does:
`table` fetches the documents table, `document` the page of one hot document (and
again after `contentRetryMilliseconds` when its tree was not current). Around each
phase it reads the server's CPU time (/proc/<pid>/stat) and the dashboard's own,
`accord_dashboard_cpu_seconds_total` from /metrics (thread CPU time counted around
every piece of dashboard work in the server), and prints one JSON line:

  {"clients", "documents", "pages",
   "cpu_percent": {"without": [...], "with_dashboard": [...]},     # server, % of a core
   "dashboard_cpu": {"with_dashboard": {"share_of_server_percent", "percent_of_core", "by_part"},
                     "without": {...}},
   "target": {"share_of_server_percent": 2, "met": bool},
   "table_ms": {...}, "document_ms": {...}, "notices", "samples", "loadavg": {"before", "after"}}

`share_of_server_percent` (dashboard CPU / server CPU over the with-dashboard phases)
is the issue's "the dashboard costs the server under 2% CPU"; `percent_of_core` is the
same time against wall time. Both are counted, not differences of noisy totals, so the
machine's other load barely moves them. Not counted: the network thread's parsing of
the page's requests and writing of its responses and live messages.

  python scripts/dashboard_load_check.py --accord .build/release/accord
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.request

import websocket
from pycrdt import Doc, Text, create_sync_message, create_update_message


def dashboard_cpu(base: str) -> dict[str, float]:
    """accord_dashboard_cpu_seconds_total by part, from /metrics."""
    with urllib.request.urlopen(base + "/metrics", timeout=30) as response:
        text = response.read().decode()
    parts: dict[str, float] = {}
    prefix = 'accord_dashboard_cpu_seconds_total{part="'
    for line in text.splitlines():
        if line.startswith(prefix):
            name, value = line[len(prefix):].split('"} ')
            parts[name] = float(value)
    if not parts:
        raise SystemExit("this accord has no accord_dashboard_cpu_seconds_total in /metrics")
    return parts


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Client:
    def __init__(self, url: str):
        self.ws = websocket.create_connection(url, timeout=10)
        self.doc = Doc()
        self.text = self.doc.get("text", type=Text)
        self.doc.observe(lambda event: self.ws.send_binary(create_update_message(event.update)))
        self.ws.send_binary(create_sync_message(self.doc))

    def edit(self) -> None:
        self.text += "x"


class Dashboard(threading.Thread):
    """One page's traffic: a ticket, the live socket, a refetch per notice."""

    def __init__(self, base: str, token: str, view: str, document: str):
        super().__init__(daemon=True)
        self.base, self.token, self.view, self.document = base, token, view, document
        self.stop = threading.Event()
        self.latencies: list[float] = []
        self.notices = 0
        self.samples = 0

    def call(self, method: str, path: str):
        request = urllib.request.Request(self.base + path, method=method)
        request.add_header("Authorization", f"Bearer {self.token}")
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())

    def run(self) -> None:
        ticket = self.call("POST", "/v1/admin/dashboard/ticket")["result"]["ticket"]
        ws = websocket.create_connection(self.base.replace("http://", "ws://") + f"/v1/admin/dashboard/live?ticket={ticket}")
        ws.settimeout(0.5)
        while not self.stop.is_set():
            try:
                message = json.loads(ws.recv())
            except websocket.WebSocketTimeoutException:
                continue
            if message["type"] == "sample":
                self.samples += 1
            elif message["type"] == "changed":
                self.notices += 1
                if self.view == "table":
                    start = time.monotonic()
                    self.call("GET", "/v1/admin/dashboard/documents?sort=updated&order=desc&pageSize=50")
                    self.latencies.append((time.monotonic() - start) * 1000)
                elif message["activity"] or self.document in message["documents"]:
                    start = time.monotonic()
                    page = self.call("GET", f"/v1/admin/dashboard/document?id={self.document}")["result"]
                    self.latencies.append((time.monotonic() - start) * 1000)
                    if not page["contentCurrent"]:
                        # As the page does: ask again once the server will encode anew.
                        time.sleep(page["contentRetryMilliseconds"] / 1000)
                        start = time.monotonic()
                        self.call("GET", f"/v1/admin/dashboard/document?id={self.document}")
                        self.latencies.append((time.monotonic() - start) * 1000)
        ws.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--accord", required=True)
    parser.add_argument("--clients", type=int, default=1000)
    parser.add_argument("--documents", type=int, default=100)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--pages", default="table,document",
                        help="the emulated pages open in each with-dashboard phase, comma-separated: table, document")
    parser.add_argument("--target-percent", type=float, default=2.0,
                        help="the issue's target: dashboard CPU as a share of the server's, in percent")
    args = parser.parse_args()
    pages = [p for p in args.pages.split(",") if p]
    if not pages or any(p not in ("table", "document") for p in pages):
        raise SystemExit("--pages is a comma-separated list of table and document")
    load_before = os.getloadavg()

    data = tempfile.mkdtemp(prefix="accord-dashboard-load-")
    server = subprocess.Popen(
        [args.accord, "serve", "--dev", "--port", "0", "--data", data, "--max-connections-per-address", "0",
         "--max-connections-per-user", "1000000", "--max-documents-per-user-per-hour", "1000000000"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    token, port = "", 0
    while not port:
        line = server.stdout.readline()
        if not line:
            raise SystemExit("accord serve did not start")
        if line.startswith("dev token: "):
            token = line.split(": ", 1)[1].strip()
        if line.startswith("listening "):
            port = int(line.split()[1])
    base = f"http://127.0.0.1:{port}"
    try:
        clients = [Client(f"ws://127.0.0.1:{port}/v1/sync/load-{i % args.documents}?token={token}")
                   for i in range(args.clients)]
        stop = threading.Event()

        def edit_loop() -> None:
            # Each client once a second, spread over the second.
            while not stop.is_set():
                started = time.monotonic()
                for index, client in enumerate(clients):
                    due = started + index / len(clients)
                    delay = due - time.monotonic()
                    if delay > 0:
                        time.sleep(delay)
                    client.edit()
                    if stop.is_set():
                        return

        editor = threading.Thread(target=edit_loop, daemon=True)
        editor.start()
        time.sleep(3)  # rooms loaded, traffic steady

        # Totals per kind of phase: wall seconds, server CPU seconds, dashboard CPU seconds by part.
        totals = {kind: {"wall": 0.0, "server": 0.0, "parts": {}} for kind in ("without", "with_dashboard")}

        def phase(opened: list[Dashboard]) -> float:
            parts_before = dashboard_cpu(base)
            before, start = cpu_seconds(server.pid), time.monotonic()
            for page in opened:
                page.start()
            time.sleep(args.seconds)
            for page in opened:
                page.stop.set()
            for page in opened:
                page.join(5)
            wall, used = time.monotonic() - start, cpu_seconds(server.pid) - before
            parts_after = dashboard_cpu(base)
            total = totals["with_dashboard" if opened else "without"]
            total["wall"] += wall
            total["server"] += used
            for name, value in parts_after.items():
                total["parts"][name] = total["parts"].get(name, 0.0) + value - parts_before.get(name, 0.0)
            return 100 * used / wall

        # Alternating phases, so the machine's other load (builds, other sessions)
        # falls on both sides alike.
        without: list[float] = []
        with_dashboard: list[float] = []
        dashboards: list[Dashboard] = []
        for _ in range(args.rounds):
            without.append(phase([]))
            opened = [Dashboard(base, token, view, "load-0") for view in pages]
            dashboards += opened
            with_dashboard.append(phase(opened))
        without.append(phase([]))
        stop.set()
        editor.join(5)

        def summary(values: list[float]) -> dict:
            values = sorted(values)

            def pick(q: float) -> float | None:
                return round(values[min(len(values) - 1, int(q * len(values)))], 1) if values else None

            return {"count": len(values), "p50": pick(0.5), "p99": pick(0.99), "max": round(values[-1], 1) if values else None}

        def cost(kind: str) -> dict:
            total = totals[kind]
            dashboard = sum(total["parts"].values())
            return {
                "share_of_server_percent": round(100 * dashboard / total["server"], 3) if total["server"] else None,
                "percent_of_core": round(100 * dashboard / total["wall"], 3),
                "seconds": round(dashboard, 4), "server_seconds": round(total["server"], 2),
                "by_part": {name: round(value, 4) for name, value in sorted(total["parts"].items())},
            }

        paged = cost("with_dashboard")
        print(json.dumps({
            "clients": args.clients, "documents": args.documents, "seconds_per_phase": args.seconds, "rounds": args.rounds,
            "pages": pages,
            "cpu_percent": {"without": [round(x, 1) for x in without], "with_dashboard": [round(x, 1) for x in with_dashboard]},
            "dashboard_cpu": {"with_dashboard": paged, "without": cost("without")},
            "target": {"share_of_server_percent": args.target_percent,
                       "met": paged["share_of_server_percent"] is not None and paged["share_of_server_percent"] < args.target_percent},
            "table_ms": summary([x for d in dashboards if d.view == "table" for x in d.latencies]),
            "document_ms": summary([x for d in dashboards if d.view == "document" for x in d.latencies]),
            "notices": sum(d.notices for d in dashboards), "samples": sum(d.samples for d in dashboards),
            "loadavg": {"before": load_before, "after": os.getloadavg()},
        }))
    finally:
        server.terminate()
        server.wait(30)
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
