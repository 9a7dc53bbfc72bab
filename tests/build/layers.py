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
    nor between folders;
  - with --readme=FILE (README.md): its layer table (the rows "| `folder/` |
    `module`, ... | ..." under "### Layers") names every module of each
    folder (each header; `rules.def`), and every name in it is a module, a
    source or a file of that folder (`cmd_*` stands for those it matches);
  - with --objects=DIR (the build folder holding checker/**/*.o, such as
    build/rel): no circle between files at the symbol level. From `nm` of
    each source's object, file A uses file B when A's object leaves a symbol
    undefined that B's object defines; two files of one module using each
    other (matrix.c and matrix_proc.c once did) are a circle the include
    rules above cannot see, since they count a header and its sources as
    one module. Each circle is printed with its files and, for each use
    inside it, the symbols.
With --dot it prints the folder graph instead, for the README's picture.
"""
import os
import re
import subprocess
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


def strong_components(graph):
    """The strongly connected components of GRAPH with more than one node, each sorted (Tarjan)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(n):
        index[n] = low[n] = counter[0]
        counter[0] += 1
        stack.append(n)
        on.add(n)
        for m in sorted(graph.get(n, ())):
            if m not in index:
                visit(m)
                low[n] = min(low[n], low[m])
            elif m in on:
                low[n] = min(low[n], index[m])
        if low[n] == index[n]:
            comp = []
            while True:
                m = stack.pop()
                on.discard(m)
                comp.append(m)
                if m == n:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for n in sorted(graph):
        if n not in index:
            visit(n)
    return sorted(out)


def nm_symbols(obj):
    """(defined, undefined) external symbol names of one object file, from `nm -P -g`."""
    res = subprocess.run(["nm", "-P", "-g", obj], capture_output=True, text=True, check=False)
    if res.returncode != 0:
        raise OSError(f"nm {obj}: {res.stderr.strip() or 'failed'}")
    defined, undefined = set(), set()
    for line in res.stdout.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind in ("U", "w", "v"):
            undefined.add(name)
        else:
            defined.add(name)
    return defined, undefined


def symbol_circles(top, objdir):
    """(problems, circles, nfiles, nedges): the file graph of checker/'s sources from their objects."""
    problems, defs, uses = [], {}, {}
    sources = []
    for dirpath, _, names in os.walk(top):
        for name in names:
            if name.endswith(".c"):
                sources.append(os.path.relpath(os.path.join(dirpath, name), top))
    sources.sort()
    for src in sources:
        obj = os.path.join(objdir, os.path.basename(os.path.abspath(top)), os.path.splitext(src)[0] + ".o")
        if not os.path.exists(obj):
            problems.append(f"{src}: no object {obj} (run make first)")
            continue
        if os.path.getmtime(obj) < os.path.getmtime(os.path.join(top, src)):
            problems.append(f"{src}: {obj} is older than its source (run make first)")
            continue
        try:
            defined, undefined = nm_symbols(obj)
        except OSError as e:
            problems.append(str(e))
            continue
        for sym in defined:
            defs.setdefault(sym, src)
        uses[src] = undefined
    graph, why = {s: set() for s in uses}, {}
    for src, undefined in uses.items():
        for sym in undefined:
            dst = defs.get(sym)
            if dst and dst != src:
                graph[src].add(dst)
                why.setdefault((src, dst), set()).add(sym)
    circles = []
    for comp in strong_components(graph):
        lines = [f"circle between {', '.join(comp)}:"]
        for a in comp:
            for b in comp:
                if (a, b) in why:
                    syms = sorted(why[(a, b)])
                    more = f" (+{len(syms) - 8} more)" if len(syms) > 8 else ""
                    lines.append(f"  {a} uses {b}'s {', '.join(syms[:8])}{more}")
        circles.append(lines)
    return problems, circles, len(uses), sum(len(v) for v in graph.values())


def readme_modules(top, readme):
    """Problems with the README's layer table: modules it leaves out, names that are not there."""
    import fnmatch
    problems, on = [], False
    with open(readme, encoding="utf-8") as f:
        lines = f.read().splitlines()
    rows = {}
    for line in lines:
        if line.startswith("### Layers"):
            on = True
            continue
        if on and line.startswith("#"):
            break
        m = re.match(r"^\| `([a-z/]+)/` \| ([^|]*) \|", line) if on else None
        if m:
            rows[m.group(1)] = re.findall(r"`([^`]+)`", m.group(2))
    for folder, names in sorted(rows.items()):
        path = os.path.join(top, folder)
        if not os.path.isdir(path):
            problems.append(f"README: `{folder}/` is not a folder of {top}/")
            continue
        files = sorted(n for n in os.listdir(path) if os.path.isfile(os.path.join(path, n)))
        stems = {os.path.splitext(n)[0] for n in files if n.endswith((".c", ".cc", ".h"))}
        for n in names:
            if "*" in n:
                ok = any(fnmatch.fnmatch(x, n) for x in stems)
            elif "." in n:
                ok = n in files
            else:
                ok = n in stems
            if not ok:
                problems.append(f"README: `{n}` in the row of `{folder}/` is no module or file there")
        for h in files:
            if h.endswith(".def") and h not in names:
                problems.append(f"README: the row of `{folder}/` leaves out `{h}`")
            if h.endswith(".h"):
                stem = h[:-2]
                if stem not in names and not any("*" in n and fnmatch.fnmatch(stem, n) for n in names):
                    problems.append(f"README: the row of `{folder}/` leaves out the module `{stem}` ({h})")
    return problems


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    dot = "--dot" in sys.argv
    objdir = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--objects=")), None)
    readme = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--readme=")), None)
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
    if readme is not None:
        rproblems = readme_modules(top, readme)
        report(not rproblems, f"{readme}'s layer table names every module of each folder, and only those",
               rproblems)
    if objdir is not None:
        sproblems, circles, nfiles, nedges = symbol_circles(top, objdir)
        report(not sproblems, f"every source of {top}/ has an up-to-date object in {objdir}", sproblems)
        report(not circles, "no circle between files at the symbol level (nm of the objects)",
               [line for c in circles for line in c])
        print(f"# {nfiles} objects; {nedges} file edges at the symbol level; {len(circles)} circles")
    return failed


if __name__ == "__main__":
    sys.exit(main())
