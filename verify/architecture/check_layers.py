#!/usr/bin/env python3
"""Checks that every #include in a layer's sources points to the same or a lower layer.

The layers and what each may use are declared once, in CMakeLists.txt (fedverify_layer), which
writes them to BUILD/layers.txt, one line per layer: `name dir[,dir...] [dep[,dep...]]`. A layer
may include its own headers and those of every layer it reaches through its DEPENDS, directly or
transitively; nothing else of the repository. Headers outside every layer's folders (system and
package headers, "..." includes that do not resolve to a repository file) are not checked.

Files checked: every .hpp/.cpp under a layer's folders, tests beside the sources included (a unit
test may use its own layer and those below, plus the test support layer).

Exit status: 0 no back-edge; 1 back-edges found (one line each: file:line: what and why);
2 bad invocation. `--also FIXTURE=AS` checks FIXTURE as if it stood at AS (a path relative to the
root): the ctest `architecture.back_edge_fails` plants a wrong-way include that way.
"""
import argparse
import pathlib
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def read_layers(path):
    layers = {}
    for line in pathlib.Path(path).read_text().splitlines():
        parts = line.split()
        if not parts:
            continue
        name, dirs = parts[0], parts[1].split(",")
        deps = parts[2].split(",") if len(parts) > 2 else []
        layers[name] = {"dirs": dirs, "deps": deps}
    return layers


def reachable(layers, name):
    seen, todo = set(), [name]
    while todo:
        for dep in layers[todo.pop()]["deps"]:
            if dep not in layers:
                sys.exit(f"check_layers: layer {name} depends on unknown layer {dep}")
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return seen


def layer_of(layers, rel):
    """The layer whose folder is the longest prefix of `rel`, or None."""
    best, best_len = None, -1
    for name, layer in layers.items():
        for d in layer["dirs"]:
            if rel.startswith(d.rstrip("/") + "/") and len(d) > best_len:
                best, best_len = name, len(d)
    return best


def violations(layers, allowed, rel, text):
    me = layer_of(layers, rel)
    if me is None:
        return
    for number, line in enumerate(text.splitlines(), 1):
        m = INCLUDE.match(line)
        if not m:
            continue
        target = layer_of(layers, m.group(1))
        if target is None or target == me or target in allowed[me]:
            continue
        may = ", ".join(sorted(allowed[me])) or "nothing"
        yield (f"{rel}:{number}: layer '{me}' includes \"{m.group(1)}\" of layer '{target}' "
               f"(a back-edge or a side-edge; '{me}' may use only: {may})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", required=True)
    ap.add_argument("--layers", required=True)
    ap.add_argument("--also", action="append", default=[], metavar="FIXTURE=AS")
    args = ap.parse_args()
    root = pathlib.Path(args.root)
    layers = read_layers(args.layers)
    if not layers:
        print("check_layers: no layers declared", file=sys.stderr)
        return 2
    allowed = {name: reachable(layers, name) for name in layers}
    files = []
    for layer in layers.values():
        for d in layer["dirs"]:
            for p in sorted((root / d).rglob("*")):
                if p.suffix in (".hpp", ".cpp"):
                    files.append((p.relative_to(root).as_posix(), p.read_text(errors="replace")))
    for spec in args.also:
        fixture, _, as_path = spec.partition("=")
        files.append((as_path, pathlib.Path(fixture).read_text()))
    found = [v for rel, text in files for v in violations(layers, allowed, rel, text)]
    for v in found:
        print(v)
    if found:
        print(f"check_layers: {len(found)} include(s) against the layering (docs/ARCHITECTURE.md)",
              file=sys.stderr)
        return 1
    print(f"check_layers: {len(files)} files in {len(layers)} layers, every include points down")
    return 0


if __name__ == "__main__":
    sys.exit(main())
