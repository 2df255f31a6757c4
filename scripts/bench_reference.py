#!/usr/bin/env python3
"""Benchmark a reference CRDT engine (pycrdt = Yrs, or loro) on a sequential editing trace.

Usage:
    python scripts/bench_reference.py --engine pycrdt|loro TRACE.json.gz [--samples N] [--fast-samples M]

Prints one JSON object per line (same format as `accord-bench trace`), each with
keys: name, engine, trace, median_ms, min_ms, samples, and where relevant bytes,
peak_rss_bytes, note.

Measurements:
  replay               one transaction per trace txn, no observers
  replay_with_updates  same, also producing each transaction's update bytes
  encode_v1            encode the full state (pycrdt get_update(); loro snapshot export)
  load_v1              apply the full state into a fresh doc and read the text
  apply_incremental    apply every per-transaction update in order into a fresh doc
  resident_doc         memory held by a doc loaded from the full state (RSS delta, fresh process)

Trace positions are Unicode code points (see ../shared/traces/README.md). Loro's
LoroText.insert/delete take code points; pycrdt's Text counts UTF-8 bytes, so the
patches are converted to byte offsets once, before any timing.

Exits non-zero if any replay/load does not reproduce the trace's endContent.
"""

from __future__ import annotations

import argparse
import bisect
import ctypes
import gc
import gzip
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT_NAME = "text"


class Mismatch(Exception):
    pass


# ---------------------------------------------------------------------------
# trace handling
# ---------------------------------------------------------------------------


def load_trace(path: str) -> dict:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        trace = json.load(f)
    if trace.get("kind") == "concurrent" or "txns" not in trace:
        raise SystemExit(f"{path}: not a sequential trace")
    if trace.get("startContent", "") != "":
        raise SystemExit(f"{path}: non-empty startContent is not supported")
    return trace


def trace_name(path: str) -> str:
    base = os.path.basename(path)
    for ext in (".json.gz", ".json"):
        if base.endswith(ext):
            return base[: -len(ext)]
    return base


def utf8_patches(txns) -> list:
    """Convert [pos, del, ins] (code points) to (byte_pos, byte_del, ins) per txn.

    Tracks the code-point positions of the non-ASCII characters currently in the
    document (`wide`, sorted, with their extra UTF-8 bytes in `extra`), which is
    cheap when such characters are rare (all the shared traces)."""
    wide: list[int] = []
    extra: list[int] = []
    out = []
    for txn in txns:
        ops = []
        for pos, dlen, ins in txn["patches"]:
            k = bisect.bisect_left(wide, pos)
            bpos = pos + sum(extra[:k])
            bdel = dlen
            if dlen:
                j = bisect.bisect_left(wide, pos + dlen)
                bdel += sum(extra[k:j])
                del wide[k:j]
                del extra[k:j]
                for i in range(k, len(wide)):
                    wide[i] -= dlen
            if ins:
                n = len(ins)
                for i in range(k, len(wide)):
                    wide[i] += n
                new_w, new_e = [], []
                for i, ch in enumerate(ins):
                    o = ord(ch)
                    if o >= 0x80:
                        new_w.append(pos + i)
                        new_e.append((1 if o < 0x800 else 2 if o < 0x10000 else 3))
                if new_w:
                    wide[k:k] = new_w
                    extra[k:k] = new_e
            ops.append((bpos, bdel, ins))
        out.append(ops)
    return out


def cp_patches(txns) -> list:
    return [[(p, d, s) for p, d, s in t["patches"]] for t in txns]


# ---------------------------------------------------------------------------
# engines
# ---------------------------------------------------------------------------


class PycrdtEngine:
    name = "pycrdt"

    def __init__(self, txns):
        import pycrdt

        self.pycrdt = pycrdt
        self.version = getattr(pycrdt, "__version__", "?")
        self.ops = utf8_patches(txns)

    def _new(self):
        from pycrdt import Doc, Text

        d = Doc(client_id=1)
        return d, d.get(ROOT_NAME, type=Text)

    def replay(self, collect: bool):
        d, t = self._new()
        updates = []
        if collect:
            d.observe(lambda ev: updates.append(ev.update))
        for ops in self.ops:
            with d.transaction():
                for bpos, bdel, ins in ops:
                    if bdel:
                        del t[bpos : bpos + bdel]
                    if ins:
                        t.insert(bpos, ins)
        return d, str(t), updates

    def encode(self, d) -> bytes:
        return d.get_update()

    def load(self, data: bytes):
        d, t = self._new()
        d.apply_update(data)
        return d, str(t)

    def apply_incremental(self, updates):
        d, t = self._new()
        for u in updates:
            d.apply_update(u)
        return d, str(t)

    notes = {
        "replay_with_updates": "Doc.observe callback collects TransactionEvent.update (v1 bytes) per transaction",
        "encode_v1": "Doc.get_update() (Yjs update v1)",
        "load_v1": "Doc.apply_update(full v1 update) into a fresh Doc, then str(text)",
    }


