#!/usr/bin/python3
"""compare.py: `torch-dll-check pe --json` against the reference PE readers.

usage: /usr/bin/python3 compare.py --bin TORCH_DLL_CHECK [--label NAME] FILE...|@LISTFILE

For every file, compares with llvm-readobj (--file-headers --coff-imports
--coff-exports --coff-load-config, many files per invocation):
  - machine (COFF header code), PE32/PE32+, the DLL characteristic
  - imports: DLL names in directory order; per DLL the functions in thunk
    order, by name (with hint) or by ordinal
  - delay imports: the same
  - exports: every used slot of the address table: ordinal, name, RVA; a slot
    whose RVA falls inside the export directory is a forwarder
  - DependentLoadFlags (llvm-readobj prints it when the load config is big
    enough to hold it; otherwise we expect null)
llvm-readobj 14 prints no forwarder strings and rejects a few files (Wine's
http.sys): for those files only, mingw objdump -p (pefile for the arm64
files objdump cannot read) supplies forwarder strings,
imports and exports (and, for the files it reads, the export DLL name and the
ordinal base). objdump 2.40 does not list delay imports: for a file only
objdump can read, pefile supplies them.
Version resources are cross-checked against python3-pefile (fast_load + the
resource directory): present or absent, fixed FileVersion/ProductVersion, and
every StringFileInfo value the checker reports.

Unused export slots (RVA 0, no name) are not listed by the checker and are
dropped from llvm-readobj's list before comparing.

Prints one "DIFF <file>: <what>: checker=<x> reference=<y>" line per
difference (capped, the count is exact), then a "TOTAL" line, and exits 1 on
any difference, 2 when a reference tool itself could not run.
"""
import concurrent.futures as cf
import json
import os
import re
import subprocess
import sys
import time

LLVM = "llvm-readobj"
OBJDUMP = "x86_64-w64-mingw32-objdump"
CHUNK = 200
MAX_DIFFS = 200


def chunks(seq, n):
    for i in range(0, len(seq), n):
        yield seq[i:i + n]


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode("utf-8", "surrogateescape"), \
        p.stderr.decode("utf-8", "surrogateescape")


# ---- torch-dll-check pe --json ----

def checker(binary, files):
    rc, out, err = run([binary, "pe", "--json"] + files)
    if rc not in (0, 2):
        raise SystemExit("compare: %s pe --json exited %d: %s" % (binary, rc, err[-2000:]))
    try:
        j = json.loads(out)
    except ValueError as e:
        raise SystemExit("compare: %s pe --json printed invalid JSON (%s); stderr: %s"
                         % (binary, e, err[-2000:]))
    if j.get("schema") != "torch-dll-check/pe/v1":
        raise SystemExit("compare: unexpected schema %r" % j.get("schema"))
    return {f["path"]: f for f in j["files"]}


# ---- llvm-readobj ----

RE_SYM = re.compile(r"^\s*Symbol: (.*) \((\d+)\)$")
RE_ERR = re.compile(r"^llvm-readobj: error: '(.*)': (.*)$")


def llvm(files):
    """llvm-readobj stops at the first file it cannot read: the files after it
    get no output, so they go round again in a new invocation."""
    res, failed = {}, {}
    todo = list(files)
    while todo:
        r, f = llvm_once(todo)
        res.update(r)
        hard = {k: v for k, v in f.items() if v != "no output"}
        failed.update(hard)
        nxt = [x for x in todo if x not in r and x not in hard]
        if not hard and nxt:  # no progress and no reason: give up on them
            failed.update({x: "no output" for x in nxt})
            break
        todo = nxt
    return res, failed


