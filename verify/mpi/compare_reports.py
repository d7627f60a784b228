#!/usr/bin/env python3
"""compare_reports.py A B: whether two `fedverify report` output directories hold the same report.

The contract of a distributed report (docs/DESIGN-EXTENSIONS.md, "Reports across machines"):
whatever the number of ranks and threads, the same files with the same content, except the
wall times. Compared:
  results.json  parsed, recursively; keys named "seconds" (a claim's wall time) are skipped;
                numbers must be equal (JSON text of the same double is the same text);
  REPORT.md, REPORT.html  as text, after replacing every time "<number> s" by "T s";
  every other file (the SVG figures, the marker) byte for byte.
Prints each difference (at most 50) and exits 1 when there is any.
"""
import json
import re
import sys
from pathlib import Path


def walk(a, b, path, out):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k == "seconds":
                continue
            if k not in a or k not in b:
                out.append(f"{path}/{k}: only in {'B' if k not in a else 'A'}")
                continue
            walk(a[k], b[k], f"{path}/{k}", out)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f"{path}: length {len(a)} vs {len(b)}")
        for i, (x, y) in enumerate(zip(a, b)):
            walk(x, y, f"{path}[{i}]", out)
    elif type(a) is not type(b) and not (isinstance(a, (int, float)) and isinstance(b, (int, float))):
        out.append(f"{path}: {a!r} vs {b!r} (types differ)")
    elif a != b:
        out.append(f"{path}: {a!r} vs {b!r}")


TIME = re.compile(r"\b\d+(\.\d+)? s\b")


def compare(a: Path, b: Path):
    out = []
    files_a = {p.relative_to(a) for p in a.rglob("*") if p.is_file()}
    files_b = {p.relative_to(b) for p in b.rglob("*") if p.is_file()}
    for f in sorted(files_a ^ files_b):
        out.append(f"{f}: only in {'A' if f in files_a else 'B'}")
    for f in sorted(files_a & files_b):
        if f.name == "results.json":
            walk(json.loads((a / f).read_text()), json.loads((b / f).read_text()), str(f), out)
        elif f.suffix in (".md", ".html"):
            la = TIME.sub("T s", (a / f).read_text()).splitlines()
            lb = TIME.sub("T s", (b / f).read_text()).splitlines()
            if len(la) != len(lb):
                out.append(f"{f}: {len(la)} lines vs {len(lb)}")
            for i, (x, y) in enumerate(zip(la, lb)):
                if x != y:
                    out.append(f"{f}:{i + 1}: {x[:120]!r} vs {y[:120]!r}")
        elif (a / f).read_bytes() != (b / f).read_bytes():
            out.append(f"{f}: bytes differ")
    return out, len(files_a)


def main():
    if len(sys.argv) != 3:
        print("usage: compare_reports.py A B", file=sys.stderr)
        return 2
    out, n = compare(Path(sys.argv[1]), Path(sys.argv[2]))
    for line in out[:50]:
        print(line)
    print(f"{n} files compared, {len(out)} differences")
    return 1 if out else 0


if __name__ == "__main__":
    sys.exit(main())
