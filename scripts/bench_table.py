#!/usr/bin/env python3
"""Helpers for scripts/bench.sh.

  bench_table.py annotate --engine E --trace T   < json-lines  >> results.jsonl
      Copies benchmark JSON lines from stdin to stdout, adding "engine"/"trace" keys
      when missing. Lines that are not JSON objects with "name" and "median_ms" go to
      stderr unchanged. Exits 1 if no measurement line was seen.

  bench_table.py client-table CLIENT.jsonl
      The `accord-bench client` lines: one row per case with p50, p99 and median ms,
      the sample count and the case's extra figures (target, other client).

  bench_table.py records-table RECORDS.jsonl
      The `accord-bench records` lines: one row per measurement with its unit, Accord's
      figure, the hand-written SQLite figure and their ratio (records index / SQLite),
      and the issue's target where there is one.

  bench_table.py table RESULTS.jsonl
      Prints one Markdown section per trace: a table of median ms (columns accord,
      pycrdt, loro, and the ratios reference/accord; > 1 means Accord is faster) and a
      table of sizes for the measurements that report bytes (ratio > 1 means Accord
      is smaller).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import OrderedDict

ENGINES = ["accord", "pycrdt", "loro"]
REFERENCES = ["pycrdt", "loro"]
ORDER = ["replay", "replay_with_updates", "encode_v1", "load_v1", "apply_incremental", "resident_doc"]


def annotate(engine: str, trace: str) -> int:
    seen = 0
    for line in sys.stdin:
        s = line.strip()
        if not s:
            continue
        try:
            rec = json.loads(s)
        except json.JSONDecodeError:
            rec = None
        if not isinstance(rec, dict) or "name" not in rec or "median_ms" not in rec:
            sys.stderr.write(line)
            continue
        rec.setdefault("engine", engine)
        rec.setdefault("trace", trace)
        sys.stdout.write(json.dumps(rec) + "\n")
        sys.stdout.flush()
        seen += 1
    if not seen:
        print(f"bench_table: no measurements from {engine} on {trace}", file=sys.stderr)
        return 1
    return 0


def fmt_ms(v):
    if v is None:
        return "—"
    if v >= 100:
        return f"{v:,.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.3g}" if v >= 0.01 else f"{v:.2g}"


def fmt_bytes(v):
    if v is None:
        return "—"
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if v >= div:
            return f"{v / div:,.1f} {unit}"
    return f"{v:,} B"


def fmt_ratio(ref, acc):
    if ref is None or acc is None or acc <= 0:
        return "—"
    r = ref / acc
    return f"{r:.2f}×" if r < 10 else f"{r:.1f}×"


def read_records(path: str):
    """The JSON objects of a JSON-lines file, blank lines skipped."""
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                yield json.loads(line)


def table(path: str) -> int:
    data: "OrderedDict[str, dict]" = OrderedDict()  # trace -> name -> engine -> rec
    for rec in read_records(path):
        t = data.setdefault(rec.get("trace", "?"), OrderedDict())
        t.setdefault(rec["name"], {})[rec.get("engine", "?")] = rec
    if not data:
        print(f"bench_table: {path} has no results", file=sys.stderr)
        return 1
    for trace, by_name in data.items():
        names = [n for n in ORDER if n in by_name] + [n for n in by_name if n not in ORDER]
        engines = [e for e in ENGINES if any(e in by_name[n] for n in names)]
        engines += sorted({e for n in names for e in by_name[n]} - set(engines))
        refs = [e for e in engines if e != "accord"]
        print(f"### {trace}\n")
        print("median ms (ratio = reference / accord; > 1 means Accord is faster)\n")
        head = ["measurement"] + [f"{e} ms" for e in engines] + [f"{e}/accord" for e in refs]
        print("| " + " | ".join(head) + " |")
        print("| --- | " + " | ".join("---:" for _ in head[1:]) + " |")
        for n in names:
            recs = by_name[n]
            ms = {e: recs[e]["median_ms"] if e in recs else None for e in engines}
            label = "resident_doc (load)" if n == "resident_doc" else n
            row = [label] + [fmt_ms(ms[e]) for e in engines] + [fmt_ratio(ms[e], ms.get("accord")) for e in refs]
            print("| " + " | ".join(row) + " |")
        sized = [n for n in names if any("bytes" in r for r in by_name[n].values())]
        if sized:
            print("\nbytes (ratio = reference / accord; > 1 means Accord is smaller)\n")
            head = ["measurement"] + engines + [f"{e}/accord" for e in refs]
            print("| " + " | ".join(head) + " |")
            print("| --- | " + " | ".join("---:" for _ in head[1:]) + " |")
            for n in sized:
                recs = by_name[n]
                b = {e: recs[e].get("bytes") if e in recs else None for e in engines}
                row = [n] + [fmt_bytes(b[e]) for e in engines] + [fmt_ratio(b[e], b.get("accord")) for e in refs]
                print("| " + " | ".join(row) + " |")
        rated = [n for n in names if any("ops_per_s" in r or "mb_per_s" in r for r in by_name[n].values())]
        if rated:
            print("\nthroughput\n")
            print("| measurement | engine | ops/s | MB/s |")
            print("| --- | --- | ---: | ---: |")
            for n in rated:
                for e, r in by_name[n].items():
                    ops = f"{r['ops_per_s']:,}" if "ops_per_s" in r else ""
                    mbs = f"{r['mb_per_s']:,.1f}" if "mb_per_s" in r else ""
                    print(f"| {n} | {e} | {ops} | {mbs} |")
        notes: "OrderedDict[tuple, list]" = OrderedDict()  # (name, note) -> engines
        for n in names:
            for e, r in by_name[n].items():
                if r.get("note"):
                    notes.setdefault((n, r["note"]), []).append(e)
        if notes:
            print("\nnotes:\n")
            for (n, note), es in notes.items():
                print(f"- {n} ({', '.join(es)}): {note}")
        print()
    return 0


def fmt_figure(v):
    if v is None:
        return "—"
    if isinstance(v, int):
        return f"{v:,}"
    return f"{v:,.1f}" if v >= 100 else f"{v:.3g}"


SERVER_METRICS = ["connections", "rss_bytes", "msgs_per_s", "p50_ms", "p99_ms", "median_ms"]


def server_table(path: str) -> int:
    """The `accord-bench server` lines: per case, Accord's figure beside pycrdt-websocket's."""
    cases: "OrderedDict[str, dict]" = OrderedDict()  # case -> engine -> rec
    for rec in read_records(path):
        name = rec["name"]
        if name.endswith("_ratio"):
            continue
        base = name[: -len("_pycrdt")] if name.endswith("_pycrdt") else name
        cases.setdefault(base, {})[rec.get("engine", "?")] = rec
    if not cases:
        print(f"bench_table: {path} has no server results", file=sys.stderr)
        return 1
    print("### server (accord serve vs pycrdt-websocket)\n")
    print("| case | figure | accord | pycrdt | accord/pycrdt |")
    print("| --- | --- | ---: | ---: | ---: |")
    for case, by_engine in cases.items():
        acc, ref = by_engine.get("accord", {}), by_engine.get("pycrdt", {})
        for m in SERVER_METRICS:
            if m not in acc and m not in ref:
                continue
            fmt = fmt_bytes if m == "rss_bytes" else fmt_figure
            a, r = acc.get(m), ref.get(m)
            ratio = f"{a / r:.3g}" if isinstance(a, (int, float)) and isinstance(r, (int, float)) and r else "—"
            print(f"| {case} | {m} | {fmt(a)} | {fmt(r)} | {ratio} |")
    print()
    return 0


CLIENT_EXTRAS = [("target_ms", "target {} ms"), ("other_client_median_ms", "other client {} ms (median)"),
                 ("clients", "{} clients")]


def client_table(path: str) -> int:
    """The `accord-bench client` lines: latency figures per case."""
    recs = list(read_records(path))
    if not recs:
        print(f"bench_table: {path} has no client results", file=sys.stderr)
        return 1
    print("### client (AccordClient against accord serve)\n")
    print("| case | p50 ms | p99 ms | median ms | samples | also |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for r in recs:
        also = ", ".join(f.format(fmt_ms(r[k]) if isinstance(r[k], float) else r[k]) for k, f in CLIENT_EXTRAS if k in r)
        print(f"| {r['name']} | {fmt_ms(r.get('p50_ms'))} | {fmt_ms(r.get('p99_ms'))} | {fmt_ms(r.get('median_ms'))} "
              f"| {r.get('samples', '—')} | {also} |")
    print()
    return 0


def fmt_unit(v, unit):
    if v is None:
        return "—"
    if unit == "bytes":
        return fmt_bytes(int(v))
    if unit == "records/s":
        return f"{v:,.0f}"
    return fmt_ms(v)


def records_table(path: str) -> int:
    """The `accord-bench records` lines: each figure in its own unit, beside hand-written SQLite."""
    recs = list(read_records(path))
    if not recs:
        print(f"bench_table: {path} has no records results", file=sys.stderr)
        return 1
    print("### records (AccordRecords through an offline AccordClient vs a hand-written SQLite schema)\n")
    print("| measurement | unit | accord | hand-written SQLite | accord/SQLite | target | met |")
    print("| --- | --- | ---: | ---: | ---: | --- | --- |")
    for r in recs:
        unit = r.get("unit", "")
        ratio = r.get("ratio_vs_sqlite")
        met = {True: "yes", False: "**no**"}.get(r.get("target_met"), "")
        print(f"| {r['name']} | {unit} | {fmt_unit(r.get('value'), unit)} | {fmt_unit(r.get('sqlite_value'), unit)} "
              f"| {f'{ratio:.2f}×' if ratio is not None else '—'} | {r.get('target', '')} | {met} |")
    print("\nnotes:\n")
    for r in recs:
        if r.get("note"):
            print(f"- {r['name']}: {r['note']}")
    print()
    return 0


def lines_table(title: str, path: str) -> int:
    """Any accord-bench JSON lines: one row per measurement, its figures as `key=value`."""
    recs = list(read_records(path))
    if not recs:
        print(f"bench_table: {path} has no results", file=sys.stderr)
        return 1
    print(f"### {title}\n")
    print("| measurement | figures | target | met |")
    print("| --- | --- | --- | --- |")
    skip = {"name", "engine", "trace", "note", "target", "target_met"}
    for r in recs:
        figures = ", ".join(
            f"{k}={v:,.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in r.items() if k not in skip)
        met = {True: "yes", False: "**no**"}.get(r.get("target_met"), "")
        print(f"| {r['name']} | {figures} | {r.get('target', '')} | {met} |")
    print()
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description="benchmark JSON-lines helpers")
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("annotate")
    a.add_argument("--engine", required=True)
    a.add_argument("--trace", required=True)
    t = sub.add_parser("table")
    t.add_argument("results")
    st = sub.add_parser("server-table")
    st.add_argument("results")
    ct = sub.add_parser("client-table")
    ct.add_argument("results")
    rt = sub.add_parser("records-table")
    rt.add_argument("results")
    lt = sub.add_parser("lines-table")
    lt.add_argument("title")
    lt.add_argument("results")
    args = ap.parse_args()
    if args.cmd == "lines-table":
        return lines_table(args.title, args.results)
    if args.cmd == "annotate":
        return annotate(args.engine, args.trace)
    if args.cmd == "server-table":
        return server_table(args.results)
    if args.cmd == "client-table":
        return client_table(args.results)
    if args.cmd == "records-table":
        return records_table(args.results)
    return table(args.results)


if __name__ == "__main__":
    sys.exit(main())