def llvm_once(files):
    rc, out, err = run([LLVM, "--file-headers", "--coff-imports", "--coff-exports",
                        "--coff-load-config"] + files)
    res = {}
    failed = {}
    for line in err.splitlines():
        m = RE_ERR.match(line)
        if m:
            failed[m.group(1)] = m.group(2)
    cur = None
    block = None      # "import", "delay", "delayimport", "export", "loadconfig", None
    item = None
    for line in out.splitlines():
        if line.startswith("File: "):
            cur = {"machine": None, "imports": [], "delay": [], "exports": [],
                   "exp_rva": 0, "exp_size": 0, "dlf": None, "format": None, "dll": None}
            res[line[6:]] = cur
            block = None
            continue
        if cur is None:
            continue
        s = line.strip()
        if line.startswith("Import {"):
            item = {"dll": None, "funcs": []}
            cur["imports"].append(item)
            block = "import"
        elif line.startswith("DelayImport {"):
            item = {"dll": None, "funcs": []}
            cur["delay"].append(item)
            block = "delay"
        elif line.startswith("Export {"):
            item = {"ordinal": None, "name": "", "rva": None}
            cur["exports"].append(item)
            block = "export"
        elif line.startswith("LoadConfig ["):
            block = "loadconfig"
        elif line.startswith("}") or line.startswith("]"):
            block = None
        elif block is None:
            if s.startswith("Machine: ") and cur["machine"] is None:
                cur["machine"] = int(s.rsplit("(", 1)[1].rstrip(")"), 16)
            elif s.startswith("Characteristics [ (") and cur["dll"] is None:
                # the first Characteristics is the COFF header's
                cur["dll"] = bool(int(s[len("Characteristics [ ("):].rstrip(")"), 16) & 0x2000)
            elif s in ("Magic: 0x10B", "Magic: 0x20B"):
                cur["format"] = "PE32" if s.endswith("10B") else "PE32+"
            elif s.startswith("ExportTableRVA: "):
                cur["exp_rva"] = int(s.split()[1], 16)
            elif s.startswith("ExportTableSize: "):
                cur["exp_size"] = int(s.split()[1], 16)
        elif block in ("import", "delay"):
            if line.startswith("  Name: "):
                item["dll"] = line[8:]
            else:
                m = RE_SYM.match(line)
                if m:
                    name, num = m.group(1), int(m.group(2))
                    item["funcs"].append(("name", name, num) if name else ("ord", num))
        elif block == "export":
            if s.startswith("Ordinal: "):
                item["ordinal"] = int(s[9:])
            elif line.startswith("  Name: ") or s == "Name:":
                item["name"] = line[8:] if line.startswith("  Name: ") else ""
            elif s.startswith("RVA: "):
                item["rva"] = int(s[5:], 16)
        elif block == "loadconfig":
            if s.startswith("DependentLoadFlags: "):
                cur["dlf"] = int(s.split()[1], 16)
    for f in files:
        if f not in res and f not in failed:
            failed[f] = "no output"
    for f in failed:
        res.pop(f, None)
    return res, failed


# ---- objdump -p (fallback and forwarder strings) ----

def objdump(files):
    rc, out, err = run([OBJDUMP, "-p"] + files)
    res = {}
    cur = None
    sect = None
    dll = None
    base = 0
    for line in out.splitlines():
        m = re.match(r"^(.*):\s+file format (\S+)$", line)
        if m and (m.group(1) in files):
            cur = {"imports": [], "exports": {}, "names": {}, "dll_name": None, "base": None,
                   "has_exports": False}
            res[m.group(1)] = cur
            sect = None
            continue
        if cur is None:
            continue
        if line.startswith("The Import Tables"):
            sect = "imp"
            continue
        if line.startswith("The Export Tables"):
            sect = "exp"
            cur["has_exports"] = True
            continue
        if line.startswith("PE File Base Relocations") or line.startswith("The Function Table") \
                or line.startswith("Private flags") or line.startswith("Sections:") \
                or line.startswith("The Debug Directory"):
            sect = None
            continue
        if sect == "imp":
            m = re.match(r"^\tDLL Name: (.*)$", line)
            if m:
                dll = {"dll": m.group(1), "funcs": []}
                cur["imports"].append(dll)
                continue
            m = re.match(r"^\t([0-9a-f]+)\t\s*([0-9a-f]+)\s+(.*)$", line)
            if m and dll is not None and not line.startswith("\tvma:"):
                rest = m.group(3)
                if rest.startswith("<none>"):
                    cur_ord = int(m.group(2), 16)
                    dll["funcs"].append(("ord", cur_ord))
                else:
                    # "hint  name" (decimal hint) or, for an ordinal, "ordinal <none>"
                    dll["funcs"].append(("name", rest.split(" <")[0].strip(), int(m.group(2))))
        elif sect == "exp":
            m = re.match(r"^Name \s*[0-9a-f]+ (.*)$", line)
            if m:
                cur["dll_name"] = m.group(1)
                continue
            m = re.match(r"^Ordinal Base\s+(\d+)$", line)
            if m:
                base = int(m.group(1))
                cur["base"] = base
                continue
            m = re.match(r"^\t\[\s*(\d+)\] \+base\[\s*(\d+)\] ([0-9a-f]+) (Export|Forwarder) RVA(?: -- (.*))?$", line)
            if m:
                cur["exports"][int(m.group(2))] = (int(m.group(3), 16), m.group(5))
                continue
            m = re.match(r"^\t\[\s*(\d+)\] (.*)$", line)
            if m:
                cur["names"].setdefault(int(m.group(1)) + (cur["base"] or 0), m.group(2))
    return res


