#!/usr/bin/env python3
"""gen_report.py KIND: writes a realistic torch-dll-check report v1 document
(docs/report-json.md) to stdout, for testing the renderers before and
independently of `check`.

KIND:
  fail240  torch 2.4.0+cpu whose fbgemm.dll imports libomp140.x86_64.dll,
           found nowhere (pytorch/pytorch#131662), plus shadowing warnings
           and a requirements.txt anchor
  many     the same install with 14 errors, 13 warnings and 12 notes (limits)
  evil     the failing install where every untrusted string carries workflow
           commands, escapes, CR/LF, Markdown and HTML
  pass     a clean 2.4.1 install
  warn     only warnings
  big      thousands of findings with long search traces (summary size cap)
  notes10  exactly 10 notes and nothing else
"""
import json
import sys

TORCH = "C:\\Python311\\Lib\\site-packages\\torch"
LIB = TORCH + "\\lib"

# torch 2.4.0 cpu wheel's torch\lib (subset, real names), in NTFS order.
DLLS = [
    "asmjit.dll", "c10.dll", "fbgemm.dll", "libiomp5md.dll", "libiompstubs5md.dll",
    "shm.dll", "torch.dll", "torch_cpu.dll", "torch_global_deps.dll", "torch_python.dll",
    "uv.dll",
]


def probes(leaf, extra=0):
    dirs = [(LIB, "DLL_LOAD_DIR"), ("C:\\Python311", "APPLICATION_DIR"),
            (LIB, "USER_DIRS"), ("C:\\Python311\\Library\\bin", "USER_DIRS"),
            ("C:\\Windows\\System32", "SYSTEM32")]
    for i in range(extra):
        dirs.append(("C:\\Tools\\bin%d\\very\\long\\path\\to\\make\\the\\trace\\long" % i, "PATH"))
    return [{"path": d + "\\" + leaf, "step": s, "result": "not found"} for d, s in dirs]


def base(version="2.4.0+cpu"):
    return {
        "schema": "torch-dll-check/report/v1",
        "tool": {"name": "torch-dll-check", "version": "0.1.0"},
        "status": "fail",
        "counts": {"errors": 0, "warnings": 0, "notes": 0, "installs": 1,
                   "binaries": len(DLLS) + 1, "binaries_failing": 0},
        "machine": {"source": "offline", "root": "/tmp/tree", "arch": "x64",
                    "api_set_schema": "C:\\Windows\\System32\\apisetschema.dll",
                    "known_dlls": "registry"},
        "matrix": {"sources": ["<embedded>/matrix/torch.yml"]},
        "inventory": {
            "redistributables": [{"arch": "x64", "version": "14.40.33810.0", "installed": True,
                                  "source": "HKLM\\SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes\\x64"}],
            "runtime_dlls": [
                {"name": "msvcp140.dll", "path": "C:\\Windows\\System32\\msvcp140.dll",
                 "machine": "x64", "file_version": "14.40.33810.0"},
                {"name": "vcruntime140.dll", "path": "C:\\Python311\\vcruntime140.dll",
                 "machine": "x64", "file_version": "14.36.32532.0"},
            ],
        },
        "installs": [{
            "torch_dir": TORCH,
            "host_path": "/tmp/tree/Python311/Lib/site-packages/torch",
            "version": version, "variant": "cpu", "arch": "x64",
            "python": "C:\\Python311\\python.exe",
            "status": "pass",
            "matrix_row": {"id": "torch-" + version.split("+")[0], "file": "<embedded>/matrix/torch.yml",
                           "line": 40, "col": 5,
                           "sources": ["https://github.com/pytorch/pytorch/issues/131662"]},
            "dll_paths": [LIB],
            "import_error": None,
            "binaries": [
                {"path": LIB + "\\" + d, "kind": "dll", "order": i, "flags": "0x1100",
                 "stage": "add_dll_directory", "winerror": 0, "outcome": "loads",
                 "leaf": None, "symbol": None, "chain": [d], "probes": []}
                for i, d in enumerate(DLLS)
            ] + [{"path": TORCH + "\\_C.cp311-win_amd64.pyd", "kind": "pyd", "order": len(DLLS),
                  "flags": "0x1100", "stage": "cpython", "winerror": 0, "outcome": "loads",
                  "leaf": None, "symbol": None, "chain": ["_C.cp311-win_amd64.pyd"], "probes": []}],
        }],
        "findings": [],
    }


