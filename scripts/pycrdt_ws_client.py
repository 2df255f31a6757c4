#!/usr/bin/env python3
"""pycrdt-websocket reference client: one y-websocket peer for interop and load checks.

Connects to --url (ws://host:port/room[?query]; the query, e.g. ?token=..., is sent
unchanged) with httpx-ws, as the pycrdt-websocket documentation does, and syncs a Doc
through pycrdt's Provider (the WebsocketProvider of pycrdt-websocket < 0.16). Then it
inserts --edits strings "<name>-<i>;" at the end of the Text at root "text", one
transaction each with a short pause, waits until that text has --expect-length
characters (every client's edits arrived), prints one JSON line
{"text": ..., "length": ..., "foreign_types": [...]} and exits 0. "foreign_types" lists
the outer message types received outside y-protocols (0 sync, 1 awareness, 2 auth,
3 query awareness), in order of first arrival: a stock client cannot parse them.

For wss:// URLs, --cafile names a PEM file of the certificate authorities to trust
instead of the system's (a test's throwaway CA); the certificate is always verified.

Exits 1 with a message on stderr when --timeout seconds pass first, or the connection
fails or closes. Exits 2 for bad arguments.

Example, two clients through scripts/pycrdt_ws_server.py on port 8123 (each inserts
"a-0;a-1;a-2;" or "b-0;b-1;b-2;", 12 characters, so each waits for 24):
  python scripts/pycrdt_ws_client.py --url ws://127.0.0.1:8123/room --name a --edits 3 --expect-length 24 &
  python scripts/pycrdt_ws_client.py --url ws://127.0.0.1:8123/room --name b --edits 3 --expect-length 24
"""

from __future__ import annotations

import argparse
import json
import ssl
import sys
from urllib.parse import urlsplit

import anyio
import httpx
from httpx_ws import aconnect_ws
from pycrdt import Doc, Provider, Text
from pycrdt.websocket.websocket import HttpxWebsocket

EDIT_PAUSE = 0.02  # seconds between edits, so they travel as separate updates


class ClientFailure(Exception):
    pass


class RecordingWebsocket(HttpxWebsocket):
    """The channel pycrdt-websocket uses, noting each message's outer type first."""

    def __init__(self, websocket, path: str, foreign: list[int]):
        super().__init__(websocket, path)
        self._foreign = foreign

    async def recv(self) -> bytes:
        message = await super().recv()
        if message and message[0] > 3 and message[0] not in self._foreign:
            self._foreign.append(message[0])
        return message


def http_url(url: str) -> str:
    """httpx speaks http(s) URLs only; the upgrade request is the same. Path and query
    are kept byte for byte."""
    if url.startswith("ws://"):
        return "http://" + url[len("ws://"):]
    if url.startswith("wss://"):
        return "https://" + url[len("wss://"):]
    raise ClientFailure(f"not a ws:// or wss:// URL: {url}")


async def run(args: argparse.Namespace) -> dict:
    doc = Doc()
    text = doc.get("text", type=Text)
    grown = anyio.Event()
    changed = [grown]

    def on_change(_event) -> None:
        changed[0].set()

    text.observe(on_change)
    room = urlsplit(args.url).path
    foreign: list[int] = []
    verify = ssl.create_default_context(cafile=args.cafile) if args.cafile else True
    async with httpx.AsyncClient(verify=verify) as http, aconnect_ws(
        http_url(args.url), http, max_message_size_bytes=64 * 1024 * 1024, keepalive_ping_interval_seconds=None
    ) as websocket:
        async with Provider(doc, RecordingWebsocket(websocket, room, foreign)) as provider:
            await provider.synced.wait()
            for i in range(args.edits):
                with doc.transaction():
                    text += f"{args.name}-{i};"
                await anyio.sleep(EDIT_PAUSE)
            while len(str(text)) < args.expect_length:
                changed[0] = anyio.Event()
                if len(str(text)) >= args.expect_length:
                    break
                await changed[0].wait()
            content = str(text)
    if len(content) != args.expect_length:
        raise ClientFailure(f"text has {len(content)} characters, expected {args.expect_length}: {content!r}")
    return {"text": content, "length": len(content), "foreign_types": foreign}


async def main(args: argparse.Namespace) -> int:
    try:
        with anyio.fail_after(args.timeout):
            result = await run(args)
    except TimeoutError:
        print(f"pycrdt_ws_client {args.name}: timed out after {args.timeout} s", file=sys.stderr)
        return 1
    except ClientFailure as failure:
        print(f"pycrdt_ws_client {args.name}: {failure}", file=sys.stderr)
        return 1
    except BaseException as error:  # connection refused, closed, ExceptionGroup from the task groups
        if isinstance(error, (KeyboardInterrupt, SystemExit)):
            raise
        print(f"pycrdt_ws_client {args.name}: {describe(error)}", file=sys.stderr)
        return 1
    print(json.dumps(result), flush=True)
    return 0


def describe(error: BaseException) -> str:
    """The innermost causes of an exception group, which is what anyio raises."""
    if isinstance(error, BaseExceptionGroup):
        return "; ".join(describe(inner) for inner in error.exceptions)
    return f"{type(error).__name__}: {error}"


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", required=True, help="ws://host:port/room[?query]")
    parser.add_argument("--name", required=True, help="prefix of this client's edits")
    parser.add_argument("--edits", type=int, default=5, help="strings to insert")
    parser.add_argument("--expect-length", type=int, required=True, help="text length to wait for")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds before giving up")
    parser.add_argument("--cafile", help="PEM certificate authorities to trust for wss:// (default: the system's)")
    return parser.parse_args(argv)


if __name__ == "__main__":
    sys.exit(anyio.run(main, parse_args(sys.argv[1:])))
