#!/usr/bin/env python3
"""pycrdt replica host for Accord's differential tests.

A long-running process: reads one JSON object per line on stdin, writes exactly one
JSON object per line on stdout (flushed), and holds any number of pycrdt (Yrs) Doc
replicas by name. Errors never end the loop: they are answered {"ok":false,"error":..}.
If a request carries an "id" field, the reply echoes it.

Commands (hex = lowercase hex of raw bytes):
  {"cmd":"new","doc":"A","client":123}        -> {"ok":true}   (replaces an existing "A")
  {"cmd":"drop","doc":"A"}                    -> {"ok":true}
  {"cmd":"apply","doc":"A","update":"<hex>"}  -> {"ok":true}
  {"cmd":"update","doc":"A","sv":"<hex>"|null}-> {"ok":true,"update":"<hex>"}
  {"cmd":"sv","doc":"A"}                      -> {"ok":true,"sv":"<hex>","sv_map":{"<client>":clock,..}}
  {"cmd":"json","doc":"A","roots":{"t":"text","m":"map","a":"array"}}
        -> {"ok":true,"json":{"t":{"string":..,"delta":[[insert, attrs|null],..]},"m":{..},"a":[..]}}
  {"cmd":"quit"}                              -> {"ok":true}, then exit 0

Remote updates: "apply" takes an optional "origin" (string); an undo manager never
tracks a transaction that has one.

Undo (one pycrdt UndoManager per replica, on a clock the test moves):
  {"cmd":"undo_new","doc":"A","scopes":[{"root":..,"root_kind":..,"path":[..]},..],
   "capture_timeout":ms}                      -> {"ok":true}   (clock starts at 1000)
  {"cmd":"undo_clock","doc":"A","now":ms}     -> {"ok":true}
  {"cmd":"undo","doc":"A"} / {"cmd":"redo",..} -> {"ok":true,"changed":bool}
  {"cmd":"undo_state","doc":"A"}              -> {"ok":true,"can_undo":b,"can_redo":b,
                                                  "undo_depth":n,"redo_depth":n}
  {"cmd":"undo_clear","doc":"A"}              -> {"ok":true}

Sticky indices (Yjs relative positions; ASCII text only: pycrdt counts UTF-8 bytes here):
  {"cmd":"sticky","doc":"A","root":..,"root_kind":..,"path":[..],"index":n,"assoc":0|-1}
        -> {"ok":true,"bytes":"<hex>","json":{..}}
  {"cmd":"sticky_resolve","doc":"A","root":..,"root_kind":..,"path":[..],"bytes":"<hex>"}
        -> {"ok":true,"index":n}

Edit ops, each in its own transaction, reply {"ok":true,"update":"<hex>"} with the v1
update that transaction emitted ("0000" = empty update if it changed nothing).
Common fields: "doc", "root" (root type name), "root_kind" ("text"|"map"|"array",
default: the kind the op needs), "path" (list of map keys / array indices walked from
the root, default []).
  text_insert  "index","text","attrs"(obj|null)    text_delete  "index","length"
  text_format  "index","length","attrs"
  map_set      "key","value"                       map_delete   "key"
  array_insert "index","values":[..]               array_delete "index","length"
Text indices and lengths are UTF-16 code units (Accord/Yjs semantics); pycrdt counts
UTF-8 bytes, so they are converted here. An index inside a surrogate pair is an error.

Value encoding (map_set value, array_insert values): plain JSON, or
  {"$type":"map"|"array"|"text"}  a new empty nested shared type; an optional "value"
                                  gives initial content (dict / list / string)
  {"$bytes":"<hex>"}              binary
  {"$bigint":"<decimal>"}         an integer (Yrs stores it as BigInt only when it is
                                  not exactly representable as float64)
JSON output: Text -> string, Map -> dict (keys sorted), Array -> list; floats that are
integral (|x| <= 2^53) print as ints; bytes -> {"$bytes":hex}; NaN/Inf ->
{"$float":"nan"|"inf"|"-inf"}; embeds in a text delta are converted the same way.
"""

from __future__ import annotations

import json
import math
import sys
import traceback

from pycrdt import Array, Doc, Map, Text, UndoManager

KINDS = {"text": Text, "map": Map, "array": Array}
EMPTY_UPDATE = "0000"  # v1: 0 client groups, empty delete set


class PeerError(Exception):
    pass


# ---------------------------------------------------------------------------
# encoding helpers
# ---------------------------------------------------------------------------