# ---- pefile ----

def pefile_parsed(files, entry):
    """Each file as pefile reads it with only the data directory `entry`
    parsed: (path, PE, None), closed once the caller moves on, or (path,
    None, error) where pefile rejects the file (no opinion on it)."""
    import pefile
    dd = pefile.DIRECTORY_ENTRY[entry]
    for f in files:
        try:
            p = pefile.PE(f, fast_load=True)
            p.parse_data_directories(directories=[dd])
        except Exception as e:
            yield f, None, e
            continue
        try:
            yield f, p, None
        finally:
            p.close()


def pefile_versions(files):
    out = {}
    for f, p, err in pefile_parsed(files, "IMAGE_DIRECTORY_ENTRY_RESOURCE"):
        if err is not None:
            out[f] = ("error", str(err))
            continue
        v = None
        if hasattr(p, "VS_FIXEDFILEINFO") and p.VS_FIXEDFILEINFO:
            ffi = p.VS_FIXEDFILEINFO[0]
            ver = lambda ms, ls: "%d.%d.%d.%d" % (ms >> 16, ms & 0xffff, ls >> 16, ls & 0xffff)
            strings = {}
            for fi in getattr(p, "FileInfo", []) or []:
                for st in fi:
                    for t in getattr(st, "StringTable", []) or []:
                        for k, val in t.entries.items():
                            strings.setdefault(k.decode("utf-8", "replace"), set()).add(
                                val.decode("utf-8", "replace"))
            v = {"file_version": ver(ffi.FileVersionMS, ffi.FileVersionLS),
                 "product_version": ver(ffi.ProductVersionMS, ffi.ProductVersionLS),
                 "strings": strings}
        out[f] = ("ok", v)
    return out


def pefile_delay(files):
    """Delay imports as pefile reads them, for the files only objdump reads
    (objdump 2.40 does not list delay imports)."""
    out = {}
    for f, p, err in pefile_parsed(files, "IMAGE_DIRECTORY_ENTRY_DELAY_IMPORT"):
        if err is not None:
            continue
        lst = []
        for d in getattr(p, "DIRECTORY_ENTRY_DELAY_IMPORT", []) or []:
            funcs = []
            for imp in d.imports:
                if imp.import_by_ordinal:
                    funcs.append(("ord", imp.ordinal))
                else:
                    funcs.append(("name", imp.name.decode("utf-8", "replace"), imp.hint))
            lst.append({"dll": d.dll.decode("utf-8", "replace"), "funcs": funcs})
        out[f] = lst
    return out


def pefile_exports(files):
    """Export DLL name, base and forwarder strings as pefile reads them, for
    files objdump cannot read either (mingw objdump knows no arm64)."""
    out = {}
    for f, p, err in pefile_parsed(files, "IMAGE_DIRECTORY_ENTRY_EXPORT"):
        if err is not None:
            continue
        e = getattr(p, "DIRECTORY_ENTRY_EXPORT", None)
        if e is not None:
            out[f] = {"imports": [], "names": {}, "has_exports": True,
                      "dll_name": e.name.decode("utf-8", "replace") if e.name else None,
                      "base": e.struct.Base,
                      "exports": {s.ordinal: (s.address, s.forwarder.decode("utf-8", "replace"))
                                  for s in e.symbols if s.forwarder}}
    return out


# ---- comparison ----

class Diffs:
    def __init__(self):
        self.n = 0
        self.lines = []

    def add(self, path, what, mine, ref):
        self.n += 1
        if len(self.lines) < MAX_DIFFS:
            self.lines.append("DIFF %s: %s: checker=%s reference=%s" % (path, what, mine, ref))


def pe_funcs(funcs):
    r = []
    for fn in funcs:
        if "ordinal" in fn and "name" not in fn:
            r.append(("ord", fn["ordinal"]))
        else:
            r.append(("name", fn.get("name"), fn.get("hint")))
    return r


def compare_imports(d, path, kind, mine, ref, totals):
    mine = mine or []
    if [x["dll"] for x in mine] != [x["dll"] for x in ref]:
        d.add(path, kind + " DLLs", [x["dll"] for x in mine], [x["dll"] for x in ref])
        return
    for a, b in zip(mine, ref):
        fa = pe_funcs(a["functions"])
        fb = b["funcs"]
        totals[kind] += len(fb)
        if fa != fb:
            # name the first differing entry precisely
            for i in range(max(len(fa), len(fb))):
                x = fa[i] if i < len(fa) else None
                y = fb[i] if i < len(fb) else None
                if x != y:
                    d.add(path, "%s %s entry %d (of %d/%d)" % (kind, a["dll"], i, len(fa), len(fb)), x, y)
                    break


