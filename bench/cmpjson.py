#!/usr/bin/python3
"""Bit-for-bit comparison of two results.json files, ignoring wall-clock fields (seconds,
seconds_per_run, provenance date/seconds). Prints each differing path and the count."""
import json, sys
IGNORE = {"seconds", "seconds_per_run", "date"}
def cmp(a, b, p, out):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k in IGNORE: continue
            if k not in a or k not in b: out.append((p + "/" + k, a.get(k, "<missing>"), b.get(k, "<missing>"))); continue
            cmp(a[k], b[k], p + "/" + k, out)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b): out.append((p, f"len {len(a)}", f"len {len(b)}"))
        for i, (x, y) in enumerate(zip(a, b)): cmp(x, y, f"{p}[{i}]", out)
    elif type(a) != type(b) or a != b:
        out.append((p, a, b))
a, b = (json.load(open(f)) for f in sys.argv[1:3])
out = []
cmp(a, b, "", out)
for p, x, y in out[:40]: print(f"{p}: {x!r} != {y!r}")
print(f"{len(out)} differences")
