#!/usr/bin/env python3
"""Measures what the dashboard costs a loaded server, and how fast its table answers.

Starts `accord serve --dev` (the binary given), connects --clients y-websocket clients
over --documents documents (the `accord-bench server` many_documents shape: every client
appends to its document's text once a second), then runs phases of --seconds
each, --rounds times: without a dashboard, then with one (an emulated page: the live
WebSocket via a ticket, and the documents table fetched on every `changed` notice, one
request at a time, as the page does), and a last phase without. It reads the server's
CPU time from /proc/<pid>/stat around each phase and prints one JSON line:

  {"clients", "documents", "cpu_percent": {"without": [...], "with_dashboard": [...]},
   "dashboard_cpu_percent", "table_ms": {"count", "p50", "p99", "max"},
   "notices", "samples", "loadavg"}

`dashboard_cpu_percent` is the mean of the with-dashboard phases less the mean of the
others: the machine's other load moves it, so report it with `loadavg`.

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
    """The page's traffic: a ticket, the live socket, a table fetch per notice."""

    def __init__(self, base: str, token: str):
        super().__init__(daemon=True)
        self.base, self.token = base, token
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
                start = time.monotonic()
                self.call("GET", "/v1/admin/dashboard/documents?sort=updated&order=desc&pageSize=50")
                self.latencies.append((time.monotonic() - start) * 1000)
        ws.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--accord", required=True)
    parser.add_argument("--clients", type=int, default=1000)
    parser.add_argument("--documents", type=int, default=100)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

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

        def phase(dashboard: Dashboard | None) -> float:
            before, start = cpu_seconds(server.pid), time.monotonic()
            if dashboard:
                dashboard.start()
            time.sleep(args.seconds)
            if dashboard:
                dashboard.stop.set()
                dashboard.join(5)
            return 100 * (cpu_seconds(server.pid) - before) / (time.monotonic() - start)

        # Alternating phases, so the machine's other load (builds, other sessions)
        # falls on both sides alike; the difference of the means is the estimate.
        without: list[float] = []
        with_dashboard: list[float] = []
        dashboards: list[Dashboard] = []
        for _ in range(args.rounds):
            without.append(phase(None))
            dashboards.append(Dashboard(base, token))
            with_dashboard.append(phase(dashboards[-1]))
        without.append(phase(None))
        stop.set()
        editor.join(5)
        latencies = sorted(x for d in dashboards for x in d.latencies)

        def pick(q: float) -> float | None:
            return round(latencies[min(len(latencies) - 1, int(q * len(latencies)))], 1) if latencies else None

        def mean(values: list[float]) -> float:
            return sum(values) / len(values)

        print(json.dumps({
            "clients": args.clients, "documents": args.documents, "seconds_per_phase": args.seconds, "rounds": args.rounds,
            "cpu_percent": {"without": [round(x, 1) for x in without], "with_dashboard": [round(x, 1) for x in with_dashboard]},
            "dashboard_cpu_percent": round(mean(with_dashboard) - mean(without), 1),
            "table_ms": {"count": len(latencies), "p50": pick(0.5), "p99": pick(0.99), "max": round(latencies[-1], 1) if latencies else None},
            "notices": sum(d.notices for d in dashboards), "samples": sum(d.samples for d in dashboards), "loadavg": os.getloadavg(),
        }))
    finally:
        server.terminate()
        server.wait(30)
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