def compare_file(d, path, pe, ref, od, totals, source):
    if pe.get("error"):
        d.add(path, "parse", "error: " + pe["error"], "parsed by " + source)
        return
    if ref.get("machine") is not None and pe["machine_code"] != ref["machine"]:
        d.add(path, "machine", hex(pe["machine_code"]), hex(ref["machine"]))
    if ref.get("format") is not None and pe.get("format") != ref["format"]:
        d.add(path, "format", pe.get("format"), ref["format"])
    if ref.get("dll") is not None and pe.get("dll") != ref["dll"]:
        d.add(path, "dll", pe.get("dll"), ref["dll"])
    compare_imports(d, path, "imports", pe.get("imports"), ref["imports"], totals)
    if ref.get("delay") is not None:
        compare_imports(d, path, "delay-imports", pe.get("delay_imports"), ref["delay"], totals)
    else:
        totals["delay-unchecked"] += sum(len(x["functions"]) for x in pe.get("delay_imports") or [])
    # exports
    exp = pe.get("exports")
    mine = {}
    if exp:
        for e in exp["entries"]:
            if e["ordinal"] in mine:
                d.add(path, "export ordinal %d listed twice" % e["ordinal"], e, mine[e["ordinal"]])
            mine[e["ordinal"]] = e
    theirs = [e for e in ref["exports"] if e["rva"] or e["name"]]
    lo, hi = ref.get("exp_rva", 0), ref.get("exp_rva", 0) + ref.get("exp_size", 0)
    if od is not None and exp is not None and od["has_exports"]:
        if od["dll_name"] is not None and exp.get("dll_name") != od["dll_name"]:
            d.add(path, "export DLL name", exp.get("dll_name"), od["dll_name"])
        if od["base"] is not None and exp.get("ordinal_base") != od["base"]:
            d.add(path, "export ordinal base", exp.get("ordinal_base"), od["base"])
    seen = set()
    for e in theirs:
        o = e["ordinal"]
        seen.add(o)
        totals["exports"] += 1
        m = mine.get(o)
        if m is None:
            d.add(path, "export ordinal %d" % o, "absent", e)
            continue
        if (m.get("name") or "") != e["name"]:
            d.add(path, "export ordinal %d name" % o, m.get("name"), e["name"] or None)
        fwd = e.get("forwarder")
        if fwd is None and lo <= e["rva"] < hi and hi > lo:
            fwd = True  # llvm-readobj: a forwarder, string unknown without objdump
            if od is not None and o in od["exports"]:
                fwd = od["exports"][o][1]
        if fwd:
            totals["forwarders"] += 1
            if "forwarder" not in m:
                d.add(path, "export ordinal %d" % o, "rva %s" % m.get("rva"), "forwarder %s" % fwd)
            elif fwd is not True and m["forwarder"] != fwd:
                d.add(path, "export ordinal %d forwarder" % o, m["forwarder"], fwd)
            elif fwd is True:
                totals["forwarders-unverified"] += 1
        else:
            if "forwarder" in m:
                d.add(path, "export ordinal %d" % o, "forwarder %s" % m["forwarder"], "rva %#x" % e["rva"])
            elif m.get("rva") != e["rva"]:
                d.add(path, "export ordinal %d rva" % o, m.get("rva"), e["rva"])
    for o in sorted(set(mine) - seen):
        d.add(path, "export ordinal %d" % o, mine[o], "absent")
    if exp is None and theirs:
        d.add(path, "exports", None, "%d entries" % len(theirs))
    if "dlf" in ref and ref["dlf"] != pe.get("dependent_load_flags"):
        d.add(path, "dependent_load_flags", pe.get("dependent_load_flags"), ref["dlf"])
    if ref.get("dlf") is not None:
        totals["dependent-load-flags"] += 1


def objdump_as_ref(od, delay):
    exports = []
    for o, (rva, fwd) in sorted(od["exports"].items()):
        exports.append({"ordinal": o, "name": od["names"].get(o, ""), "rva": rva, "forwarder": fwd})
    return {"machine": None, "imports": od["imports"], "delay": delay, "exports": exports}


