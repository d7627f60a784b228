#!/usr/bin/env python3
"""Checks that every #include in a layer's sources points to the same or a lower layer.

The layers and what each may use are declared once, by fedverify_layer() (cmake/layers.cmake) in
the CMakeLists.txt of theory/, estimators/, verify/ and reports/; CMake writes them to
BUILD/layers.txt, one line per layer: `name dir[,dir...] dep[,dep...]|- kind`, kind `library` or `test` (a test-only layer: test support and planted errors, linked into the
test executables only). A layer may include its own headers and those of every layer it reaches
through its DEPENDS, directly or transitively; nothing else of the repository. Headers outside
every layer's folders (system and package headers, "..." includes that do not resolve to a
repository file) are not checked. No library layer may depend on a test-only layer.

Files checked: every .hpp/.cpp under a layer's folders, unit tests beside the sources included.
A unit test (*_test.cpp, *_slowtest.cpp) follows the rules of its folder's layer and may also
include the test-only layers, but only headers of theirs that bring in (through their own
includes, followed within the test-only layers) nothing its layer may not use: a test of
theory/base cannot reach the problems layer through a test-support header. A library source may
not include a test-only layer at all.

Exit status: 0 no back-edge; 1 back-edges found (one line each: file:line: what and why);
2 bad invocation. `--also FIXTURE=AS` checks FIXTURE as if it stood at AS (a path relative to the
root): the architecture.* ctests plant wrong-way includes that way.
"""
import argparse
import pathlib
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
TEST_FILE = re.compile(r"_(slow)?test\.cpp$")
NO_DEPS = "-"
TEST_KIND = "test"


def read_layers(path):
    layers = {}
    for line in pathlib.Path(path).read_text().splitlines():
        parts = line.split()
        if not parts:
            continue
        name, dirs = parts[0], parts[1].split(",")
        deps = parts[2].split(",") if len(parts) > 2 and parts[2] != NO_DEPS else []
        kind = parts[3] if len(parts) > 3 else "library"
        layers[name] = {"dirs": dirs, "deps": deps, "test_only": kind == TEST_KIND}
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


def includes(text):
    for number, line in enumerate(text.splitlines(), 1):
        m = INCLUDE.match(line)
        if m:
            yield number, m.group(1)


def brought_in(layers, texts, header):
    """Repository headers outside the test-only layers that `header` (a test-only header)
    includes, following includes within the test-only layers: [(path, via)]."""
    found, seen, todo = [], {header}, [(header, header)]
    while todo:
        rel, via = todo.pop()
        for _, target in includes(texts.get(rel, "")):
            layer = layer_of(layers, target)
            if layer is None or target in seen:
                continue
            seen.add(target)
            if layers[layer]["test_only"]:
                todo.append((target, f"{via} -> {target}"))
            else:
                found.append((target, via))
    return found


def violations(layers, allowed, texts, rel, text):
    me = layer_of(layers, rel)
    if me is None:
        return
    is_test = TEST_FILE.search(rel) is not None
    may = allowed[me] | {me}
    may_list = ", ".join(sorted(allowed[me])) or "nothing"
    for number, target_path in includes(text):
        target = layer_of(layers, target_path)
        if target is None or target in may:
            continue
        if not layers[target]["test_only"]:
            yield (f"{rel}:{number}: layer '{me}' includes \"{target_path}\" of layer '{target}' "
                   f"(a back-edge or a side-edge; '{me}' may use only: {may_list})")
        elif not is_test:
            yield (f"{rel}:{number}: layer '{me}' includes \"{target_path}\" of the test-only "
                   f"layer '{target}' (only *_test.cpp and *_slowtest.cpp files may)")
        else:
            for header, via in brought_in(layers, texts, target_path):
                layer = layer_of(layers, header)
                if layer not in may:
                    yield (f"{rel}:{number}: a test of layer '{me}' includes \"{via}\", which "
                           f"includes \"{header}\" of layer '{layer}' ('{me}' may use only: "
                           f"{may_list})")


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
    found = [f"layers.txt: library layer '{name}' depends on the test-only layer '{dep}'"
             for name, layer in layers.items() if not layer["test_only"]
             for dep in sorted(allowed[name]) if layers[dep]["test_only"]]
    files = {}
    for layer in layers.values():
        for d in layer["dirs"]:
            for p in sorted((root / d).rglob("*")):
                if p.suffix in (".hpp", ".cpp"):
                    files[p.relative_to(root).as_posix()] = p.read_text(errors="replace")
    for spec in args.also:
        fixture, _, as_path = spec.partition("=")
        files[as_path] = pathlib.Path(fixture).read_text()
    found += [v for rel, text in files.items()
              for v in violations(layers, allowed, files, rel, text)]
    for v in found:
        print(v)
    if found:
        print(f"check_layers: {len(found)} include(s) against the layering (docs/ARCHITECTURE.md)",
              file=sys.stderr)
        return 1
    tests = sum(1 for rel in files if TEST_FILE.search(rel))
    print(f"check_layers: {len(files)} files ({tests} unit tests) in {len(layers)} layers, "
          f"every include points down")
    return 0


if __name__ == "__main__":
    sys.exit(main())
