#!/usr/bin/env python3
"""pycrdt-websocket reference sync server for Accord's load benchmark and interop checks.

Runs pycrdt-websocket's WebsocketServer (the y-websocket protocol, one room per URL path;
the query string, e.g. ?token=..., is ignored) behind Hypercorn, the ASGI server the
pycrdt-websocket documentation uses. Prints exactly one line `listening <port>` on stdout
once the socket accepts connections, then serves until SIGTERM or SIGINT.

  --host 127.0.0.1   address to bind
  --port 0           0 lets the kernel choose; the chosen port is printed
  --certfile F, --keyfile F
                     serve TLS (wss://) with this PEM certificate chain and key
  --store DIR        persist every room in DIR/ystore.db (pycrdt-store's SQLiteYStore,
                     as Jupyter does) and load rooms from it when they are opened, so a
                     restarted server serves the same documents. Without it, rooms live
                     in memory only and vanish when their last client leaves.

On SIGTERM the server stops accepting, closes its connections, waits (at most 10 s) for
the room-store writes already started, then exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import socket
import sys

from hypercorn.asyncio import serve
from hypercorn.config import Config
from pycrdt.store import SQLiteYStore, YDocNotFound
from pycrdt.websocket import ASGIServer, WebsocketServer, YRoom


class CountingStore(SQLiteYStore):
    """SQLiteYStore that counts its writes in flight, so closing a room (or the server)
    can wait for them: YRoom starts each write as a background task of the room, and
    stopping the room cancels those tasks, which would lose a document's last updates."""

    total_in_flight = 0

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.in_flight = 0

    async def write(self, data: bytes) -> None:
        self.in_flight += 1
        CountingStore.total_in_flight += 1
        try:
            await super().write(data)
        finally:
            self.in_flight -= 1
            CountingStore.total_in_flight -= 1


class PersistentServer(WebsocketServer):
    """A WebsocketServer whose rooms load from and write to one SQLite store.

    pycrdt-websocket's YRoom writes updates to its ystore but never reads it back, so
    opening a room here first applies the stored updates, then marks the room ready.
    Clients of a room being loaded wait for the load (never see an empty document)."""

    def __init__(self, store_path: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.store_class = type("RoomStore", (CountingStore,), {"db_path": store_path})
        self.loaded: dict[str, asyncio.Event] = {}

    async def create_store(self) -> None:
        """Creates the database before the first room opens. Each room's store checks for
        the file and creates the tables if missing, each under its own lock: rooms opened
        at the same moment on a new database raced (duplicate CREATE TABLE, or a store
        reading a half-made schema and renaming the database away as a version mismatch)."""
        assert self._task_group is not None
        bootstrap = self.store_class(path="", log=self.log)
        await self._task_group.start(bootstrap.start)
        assert bootstrap.db_initialized is not None
        await bootstrap.db_initialized.wait()
        await bootstrap.stop()

    async def get_room(self, name: str) -> YRoom:
        if name in self.rooms:
            await self.loaded[name].wait()
            return self.rooms[name]
        ystore = self.store_class(path=name, log=self.log)
        room = YRoom(ready=False, ystore=ystore, exception_handler=self.exception_handler, log=self.log)
        self.rooms[name] = room
        self.loaded[name] = loaded = asyncio.Event()
        try:
            assert self._task_group is not None
            # Started here (not by the room) because reading needs an open database.
            await self._task_group.start(ystore.start)
            try:
                await ystore.apply_updates(room.ydoc)
            except YDocNotFound:
                pass
            room.ready = True  # from now on the room broadcasts and stores updates
            await self.start_room(room)
        finally:
            loaded.set()
        return room

    async def delete_room(self, *, name: str | None = None, room: YRoom | None = None) -> None:
        if name is None:
            assert room is not None
            name = self.get_room_name(room)
        room = self.rooms[name]
        ystore = room.ystore
        assert isinstance(ystore, CountingStore)
        await drain_writes(lambda: ystore.in_flight)
        if room.clients or self.rooms.get(name) is not room:
            return  # a client joined while the writes finished: the room stays
        self.loaded.pop(name, None)
        await super().delete_room(name=name)
        await ystore.stop()


async def drain_writes(in_flight=lambda: CountingStore.total_in_flight, limit: float = 10.0) -> None:
    """Waits until `in_flight()` is 0 (or `limit` seconds passed). Sleeps a little first:
    an update applied just now reaches the store through the room's broadcast task."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    await asyncio.sleep(0.05)
    while in_flight() and loop.time() < deadline:
        await asyncio.sleep(0.02)


def listening_socket(host: str, port: int) -> socket.socket:
    """Binds before Hypercorn starts, so port 0 can be read back and printed."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    sock.listen(4096)
    return sock


async def main(args: argparse.Namespace) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)

    log = logging.getLogger("pycrdt_ws_server")
    if args.store:
        os.makedirs(args.store, exist_ok=True)
        websocket_server: WebsocketServer = PersistentServer(
            os.path.join(args.store, "ystore.db"), log=log, exception_handler=log_and_continue
        )
    else:
        websocket_server = WebsocketServer(log=log, exception_handler=log_and_continue)

    sock = listening_socket(args.host, args.port)
    config = Config()
    config.bind = [f"fd://{sock.fileno()}"]
    config.backlog = 4096  # Hypercorn listens again with this; its default (100) drops connect bursts
    config.websocket_max_message_size = 64 * 1024 * 1024
    config.accesslog = None
    if args.certfile:
        config.certfile = args.certfile
        config.keyfile = args.keyfile
    config.errorlog = log

    async with websocket_server:
        if isinstance(websocket_server, PersistentServer):
            await websocket_server.create_store()
        server = asyncio.create_task(serve(ASGIServer(websocket_server), config, shutdown_trigger=stop.wait))
        print(f"listening {sock.getsockname()[1]}", flush=True)
        await server
        await drain_writes()
    return 0


def log_and_continue(exception: Exception, log: logging.Logger) -> bool:
    """A client that goes away mid-message must not stop its room (or the server)."""
    log.debug("room exception: %r", exception)
    return True


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--store", default=None, help="directory of the persistent room store")
    parser.add_argument("--certfile", default=None, help="PEM certificate chain: serve TLS")
    parser.add_argument("--keyfile", default=None, help="PEM private key of --certfile")
    return parser.parse_args(argv)


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    sys.exit(asyncio.run(main(parse_args(sys.argv[1:]))))
