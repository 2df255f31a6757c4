#!/usr/bin/env python3
"""Time Python's tomllib on TOML files: the reference for `accord-bench toml`.

Usage:
    python scripts/toml_bench.py FILE... [--samples N]

Prints one JSON line per file in the format of scripts/bench_reference.py:
name "toml_parse", engine "tomllib", trace (the file name), median_ms, min_ms,
samples, warmup_ms, bytes, mb_per_s (MB = 10^6 bytes, over the median).
Each file is read once; tomllib.loads runs once to warm up, then N timed times.
"""

import argparse
import json
import os
import statistics
import sys
import time
import tomllib


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("files", nargs="+")
    parser.add_argument("--samples", type=int, default=5)
    args = parser.parse_args()
    for path in args.files:
        with open(path, "rb") as f:
            data = f.read()
        text = data.decode("utf-8")
        times = []
        start = time.perf_counter()
        tomllib.loads(text)
        warmup = (time.perf_counter() - start) * 1000
        for _ in range(args.samples):
            start = time.perf_counter()
            tomllib.loads(text)
            times.append((time.perf_counter() - start) * 1000)
        median = statistics.median(times)
        record = {
            "name": "toml_parse",
            "engine": "tomllib",
            "trace": os.path.basename(path),
            "median_ms": round(median, 3),
            "min_ms": round(min(times), 3),
            "samples": len(times),
            "warmup_ms": round(warmup, 3),
            "bytes": len(data),
            "mb_per_s": round(len(data) / 1e6 / (median / 1000), 2),
        }
        sys.stdout.write(json.dumps(record) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
