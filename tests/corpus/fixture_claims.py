#!/usr/bin/python3
"""fixture_claims.py PE_JSON: checks that the standard fixture set holds what
tests/lib/fixtures.sh says it holds (read through `pe --json`, which the
corpus comparison has just checked against llvm-readobj). Prints "ok" or
"missing: ..."."""
import json
import sys

with open(sys.argv[1]) as fh:
    j = {f["path"].rsplit("/", 1)[1]: f for f in json.load(fh)["files"]}
bad = []


def want(cond, what):
    if not cond:
        bad.append(what)


def entries(name):
    return (j[name].get("exports") or {}).get("entries") or []


for m in ("x64", "x86"):
    want(j[m + "_basic.dll"]["machine"] == m, m + " machine")
    want(any(e.get("forwarder") == "NTDLL.RtlAllocateHeap" for e in entries(m + "_forwarders.dll")), m + " forwarder")
    want(any(e.get("forwarder") == "other.#5" for e in entries(m + "_forwarders.dll")), m + " forwarder by ordinal")
    want(any(e["ordinal"] == 5 and "name" not in e for e in entries(m + "_ordinals.dll")), m + " ordinal-only export")
    want({"ordinal": 200} in j[m + "_ordinals.dll"]["imports"][0]["functions"], m + " import by ordinal")
    want([d["dll"] for d in j[m + "_delay.dll"]["delay_imports"]] == ["DirectML.dll", "d3d12.dll", "node.exe"], m + " delay imports")
    want({"ordinal": 101} in j[m + "_delay.dll"]["delay_imports"][1]["functions"], m + " delay import by ordinal")
    want((j[m + "_version.dll"]["version"] or {}).get("file_version") == "14.40.33810.0", m + " version")
    want(j[m + "_dlf.dll"]["dependent_load_flags"] == 0x800, m + " DependentLoadFlags")
    want(sorted(d["dll"] for d in j[m + "_msvc.dll"]["imports"]) ==
         ["KERNEL32.dll", "MSVCP140.dll", "VCRUNTIME140.dll", "api-ms-win-crt-heap-l1-1-0.dll",
          "api-ms-win-crt-runtime-l1-1-0.dll"], m + " msvc-like imports")
a = j["arm64_msvc.dll"]
want(a["machine"] == "arm64" and a["dependent_load_flags"] == 0x800 and
     [d["dll"] for d in a["delay_imports"]] == ["nvcuda.dll"] and
     (a["version"] or {}).get("file_version") == "14.40.33810.0" and
     any(e.get("forwarder") == "NTDLL.RtlAllocateHeap" for e in entries("arm64_msvc.dll")), "arm64")
want(j["x86_basic.dll"]["format"] == "PE32" and j["x64_basic.dll"]["format"] == "PE32+", "PE32/PE32+")
want(len(entries("x64_many_exports.dll")) == 5000, "5000 exports")
want(j["huge_1g.dll"]["overlay_size"] >= 1 << 30, "1 GiB overlay")
want(j["x64_mixed_case.dll"]["imports"][0]["dll"] == "kernel32.DLL", "mixed-case import")
want(j["x64_app.exe"]["dll"] is False and j["x64_app.exe"]["imports"][0]["dll"] == "x64_basic.dll", "exe")
print("ok" if not bad else "missing: " + ", ".join(bad))
