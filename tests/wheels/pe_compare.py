#!/usr/bin/python3
"""pe_compare.py BIN FILE...: our PE reader against llvm-readobj and pefile.

For each FILE, compares what `BIN pe --json` reports with what llvm-readobj
(--coff-imports --coff-exports) and pefile (Debian's python3-pefile) report:

  imports         per DLL in directory order: its name and every function,
                  by name (with hint) or by ordinal
  delay imports   the same for the delay-load directory
  exports         every (ordinal, name, RVA or forwarder) of the export table
  version         VS_FIXEDFILEINFO FileVersion and the string table's
                  FileVersion (pefile only: llvm-readobj does not decode it)

Prints one line per file: "same FILE (n imports, n exports)" or
"DIFF FILE: what/tool: first difference"; exits 1 when any file differs.
Known, explained differences, normalised here rather than hidden:
  - pefile's defaults cap what it reads (8192 exports, 8192 imports, names
    of 512 bytes: pefile.py MAX_SYMBOL_EXPORT_COUNT, MAX_IMPORT_SYMBOLS,
    MAX_SYMBOL_NAME_LENGTH); torch_cpu.dll exceeds all three (57k+ exports,
    C++ names over 512 bytes), so the caps are lifted below;
  - llvm-readobj prints every slot of the export address table, including
    unused ones (RVA 0, no name: libiomp5md.dll has gaps of ordinals); the
    loader never binds those and neither our reader nor pefile lists them,
    so they are dropped from llvm-readobj's list;
  - llvm-readobj prints the hint of an imported name only for the import
    directory in some versions: names (and ordinals) are compared with it,
    names with hints with pefile.
"""
import json
import re
import subprocess
import sys

import pefile


def ours(binary, path):
    out = subprocess.run([binary, "pe", "--json", path], stdout=subprocess.PIPE, check=True).stdout
    f = json.loads(out)["files"][0]
    if f.get("error"):
        raise RuntimeError(f["error"])

    def imps(lst):
        return [(d["dll"], [(x["name"], x.get("hint")) if x.get("name") is not None else ("#%d" % x["ordinal"], None)
                            for x in d["functions"]]) for d in lst or []]

    exps = set()
    ex = f.get("exports") or {}
    for e in ex.get("entries", []):
        if e.get("forwarder"):
            exps.add((e["ordinal"], e.get("name"), "fwd:" + e["forwarder"]))
        elif e.get("rva"):
            exps.add((e["ordinal"], e.get("name"), e["rva"]))
    ver = f.get("version") or {}
    return {
        "imports": imps(f.get("imports")),
        "delay": imps(f.get("delay_imports")),
        "exports": exps,
        "version": (ver.get("file_version"), (ver.get("strings") or {}).get("FileVersion")),
    }


def readobj(path):
    txt = subprocess.run(["llvm-readobj", "--coff-imports", "--coff-exports", path], stdout=subprocess.PIPE,
                         check=True, text=True, errors="replace").stdout
    imports, delay, exps = [], [], set()
    cur = None
    exp = None
    nested = False  # DelayImport blocks hold one "Import { Symbol, Address }" per function
    for line in txt.splitlines():
        s = line.strip()
        if cur is not None and cur[1] and s == "Import {":
            nested = True
            continue
        if nested and s == "}":
            nested = False
            continue
        if s in ("Import {", "DelayImport {"):
            cur = ([], s.startswith("Delay"))
            continue
        if s == "Export {":
            exp = {}
            continue
        if s == "}":
            if cur is not None:
                (delay if cur[1] else imports).append(cur[0][0] if cur[0] else None)
                cur = None
            if exp is not None:
                fwd = exp.get("fwd")
                if fwd or exp.get("rva") or exp.get("name"):
                    exps.add((exp["ord"], exp.get("name"), "fwd:" + fwd if fwd else exp.get("rva", 0)))
                exp = None
            continue
        if cur is not None:
            if s.startswith("Name: ") and not cur[0]:
                cur[0].append((s[6:], []))
            m = re.fullmatch(r"Symbol: (.*) \((\d+)\)", s)
            if m and cur[0]:
                name = m.group(1).strip()
                cur[0][0][1].append((name, int(m.group(2))) if name else ("#%d" % int(m.group(2)), None))
        elif exp is not None:
            if s.startswith("Ordinal: "):
                exp["ord"] = int(s[9:])
            elif s.startswith("Name: "):
                exp["name"] = s[6:] or None
            elif s.startswith("RVA: "):
                exp["rva"] = int(s[5:], 16)
            elif s.startswith("ForwardedTo: "):
                exp["fwd"] = s[13:]
    return {"imports": imports, "delay": delay, "exports": exps}