def read_var_uint(b: bytes, pos: int):
    n, shift = 0, 0
    while True:
        if pos >= len(b):
            raise PeerError("truncated var uint")
        r = b[pos]
        pos += 1
        n |= (r & 0x7F) << shift
        shift += 7
        if r < 0x80:
            return n, pos


def decode_sv(b: bytes) -> dict:
    count, pos = read_var_uint(b, 0)
    out = {}
    for _ in range(count):
        client, pos = read_var_uint(b, pos)
        clock, pos = read_var_uint(b, pos)
        out[str(client)] = clock
    return out


def utf16_to_utf8(s: str, idx: int, what: str = "index") -> int:
    """UTF-16 code-unit offset in s -> UTF-8 byte offset."""
    if idx < 0:
        raise PeerError(f"{what} {idx} < 0")
    units = 0
    nbytes = 0
    for ch in s:
        if units == idx:
            return nbytes
        o = ord(ch)
        units += 2 if o > 0xFFFF else 1
        if units > idx:
            raise PeerError(f"{what} {idx} splits a surrogate pair")
        nbytes += 1 if o < 0x80 else 2 if o < 0x800 else 3 if o < 0x10000 else 4
    if units == idx:
        return nbytes
    raise PeerError(f"{what} {idx} past end of text (UTF-16 length {units})")


def to_py_value(v):
    if isinstance(v, dict):
        if "$type" in v:
            kind = v["$type"]
            init = v.get("value")
            if kind == "map":
                return Map({k: to_py_value(x) for k, x in (init or {}).items()})
            if kind == "array":
                return Array([to_py_value(x) for x in (init or [])])
            if kind == "text":
                return Text(init or "")
            raise PeerError(f"unknown $type {kind!r}")
        if set(v) == {"$bytes"}:
            return bytes.fromhex(v["$bytes"])
        if set(v) == {"$bigint"}:
            return int(v["$bigint"])
        return {k: to_py_value(x) for k, x in v.items()}
    if isinstance(v, list):
        return [to_py_value(x) for x in v]
    return v


def jsonable(v):
    if isinstance(v, Text):
        return str(v)
    if isinstance(v, (Map, Array)):
        return jsonable(v.to_py())
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, float):
        if math.isnan(v):
            return {"$float": "nan"}
        if math.isinf(v):
            return {"$float": "inf" if v > 0 else "-inf"}
        if v == math.floor(v) and abs(v) <= 2**53:
            return int(v)
        return v
    if isinstance(v, int):
        return v
    if isinstance(v, (bytes, bytearray)):
        return {"$bytes": bytes(v).hex()}
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in sorted(v.items())}
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    if isinstance(v, Doc):
        return {"$subdoc_guid": v.guid}
    return {"$unknown": repr(v)}


# ---------------------------------------------------------------------------
# the host
# ---------------------------------------------------------------------------