def compare_version(d, path, pe, pf, totals):
    status, v = pf
    if status != "ok":
        totals["version-pefile-error"] += 1
        return
    mine = pe.get("version")
    if v is None:
        if mine is not None:
            d.add(path, "version", mine, None)
        return
    totals["versions"] += 1
    if mine is None:
        d.add(path, "version", None, {"file_version": v["file_version"]})
        return
    for k in ("file_version", "product_version"):
        if mine.get(k) != v[k]:
            d.add(path, "version " + k, mine.get(k), v[k])
    for k, val in (mine.get("strings") or {}).items():
        if val is None:
            if k in v["strings"]:
                d.add(path, "version string " + k, None, sorted(v["strings"][k]))
            continue
        totals["version-strings"] += 1
        if val not in v["strings"].get(k, set()):
            d.add(path, "version string " + k, val, sorted(v["strings"].get(k, set())) or None)


def main(argv):
    binary = None
    label = "files"
    files = []
    i = 1
    while i < len(argv):
        a = argv[i]
        if a == "--bin":
            binary = argv[i + 1]
            i += 2
            continue
        if a == "--label":
            label = argv[i + 1]
            i += 2
            continue
        if a.startswith("@"):
            with open(a[1:]) as fh:
                files += [l for l in fh.read().split("\n") if l]
        else:
            files.append(a)
        i += 1
    if not binary or not files:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    files = [os.path.abspath(f) for f in files]
    t0 = time.time()
    pe, ref, failed = {}, {}, {}
    # Processes, not threads: the parsing is Python and the machine has 2 cores.
    with cf.ProcessPoolExecutor(max_workers=2) as ex:
        f_pe = [ex.submit(checker, binary, c) for c in chunks(files, CHUNK)]
        f_llvm = [ex.submit(llvm, c) for c in chunks(files, CHUNK)]
        f_pf = [ex.submit(pefile_versions, c) for c in chunks(files, CHUNK)]
        for fu in f_llvm:
            r, f = fu.result()
            ref.update(r)
            failed.update(f)
        need_od = [f for f in files if f in failed or
                   any(e["rva"] and ref[f]["exp_rva"] <= e["rva"] < ref[f]["exp_rva"] + ref[f]["exp_size"]
                       for e in ref[f]["exports"])]
        f_od = [ex.submit(objdump, c) for c in chunks(need_od, 20)]
        for fu in f_pe:
            pe.update(fu.result())
        od, pf = {}, {}
        for fu in f_od:
            od.update(fu.result())
        pdelay = pefile_delay([f for f in files if f in failed])
        od.update(pefile_exports([f for f in need_od if f not in od and f in ref]))
        for fu in f_pf:
            pf.update(fu.result())
    d = Diffs()
    totals = {k: 0 for k in ("imports", "delay-imports", "exports", "forwarders",
                             "forwarders-unverified", "delay-unchecked", "dependent-load-flags",
                             "versions", "version-strings", "version-pefile-error")}
    nfiles = 0
    import_dlls = 0
    both_reject = []
    for f in files:
        p = pe.get(f)
        if p is None:
            d.add(f, "checker output", "missing", "")
            continue
        if f in ref:
            compare_file(d, f, p, ref[f], od.get(f), totals, "llvm-readobj")
        elif f in od:
            compare_file(d, f, p, objdump_as_ref(od[f], pdelay.get(f)), od[f], totals,
                         "objdump (llvm-readobj: %s)" % failed.get(f))
        else:
            # No reference reads it: the checker must reject it too.
            both_reject.append(f)
            if not p.get("error"):
                d.add(f, "parse", "parsed", "rejected by llvm-readobj and objdump")
            continue
        nfiles += 1
        import_dlls += len(p.get("imports") or []) + len(p.get("delay_imports") or [])
        compare_version(d, f, p, pf[f], totals)
    for line in d.lines:
        print(line)
    if d.n > len(d.lines):
        print("... and %d more differences" % (d.n - len(d.lines)))
    via_od = sorted(f for f in files if f in od and f not in ref)
    for f in via_od:
        print("NOTE %s: llvm-readobj could not read it (%s); compared with objdump -p "
              "(delay imports with pefile)" % (f, failed.get(f)))
    print("TOTAL %s: %d files compared (%d via objdump only, %d rejected by every reader), "
          "%d import DLLs, %d import entries, %d delay-import entries, %d export entries "
          "(%d forwarders, %d forwarder strings unverified), %d DependentLoadFlags, "
          "%d version resources (%d strings), %d differences, %.1f s"
          % (label, nfiles, len(via_od), len(both_reject), import_dlls, totals["imports"],
             totals["delay-imports"], totals["exports"], totals["forwarders"],
             totals["forwarders-unverified"], totals["dependent-load-flags"], totals["versions"],
             totals["version-strings"], d.n, time.time() - t0))
    return 1 if d.n else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
