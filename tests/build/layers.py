#!/usr/bin/env python3
"""layers.py CHECKER_DIR: checks checker/'s include graph against checker/LAYERS.

Prints one TAP line per rule:
  - every folder holding sources is a layer named in LAYERS, and every
    include is written folder-qualified ("pe/pe.h") and names a file that
    exists;
  - no include runs up the order: a file in layer L includes only headers of
    L and of the layers listed before L;
  - no include cycle between modules (a module is a header and the sources
    named for it: pe.h, pe.c; inventory.h, inventory.c, inventory_redist.c),
    nor between folders.
With --dot it prints the folder graph instead, for the README's picture.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def read_layers(top):
    layers = []
    with open(os.path.join(top, "LAYERS"), encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                layers.append(line)
    return layers


def layer_of(path, layers):
    """The deepest layer folder holding PATH (relative to checker/)."""
    best = None
    for layer in layers:
        if os.path.dirname(path) == layer:
            best = layer
    return best


def module_of(path, headers):
    """pe/pe.c -> pe/pe; machine/inventory_redist.c -> machine/inventory."""
    stem = os.path.splitext(path)[0]
    if stem + ".h" in headers:
        return stem
    folder, base = os.path.split(stem)
    parts = base.split("_")
    for n in range(len(parts) - 1, 0, -1):
        cand = os.path.join(folder, "_".join(parts[:n]))
        if cand + ".h" in headers:
            return cand
    return stem


def find_cycle(graph):
    """One cycle of GRAPH (dict node -> set of nodes) as a list, or None."""
    WHITE, GREY, BLACK = 0, 1, 2
    color = {n: WHITE for n in graph}
    stack = []

    def visit(n):
        color[n] = GREY
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if m == n:
                continue
            if color.get(m, WHITE) == GREY:
                return stack[stack.index(m):] + [m]
            if color.get(m, WHITE) == WHITE:
                color.setdefault(m, WHITE)
                c = visit(m)
                if c:
                    return c
        stack.pop()
        color[n] = BLACK
        return None

    for n in sorted(graph):
        if color[n] == WHITE:
            c = visit(n)
            if c:
                return c
    return None


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    dot = "--dot" in sys.argv
    top = args[0] if args else "checker"
    layers = read_layers(top)
    rank = {l: i for i, l in enumerate(layers)}
    files = []
    for dirpath, _, names in os.walk(top):
        for name in names:
            if name.endswith((".c", ".h", ".def")):
                files.append(os.path.relpath(os.path.join(dirpath, name), top))
    files.sort()
    headers = {f for f in files if f.endswith((".h", ".def"))}
    problems = {"placement": [], "spelling": [], "upward": []}
    modgraph, foldgraph = {}, {l: set() for l in layers}
    for f in files:
        lf = layer_of(f, layers)
        if lf is None:
            problems["placement"].append(f"{f}: its folder is not a layer in LAYERS")
            continue
        src = module_of(f, headers)
        modgraph.setdefault(src, set())
        with open(os.path.join(top, f), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        for inc in INCLUDE.findall(text):
            if inc not in headers:
                problems["spelling"].append(f"{f}: #include \"{inc}\" is not a folder-qualified header of checker/")
                continue
            li = layer_of(inc, layers)
            if rank[li] > rank[lf]:
                problems["upward"].append(f"{f} ({lf}) includes {inc} ({li}), a layer above it")
            tgt = module_of(inc, headers)
            modgraph.setdefault(src, set()).add(tgt)
            if li != lf:
                foldgraph[lf].add(li)
    if dot:
        print("digraph layers {")
        for l in layers:
            for m in sorted(foldgraph[l], key=rank.get):
                print(f'  "{l}" -> "{m}";')
        print("}")
        return 0
    failed = 0

    def report(ok, desc, details):
        nonlocal failed
        if ok:
            print(f"ok - layers: {desc}")
        else:
            failed = 1
            print(f"not ok - layers: {desc}")
            for d in details[:20]:
                print(f"#   {d}")

    report(not problems["placement"], "every source folder is a layer of checker/LAYERS", problems["placement"])
    report(not problems["spelling"], "every include is folder-qualified and exists", problems["spelling"])
    report(not problems["upward"], "no include runs up the layer order", problems["upward"])
    cyc = find_cycle(modgraph)
    report(cyc is None, "no include cycle between modules", [" -> ".join(cyc)] if cyc else [])
    cyc = find_cycle(foldgraph)
    report(cyc is None, "no include cycle between folders", [" -> ".join(cyc)] if cyc else [])
    print(f"# {len(files)} files in {len(layers)} layers; "
          f"{sum(len(v) for v in modgraph.values())} module edges")
    return failed


if __name__ == "__main__":
    sys.exit(main())