class Host:
    def __init__(self):
        self.docs: dict[str, Doc] = {}
        self.captured: dict[str, list] = {}
        self.subs = {}
        self.root_kinds: dict[str, dict[str, str]] = {}  # doc -> root name -> kind first used
        self.undo_managers: dict[str, tuple] = {}  # doc -> (UndoManager, clock dict)

    def root(self, req, name: str, kind: str):
        """Root type `name` of the request's doc as `kind`. Yrs roots are untyped, so
        pycrdt would happily hand out a Text root as an Array; refuse that instead."""
        d = self.doc(req)
        kinds = self.root_kinds.setdefault(req["doc"], {})
        prev = kinds.setdefault(name, kind)
        if prev != kind:
            raise PeerError(f"root {name!r} was used as {prev}, not {kind}")
        return d.get(name, type=KINDS[kind])

    def doc(self, req) -> Doc:
        name = req.get("doc")
        if name not in self.docs:
            raise PeerError(f"no such doc {name!r}")
        return self.docs[name]

    def target(self, req, need: str):
        d = self.doc(req)
        root = req.get("root")
        if not isinstance(root, str):
            raise PeerError("missing 'root'")
        path = req.get("path") or []
        kind = req.get("root_kind") or (need if not path else None)
        if kind not in KINDS:
            raise PeerError(f"root_kind must be one of text/map/array (got {kind!r})")
        t = self.root(req, root, kind)
        for p in path:
            if isinstance(t, Map):
                if not isinstance(p, str):
                    raise PeerError(f"path element {p!r}: map key must be a string")
                if p not in t:
                    raise PeerError(f"path element {p!r}: no such key")
                t = t[p]
            elif isinstance(t, Array):
                if not isinstance(p, int) or isinstance(p, bool):
                    raise PeerError(f"path element {p!r}: array index must be an integer")
                if not 0 <= p < len(t):
                    raise PeerError(f"path element {p}: index out of range (length {len(t)})")
                t = t[p]
            else:
                raise PeerError(f"path element {p!r}: cannot descend into {type(t).__name__}")
        if not isinstance(t, KINDS[need]):
            raise PeerError(f"target is {type(t).__name__}, op needs {need}")
        return d, t

    # --- commands ---------------------------------------------------------

    def cmd_new(self, req):
        name = req.get("doc")
        if not isinstance(name, str):
            raise PeerError("missing 'doc'")
        client = req.get("client")
        d = Doc(client_id=client) if client is not None else Doc()
        self.cmd_drop(req)
        self.docs[name] = d
        self.captured[name] = []
        cap = self.captured[name]
        self.subs[name] = d.observe(lambda ev: cap.append(bytes(ev.update)))
        return {}

    def cmd_drop(self, req):
        name = req.get("doc")
        if name in self.docs:
            try:
                self.docs[name].unobserve(self.subs.pop(name))
            except Exception:
                pass
            del self.docs[name]
            self.undo_managers.pop(name, None)
            self.captured.pop(name, None)
            self.root_kinds.pop(name, None)
        return {}

    def cmd_apply(self, req):
        d = self.doc(req)
        origin = req.get("origin")
        if origin is None:
            d.apply_update(bytes.fromhex(req["update"]))
        else:
            with d.transaction(origin=origin):
                d.apply_update(bytes.fromhex(req["update"]))
        self.captured[req["doc"]].clear()
        return {}

    # --- undo ---------------------------------------------------------------

    def cmd_undo_new(self, req):
        name = req["doc"]
        self.doc(req)
        clock = {"now": 1000}
        scopes = []
        for scope in req["scopes"]:
            sub = dict(scope, doc=name)
            _, t = self.target(sub, scope.get("root_kind", "text"))
            scopes.append(t)
        manager = UndoManager(
            scopes=scopes,
            capture_timeout_millis=int(req.get("capture_timeout", 500)),
            timestamp=lambda: clock["now"],
        )
        self.undo_managers[name] = (manager, clock)
        return {}

    def manager(self, req):
        entry = self.undo_managers.get(req["doc"])
        if entry is None:
            raise PeerError(f"replica {req['doc']!r} has no undo manager (undo_new first)")
        return entry

    def cmd_undo_clock(self, req):
        self.manager(req)[1]["now"] = int(req["now"])
        return {}

    def cmd_undo(self, req):
        return {"changed": bool(self.manager(req)[0].undo())}

    def cmd_redo(self, req):
        return {"changed": bool(self.manager(req)[0].redo())}

    def cmd_undo_clear(self, req):
        self.manager(req)[0].clear()
        return {}

    def cmd_sticky(self, req):
        from pycrdt import Assoc

        _, t = self.target(req, req.get("root_kind", "text"))
        assoc = Assoc.BEFORE if int(req.get("assoc", 0)) < 0 else Assoc.AFTER
        sticky = t.sticky_index(int(req["index"]), assoc)
        return {"bytes": bytes(sticky.encode()).hex(), "json": sticky.to_json()}

    def cmd_sticky_resolve(self, req):
        from pycrdt import StickyIndex

        _, t = self.target(req, req.get("root_kind", "text"))
        sticky = StickyIndex.decode(bytes.fromhex(req["bytes"]), t)
        return {"index": sticky.get_index()}

    def cmd_undo_state(self, req):
        m = self.manager(req)[0]
        return {
            "can_undo": bool(m.can_undo()),
            "can_redo": bool(m.can_redo()),
            "undo_depth": len(m.undo_stack),
            "redo_depth": len(m.redo_stack),
        }

    def cmd_update(self, req):
        d = self.doc(req)
        sv = req.get("sv")
        upd = d.get_update(bytes.fromhex(sv)) if sv is not None else d.get_update()
        return {"update": bytes(upd).hex()}

    def cmd_sv(self, req):
        sv = bytes(self.doc(req).get_state())
        return {"sv": sv.hex(), "sv_map": decode_sv(sv)}

    def cmd_json(self, req):
        d = self.doc(req)
        roots = req.get("roots")
        if not isinstance(roots, dict):
            raise PeerError("'roots' must be an object {name: kind}")
        out = {}
        for name, kind in roots.items():
            if kind not in KINDS:
                raise PeerError(f"root {name!r}: unknown kind {kind!r}")
            t = self.root(req, name, kind)
            if kind == "text":
                out[name] = {
                    "string": str(t),
                    "delta": [[jsonable(ins), jsonable(attrs) if attrs is not None else None] for ins, attrs in t.diff()],
                }
            else:
                out[name] = jsonable(t)
        return {"json": out}

    def edit(self, req, need, fn):
        d, t = self.target(req, need)
        cap = self.captured[req["doc"]]
        cap.clear()
        with d.transaction():
            fn(t)
        if not cap:
            return {"update": EMPTY_UPDATE}
        if len(cap) > 1:  # should not happen: one transaction, one event
            raise PeerError(f"transaction emitted {len(cap)} updates")
        upd = cap.pop()
        return {"update": upd.hex()}

    def cmd_text_insert(self, req):
        def fn(t):
            i = utf16_to_utf8(str(t), req["index"])
            attrs = req.get("attrs")
            if attrs is None:
                t.insert(i, req["text"])
            else:
                t.insert(i, req["text"], attrs)

        return self.edit(req, "text", fn)

    def _range(self, t, req):
        s = str(t)
        a = utf16_to_utf8(s, req["index"])
        b = utf16_to_utf8(s, req["index"] + req["length"], "index+length")
        if b < a:
            raise PeerError("negative length")
        return a, b

    def cmd_text_delete(self, req):
        def fn(t):
            a, b = self._range(t, req)
            if b > a:
                del t[a:b]

        return self.edit(req, "text", fn)

    def cmd_text_format(self, req):
        def fn(t):
            a, b = self._range(t, req)
            attrs = req.get("attrs")
            if not isinstance(attrs, dict):
                raise PeerError("'attrs' must be an object")
            if b > a:
                t.format(a, b, attrs)

        return self.edit(req, "text", fn)

    def cmd_map_set(self, req):
        def fn(m):
            m[req["key"]] = to_py_value(req["value"])

        if "value" not in req:
            raise PeerError("missing 'value'")
        return self.edit(req, "map", fn)

    def cmd_map_delete(self, req):
        def fn(m):
            if req["key"] in m:
                del m[req["key"]]

        return self.edit(req, "map", fn)

    def cmd_array_insert(self, req):
        def fn(a):
            i = req["index"]
            if not 0 <= i <= len(a):
                raise PeerError(f"index {i} out of range (length {len(a)})")
            vals = [to_py_value(v) for v in req["values"]]
            if vals:
                a[i:i] = vals

        return self.edit(req, "array", fn)

    def cmd_array_delete(self, req):
        def fn(a):
            i, n = req["index"], req["length"]
            if i < 0 or n < 0 or i + n > len(a):
                raise PeerError(f"range {i}+{n} out of range (length {len(a)})")
            if n:
                del a[i : i + n]

        return self.edit(req, "array", fn)

    # --- loop ---------------------------------------------------------------

    def handle(self, line: str):
        req = None
        try:
            req = json.loads(line)
            if not isinstance(req, dict):
                raise PeerError("request must be a JSON object")
            cmd = req.get("cmd")
            if cmd == "quit":
                return {"ok": True}, True
            fn = getattr(self, f"cmd_{cmd}", None) if isinstance(cmd, str) else None
            if fn is None:
                raise PeerError(f"unknown cmd {cmd!r}")
            reply = {"ok": True}
            reply.update(fn(req))
        except PeerError as e:
            reply = {"ok": False, "error": str(e)}
        except KeyError as e:
            reply = {"ok": False, "error": f"missing field {e.args[0]!r}"}
        except Exception as e:  # pycrdt / Yrs errors, bad hex, ...
            reply = {"ok": False, "error": f"{type(e).__name__}: {e}"}
            if "--debug" in sys.argv:
                traceback.print_exc(file=sys.stderr)
        if isinstance(req, dict) and "id" in req:
            reply["id"] = req["id"]
        return reply, False


def main() -> int:
    host = Host()
    sys.stdin.reconfigure(encoding="utf-8", errors="surrogatepass")
    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        reply, done = host.handle(line)
        try:
            text = json.dumps(reply, allow_nan=False)  # ASCII-only output (\u escapes)
        except Exception as e:
            text = json.dumps({"ok": False, "error": f"cannot encode reply: {e}", **({"id": reply["id"]} if "id" in reply else {})})
        out.write(text + "\n")
        out.flush()
        if done:
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