def fail_fbgemm(doc, name="fbgemm.dll", leaf="libomp140.x86_64.dll"):
    inst = doc["installs"][0]
    b = next(b for b in inst["binaries"] if b["path"].endswith("\\fbgemm.dll"))
    b["path"] = LIB + "\\" + name
    b.update({"winerror": 126, "outcome": "missing-dll", "leaf": leaf, "stage": "path_fallback",
              "chain": [name, leaf], "probes": probes(leaf), "flags": "0x0"})
    inst["status"] = "fail"
    inst["import_error"] = {"winerror": 126, "text": "OSError: [WinError 126] The specified module could not be "
                            "found. Error loading \"%s\" or one of its dependencies." % b["path"]}
    doc["findings"].append({
        "rule": "missing-dll", "severity": "error", "winerror": 126,
        "title": "%s cannot load: %s is missing" % (name, leaf),
        "message": "%s imports %s, which is found nowhere on the search path: torch 2.4.0 wheels built "
                   "fbgemm with MSVC's LLVM OpenMP, which is not in the VC++ redistributable." % (name, leaf),
        "fix": "pip install torch==2.4.1 (bundles its OpenMP runtime), or copy %s from a Visual Studio "
               "install into torch\\lib" % leaf,
        "install": TORCH, "binary": b["path"], "leaf": leaf, "chain": [name, leaf],
        "probes": probes(leaf),
        "anchor": {"file": "requirements.txt", "line": 3, "col": 1},
    })
    doc["counts"]["binaries_failing"] += 1


def shadow(doc, dll, old, new):
    doc["findings"].append({
        "rule": "shadowed-dll", "severity": "warning", "winerror": 0,
        "title": "%s: an older copy (%s) shadows %s" % (dll, old, new),
        "message": "C:\\Python311\\%s (%s) is found before C:\\Windows\\System32\\%s (%s)." % (dll, old, dll, new),
        "fix": "Delete C:\\Python311\\%s or update Python." % dll,
        "install": TORCH, "binary": None, "leaf": dll, "chain": [],
        "probes": [{"path": "C:\\Python311\\" + dll, "step": "APPLICATION_DIR", "result": "found " + old},
                   {"path": "C:\\Windows\\System32\\" + dll, "step": "SYSTEM32", "result": "found " + new}],
        "anchor": None,
    })


def finish(doc):
    c = doc["counts"]
    c["errors"] = sum(f["severity"] == "error" for f in doc["findings"])
    c["warnings"] = sum(f["severity"] == "warning" for f in doc["findings"])
    c["notes"] = sum(f["severity"] == "note" for f in doc["findings"])
    doc["status"] = "fail" if c["errors"] else "warn" if c["warnings"] else "pass"
    return doc


def fail240():
    doc = base()
    fail_fbgemm(doc)
    shadow(doc, "vcruntime140.dll", "14.36.32532.0", "14.40.33810.0")
    doc["findings"].append({
        "rule": "openmp-not-redistributable", "severity": "error", "winerror": 0,
        "title": "libomp140.x86_64.dll is needed but is not in the VC++ redistributable",
        "message": "Only Visual Studio / Build Tools install libomp140.x86_64.dll; GitHub's windows images "
                   "have it, your users' machines will not.",
        "fix": "Upgrade to torch 2.4.1.", "install": TORCH, "binary": None,
        "leaf": "libomp140.x86_64.dll", "chain": [], "probes": [],
        "anchor": {"file": "requirements.txt", "line": 3, "col": 1},
    })
    return finish(doc)