class LoroEngine:
    name = "loro"

    def __init__(self, txns):
        import loro

        self.loro = loro
        self.version = getattr(loro, "__version__", None) or getattr(loro, "LORO_VERSION", "?")
        self.ops = cp_patches(txns)

    def _new(self):
        d = self.loro.LoroDoc()
        d.peer_id = 1
        return d, d.get_text(ROOT_NAME)

    def replay(self, collect: bool):
        d, t = self._new()
        updates = []
        sub = None
        if collect:
            def cb(b):
                updates.append(b)
                return True  # keep the subscription

            sub = d.subscribe_local_update(cb)
        for ops in self.ops:
            for pos, dlen, ins in ops:
                if dlen:
                    t.delete(pos, dlen)
                if ins:
                    t.insert(pos, ins)
            d.commit()
        if sub is not None:
            sub.unsubscribe()
        return d, t.to_string(), updates

    def encode(self, d) -> bytes:
        return d.export(self.loro.ExportMode.Snapshot())

    def load(self, data: bytes):
        d, t = self._new()
        d.import_(data)
        return d, t.to_string()

    def apply_incremental(self, updates):
        d, t = self._new()
        for u in updates:
            d.import_(u)
        return d, t.to_string()

    notes = {
        "replay_with_updates": "LoroDoc.subscribe_local_update collects the update bytes of each commit "
        "(one commit per trace txn); Loro's own update format, not Yjs v1",
        "encode_v1": "LoroDoc.export(ExportMode.Snapshot()) (Loro snapshot: history + state), not Yjs v1; "
        "Loro caches encoded blocks, so repeated exports of an unchanged doc are much cheaper than the "
        "first (warmup_ms)",
        "load_v1": "LoroDoc.import_(snapshot) into a fresh doc, then text.to_string(); Loro decodes the "
        "history lazily, so this is mostly state decoding",
    }


ENGINES = {"pycrdt": PycrdtEngine, "loro": LoroEngine}


# ---------------------------------------------------------------------------
# timing helpers
# ---------------------------------------------------------------------------


def timed(fn, samples: int, warmup: int = 1):
    """Run fn() warmup+samples times with the cyclic GC off.

    Returns (times_ms, last result, warm-up times_ms)."""
    times, warm = [], []
    result = None
    for i in range(warmup + samples):
        gc.collect()
        gc.disable()
        try:
            t0 = time.perf_counter_ns()
            result = fn()
            t1 = time.perf_counter_ns()
        finally:
            gc.enable()
        (times if i >= warmup else warm).append((t1 - t0) / 1e6)
        # drop the previous result before the next sample (except the last one)
        if i < warmup + samples - 1:
            result = None
    return times, result, warm


def emit(ctx, name, timing, **extra):
    times = timing[0] if isinstance(timing, tuple) else timing
    if isinstance(timing, tuple) and timing[2]:
        extra.setdefault("warmup_ms", round(timing[2][0], 3))
    rec = {
        "name": name,
        "engine": ctx["engine"],
        "trace": ctx["trace"],
        "median_ms": round(statistics.median(times), 3),
        "min_ms": round(min(times), 3),
        "samples": len(times),
    }
    rec.update({k: v for k, v in extra.items() if v is not None})
    print(json.dumps(rec), flush=True)


