#!/usr/bin/env python3
"""pycrdt-websocket peer that watches for one record written elsewhere (records over REST).

Connects to --url (ws://host:port/v1/sync/<doc>?token=...) like scripts/pycrdt_ws_client.py,
prints the line "synced" once the initial sync is done, then waits until the root map
--model (the records layout: one Y.Map per model, keyed by record id) holds the record
--id as a map, prints one JSON line {"record": {field: value}} and exits 0. A string-set
field (a nested map member -> true) prints as its sorted members.

Exits 1 on --timeout or a failed connection.
"""

from __future__ import annotations

import argparse
import json
import sys
from urllib.parse import urlsplit

import anyio
from httpx_ws import aconnect_ws
from pycrdt import Doc, Map, Provider
from pycrdt.websocket.websocket import HttpxWebsocket


def plain(value):
    if isinstance(value, Map):
        return sorted(key for key, member in value.items() if member is True)
    return value


async def run(args: argparse.Namespace) -> dict:
    doc = Doc()
    model = doc.get(args.model, type=Map)
    changed = [anyio.Event()]
    model.observe_deep(lambda _events: changed[0].set())
    url = args.url.replace("ws://", "http://", 1)
    async with aconnect_ws(url, keepalive_ping_interval_seconds=None) as websocket:
        async with Provider(doc, HttpxWebsocket(websocket, urlsplit(args.url).path)) as provider:
            await provider.synced.wait()
            print("synced", flush=True)
            while not isinstance(model.get(args.id), Map):
                changed[0] = anyio.Event()
                if isinstance(model.get(args.id), Map):
                    break
                await changed[0].wait()
            record = model.get(args.id)
            return {"record": {key: plain(value) for key, value in record.items()}}


async def main(args: argparse.Namespace) -> int:
    try:
        with anyio.fail_after(args.timeout):
            result = await run(args)
    except BaseException as error:
        if isinstance(error, (KeyboardInterrupt, SystemExit)):
            raise
        print(f"pycrdt_ws_records_watch: {error!r}", file=sys.stderr)
        return 1
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--id", required=True)
    parser.add_argument("--timeout", type=float, default=30)
    sys.exit(anyio.run(main, parser.parse_args()))