def many():
    doc = fail240()
    rules_e = ["missing-entry-point", "missing-ordinal", "bad-arch", "unreadable", "runtime-too-old"]
    for i in range(11):
        r = rules_e[i % len(rules_e)]
        doc["findings"].append({
            "rule": r, "severity": "error", "winerror": 127 if r == "missing-entry-point" else 0,
            "title": "extra error %d (%s)" % (i, r), "message": "m%d" % i, "fix": "f%d" % i,
            "install": TORCH, "binary": None, "leaf": "x%d.dll" % i, "chain": [], "probes": [],
            "anchor": None})
    for i in range(12):
        shadow(doc, "dup%d.dll" % i, "1.0", "2.0")
    for i in range(12):
        doc["findings"].append({
            "rule": "known-issue", "severity": "note", "winerror": 0,
            "title": "note %d" % i, "message": "n%d" % i, "fix": None, "install": TORCH,
            "binary": None, "leaf": None, "chain": [], "probes": [],
            "anchor": {"file": "matrix/org.yml", "line": 10 + i, "col": 3}})
    return finish(doc)


EVIL = [
    "::error::pwned",
    "::add-mask::secret",
    "::set-output name=status::pass",
    "::stop-commands::x",
    "##[error]legacy",
    "##[set-output name=x;]y",
    "100%25 %0A%0D::warning::encoded",
    "line1\nline2\r::error::cr\r\n##[error]crlf",
    "  \t::notice::leading-space",
    "\u3000::error::ideographic space",
    "\x1b[2J\x1b]0;title\x07\u009b31m",
    "a|b`c`<script>alert(1)</script>**x**[l](javascript:alert(1))",
    "::endgroup::",
    "::save-state name=a::b",
    "C:\\evil,dir:x\\::debug::d.dll",
]


def evil():
    doc = fail240()
    e = " ".join(EVIL)
    doc["installs"][0]["version"] = "2.4.0::error::v"
    doc["installs"][0]["torch_dir"] = TORCH + "::error::dir"
    doc["installs"][0]["matrix_row"]["sources"].append("https://x.test/a\n::error::src")
    doc["inventory"]["runtime_dlls"][0]["path"] = "C:\\x\n::add-mask::inv"
    b = doc["installs"][0]["binaries"][0]
    b["path"] = LIB + "\\::error::b.dll"
    for i, s in enumerate(EVIL):
        doc["findings"].append({
            "rule": "missing-dll", "severity": ["error", "warning", "note"][i % 3], "winerror": 126,
            "title": s, "message": "message " + s, "fix": "fix " + s, "install": TORCH,
            "binary": LIB + "\\" + s, "leaf": s, "chain": [s, s],
            "probes": [{"path": s, "step": s, "result": s}],
            "anchor": {"file": s, "line": 1, "col": 1} if i % 2 else {"file": "req,ui re%s.txt", "line": 2,
                                                                      "col": 1}})
    doc["findings"][0]["message"] = e
    doc["findings"][0]["title"] = e
    return finish(doc)


def pass_():
    doc = base("2.4.1+cpu")
    return finish(doc)


def warn():
    doc = base("2.4.1+cpu")
    shadow(doc, "vcruntime140.dll", "14.36.32532.0", "14.40.33810.0")
    return finish(doc)


def big():
    doc = fail240()
    for i in range(3000):
        leaf = "missing%04d.dll" % i
        doc["findings"].append({
            "rule": "missing-dll", "severity": "error", "winerror": 126,
            "title": "ext%04d.pyd cannot load: %s is missing" % (i, leaf), "message": "x" * 200,
            "fix": "install it", "install": TORCH, "binary": LIB + "\\ext%04d.pyd" % i, "leaf": leaf,
            "chain": ["ext%04d.pyd" % i, leaf], "probes": probes(leaf, 6), "anchor": None})
    return finish(doc)


def notes10():
    doc = base("2.4.1+cpu")
    for i in range(10):
        doc["findings"].append({"rule": "known-issue", "severity": "note", "title": "note %d" % i,
                                "message": "n", "fix": None, "install": TORCH, "binary": None,
                                "leaf": None, "chain": [], "probes": [], "anchor": None})
    return finish(doc)


KINDS = {"fail240": fail240, "many": many, "evil": evil, "pass": pass_, "warn": warn, "big": big,
         "notes10": notes10}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in KINDS:
        sys.exit("usage: gen_report.py " + "|".join(KINDS))
    json.dump(KINDS[sys.argv[1]](), sys.stdout, indent=1)
    sys.stdout.write("\n")