def check(label, got, want):
    if got != want:
        i = next((k for k, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
        raise Mismatch(
            f"{label}: final text differs from endContent (len {len(got)} vs {len(want)}, first difference at {i}: "
            f"{got[i:i+20]!r} vs {want[i:i+20]!r})"
        )


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def vm_hwm_bytes() -> int:
    """Peak RSS of this process image. (ru_maxrss is not used: on Linux it keeps the
    parent's high-water mark across fork+exec.)"""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def malloc_trim():
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


# ---------------------------------------------------------------------------
# resident_doc child process
# ---------------------------------------------------------------------------


def resident_child(engine_name: str, update_file: str, expected_len: int) -> None:
    """Fresh process: RSS before/after loading the full state into a doc."""
    with open(update_file, "rb") as f:
        data = f.read()
    if engine_name == "pycrdt":
        import pycrdt  # noqa: F401  (import cost is not the doc's)
        from pycrdt import Doc, Text

        def load():
            d = Doc(client_id=1)
            t = d.get(ROOT_NAME, type=Text)
            d.apply_update(data)
            return d, len(str(t))
    else:
        import loro

        def load():
            d = loro.LoroDoc()
            d.peer_id = 1
            t = d.get_text(ROOT_NAME)
            d.import_(data)
            return d, len(t.to_string())

    # warm the library (first-use allocations) with a throwaway doc, then measure
    tmp = load()
    del tmp
    gc.collect()
    malloc_trim()
    before = rss_bytes()
    t0 = time.perf_counter_ns()
    doc, n = load()
    t1 = time.perf_counter_ns()
    gc.collect()
    malloc_trim()
    after = rss_bytes()
    if n != expected_len:
        print(json.dumps({"error": f"loaded text length {n} != {expected_len}"}), flush=True)
        sys.exit(1)
    peak = vm_hwm_bytes()
    print(json.dumps({"delta": after - before, "ms": (t1 - t0) / 1e6, "peak": peak}), flush=True)
    del doc


def measure_resident(ctx, engine_name, data: bytes, expected_len: int, samples: int):
    with tempfile.NamedTemporaryFile(prefix="accord-bench-", suffix=".bin", delete=False) as f:
        f.write(data)
        path = f.name
    try:
        deltas, times, peaks = [], [], []
        for _ in range(samples):
            out = subprocess.run(
                [sys.executable, os.path.abspath(__file__), "--_resident", engine_name, path, str(expected_len)],
                capture_output=True,
                text=True,
            )
            if out.returncode != 0:
                raise Mismatch(f"resident_doc child failed: {out.stdout.strip()} {out.stderr.strip()}")
            r = json.loads(out.stdout.strip().splitlines()[-1])
            deltas.append(r["delta"])
            times.append(r["ms"])
            peaks.append(r["peak"])
    finally:
        os.unlink(path)
    emit(
        ctx,
        "resident_doc",
        times,
        bytes=int(statistics.median(deltas)),
        peak_rss_bytes=int(statistics.median(peaks)),
        note="bytes = RSS delta (/proc/self/statm, after gc + malloc_trim) across loading the full state "
        "into a fresh doc in a fresh process (after one warm-up load); median over samples; "
        "times = that load; peak_rss_bytes = child process VmHWM (includes the interpreter, the library and the update bytes)",
    )


# ---------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--_resident":
        resident_child(argv[1], argv[2], int(argv[3]))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", required=True, choices=sorted(ENGINES))
    ap.add_argument("trace")
    ap.add_argument("--samples", type=int, default=5, help="samples for replay-type measurements (default 5)")
    ap.add_argument("--fast-samples", type=int, default=21, help="samples for encode/load (default 21)")
    ap.add_argument("--resident-samples", type=int, default=3, help="child processes for resident_doc (default 3)")
    ap.add_argument("--only", help="comma-separated measurement names to run (default: all)")
    args = ap.parse_args(argv)
    if args.samples < 1 or args.fast_samples < 1 or args.resident_samples < 1:
        ap.error("sample counts must be >= 1")

    trace = load_trace(args.trace)
    want = trace["endContent"]
    eng = ENGINES[args.engine](trace["txns"])
    ctx = {"engine": args.engine, "trace": trace_name(args.trace)}
    only = set(args.only.split(",")) if args.only else None
    run = lambda n: only is None or n in only  # noqa: E731
    version = str(eng.version)

    try:
        if run("replay"):
            tm = timed(lambda: eng.replay(False), args.samples)
            d, text, _ = tm[1]
            check("replay", text, want)
            del d
            emit(ctx, "replay", tm, txns=len(trace["txns"]), version=version)

        # Needed by several measurements; the warm-up run produces the data used below.
        tm = timed(lambda: eng.replay(True), args.samples)
        doc, text, updates = tm[1]
        check("replay_with_updates", text, want)
        if run("replay_with_updates"):
            emit(
                ctx,
                "replay_with_updates",
                tm,
                bytes=sum(len(u) for u in updates),
                updates=len(updates),
                note="bytes = sum of per-transaction update sizes; " + eng.notes["replay_with_updates"],
            )

        tm = timed(lambda: eng.encode(doc), args.fast_samples)
        full = tm[1]
        if run("encode_v1"):
            emit(ctx, "encode_v1", tm, bytes=len(full), note=eng.notes["encode_v1"])

        if run("load_v1"):
            tm = timed(lambda: eng.load(full), args.fast_samples)
            d2, text = tm[1]
            check("load_v1", text, want)
            del d2
            emit(ctx, "load_v1", tm, bytes=len(full), note=eng.notes["load_v1"])

        if run("apply_incremental"):
            tm = timed(lambda: eng.apply_incremental(updates), args.samples)
            d3, text = tm[1]
            check("apply_incremental", text, want)
            del d3
            emit(ctx, "apply_incremental", tm, updates=len(updates), bytes=sum(len(u) for u in updates))

        if run("resident_doc"):
            del doc, updates
            gc.collect()
            measure_resident(ctx, args.engine, full, len(want), args.resident_samples)
    except Mismatch as e:
        print(f"bench_reference: {args.engine} {ctx['trace']}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
