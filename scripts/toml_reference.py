#!/usr/bin/env python3
"""Parse TOML documents with Python's tomllib and print a canonical form of each.

Usage:
    python scripts/toml_reference.py < documents.json

stdin is a JSON array of documents (strings). For each document, one line on stdout:
    ok <canonical form>
    error <tomllib's message>

The canonical form is what Tests/AccordTOMLTests/Support/Canonical.swift produces
from a TOMLTable, so the two can be compared as strings:
    table     {<hex key>:<value>,...}  keys sorted by their UTF-8 bytes
    array     [<value>,...]
    string    s<hex of UTF-8>
    integer   i<decimal>
    float     f<hex of the IEEE 754 bits, big-endian>, or fnan for any NaN
    bool      btrue / bfalse
    datetime  odt / ldt / ld / lt, then the parts, microseconds (tomllib's precision),
              and for odt the offset in minutes
Hex for strings and keys sidesteps every difference in how the two languages escape.
"""

import datetime
import json
import math
import struct
import sys
import tomllib


def canonical(value) -> str:
    if isinstance(value, dict):
        items = sorted(value.items(), key=lambda kv: kv[0].encode("utf-8"))
        return "{" + ",".join(k.encode("utf-8").hex() + ":" + canonical(v) for k, v in items) + "}"
    if isinstance(value, list):
        return "[" + ",".join(canonical(v) for v in value) + "]"
    if isinstance(value, bool):
        return "btrue" if value else "bfalse"
    if isinstance(value, int):
        return f"i{value}"
    if isinstance(value, float):
        if math.isnan(value):
            return "fnan"
        return "f" + struct.pack(">d", value).hex()
    if isinstance(value, str):
        return "s" + value.encode("utf-8").hex()
    if isinstance(value, datetime.datetime):
        base = f"{value.year:04d}-{value.month:02d}-{value.day:02d}T{value.hour:02d}:{value.minute:02d}:{value.second:02d}.{value.microsecond:06d}"
        if value.tzinfo is None:
            return "ldt" + base
        offset = value.utcoffset()
        minutes = int(offset.total_seconds()) // 60
        return f"odt{base}@{minutes}"
    if isinstance(value, datetime.date):
        return f"ld{value.year:04d}-{value.month:02d}-{value.day:02d}"
    if isinstance(value, datetime.time):
        return f"lt{value.hour:02d}:{value.minute:02d}:{value.second:02d}.{value.microsecond:06d}"
    raise TypeError(f"unexpected {type(value)}")


def main() -> None:
    documents = json.load(sys.stdin)
    out = sys.stdout
    for doc in documents:
        try:
            parsed = tomllib.loads(doc)
        except tomllib.TOMLDecodeError as e:
            out.write("error " + str(e).replace("\n", " ") + "\n")
            continue
        except RecursionError:
            out.write("error recursion\n")
            continue
        out.write("ok " + canonical(parsed) + "\n")


if __name__ == "__main__":
    main()