def with_pefile(path):
    pefile.MAX_SYMBOL_NAME_LENGTH = pefile.MAX_IMPORT_NAME_LENGTH = 1 << 16
    pefile.MAX_IMPORT_SYMBOLS = 1 << 24
    pe = pefile.PE(path, fast_load=True, max_symbol_exports=1 << 24)
    pe.parse_data_directories(directories=[pefile.DIRECTORY_ENTRY[d] for d in (
        "IMAGE_DIRECTORY_ENTRY_IMPORT", "IMAGE_DIRECTORY_ENTRY_EXPORT", "IMAGE_DIRECTORY_ENTRY_DELAY_IMPORT",
        "IMAGE_DIRECTORY_ENTRY_RESOURCE")])

    def imps(entries):
        out = []
        for d in entries or []:
            fn = []
            for i in d.imports:
                if i.import_by_ordinal:
                    fn.append(("#%d" % i.ordinal, None))
                else:
                    fn.append((i.name.decode("latin-1"), i.hint))
            out.append((d.dll.decode("latin-1"), fn))
        return out

    exps = set()
    if hasattr(pe, "DIRECTORY_ENTRY_EXPORT"):
        for s in pe.DIRECTORY_ENTRY_EXPORT.symbols:
            name = s.name.decode("latin-1") if s.name else None
            if s.forwarder:
                exps.add((s.ordinal, name, "fwd:" + s.forwarder.decode("latin-1")))
            elif s.address:
                exps.add((s.ordinal, name, s.address))
    fixed = strv = None
    for fi in getattr(pe, "VS_FIXEDFILEINFO", None) or []:
        fixed = "%d.%d.%d.%d" % (fi.FileVersionMS >> 16, fi.FileVersionMS & 0xffff, fi.FileVersionLS >> 16,
                                 fi.FileVersionLS & 0xffff)
    for fi in getattr(pe, "FileInfo", None) or []:
        for entry in fi:
            for st in getattr(entry, "StringTable", []):
                v = st.entries.get(b"FileVersion")
                if v is not None and strv is None:
                    strv = v.decode("utf-8", "replace")
    return {"imports": imps(getattr(pe, "DIRECTORY_ENTRY_IMPORT", None)),
            "delay": imps(getattr(pe, "DIRECTORY_ENTRY_DELAY_IMPORT", None)),
            "exports": exps, "version": (fixed, strv)}


def first_diff(a, b):
    if isinstance(a, set):
        d1, d2 = sorted(a - b, key=str)[:2], sorted(b - a, key=str)[:2]
        return "only ours: %s; only theirs: %s (%d vs %d)" % (d1, d2, len(a), len(b))
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return "item %d: ours %r, theirs %r" % (i, str(x)[:200], str(y)[:200])
    return "lengths %d vs %d" % (len(a), len(b))


def main(argv):
    binary, files = argv[1], argv[2:]
    bad = 0
    for path in files:
        o = ours(binary, path)
        r = readobj(path)
        p = with_pefile(path)
        diffs = []
        # llvm-readobj prints no hint for delay imports' names the same way: compare names only there
        for what in ("imports", "delay", "exports"):
            for tool, t in (("llvm-readobj", r), ("pefile", p)):
                a, b = o[what], t[what]
                if what == "delay" or tool == "llvm-readobj" and what == "imports":
                    a = [(d, [n for n, _ in f]) for d, f in a]
                    b = [(d, [n for n, _ in f]) for d, f in b]
                if a != b:
                    diffs.append("%s/%s: %s" % (what, tool, first_diff(a, b)))
        if o["version"] != p["version"]:
            diffs.append("version/pefile: ours %s, pefile %s" % (o["version"], p["version"]))
        if diffs:
            bad = 1
            print("DIFF %s: %s" % (path, " | ".join(diffs)))
        else:
            print("same %s (%d import DLLs, %d delay, %d exports, version %s)" % (
                path, len(o["imports"]), len(o["delay"]), len(o["exports"]), o["version"][0]))
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv))
