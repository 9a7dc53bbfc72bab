#!/usr/bin/env python3
"""survey_init.py WHEEL...: each torch release's own DLL procedure, read from
the wheel's torch/__init__.py and its METADATA (zipfile: only those two
members are read, never the whole wheel).

Prints one line per wheel (matrix/evidence/torch-win_amd64-init.txt is this
output, committed; `make wheels-survey` does not run it, survey.sh's fetch
loop does — see below):

    VERSION FILE folders=lib,prefix,base_prefix[,userbase][,prefix_bin]
      nvtx=yes|no vcruntime140_1=always|not-arm64|not-cuda-9.2-10.0
      add=os.add_dll_directory[+kernel32.AddDllDirectory] glob=*.dll
      flags=0x00001100 fallback=PATH+LoadLibraryW anchor=__file__|torch._C
      lines=dll_paths:N,userbase:N,prefix_bin:N,add:N,probe:N,glob:N,load:N,path:N,retry:N
      requires_windows=DIST SPEC;...|none

(one line; wrapped here). `lines` are 1-based lines of that release's
torch/__init__.py; docs/loader.md §2.1 cites them. A statement the reader
cannot find is `?`: the survey says so instead of guessing, and the matrix's
`torch_load` entry must be checked by hand against that release
(tests/unit/test_torchproc.c checks every line here against the entries).
"""
import re
import sys
import zipfile


def block(src):
    """The lines of the Windows DLL procedure: the win32 guard (or def) to SetErrorMode(prev_error_mode)."""
    start = None
    for i, line in enumerate(src):
        if start is None and re.match(r"\s*(if sys\.platform == ['\"]win32['\"]|def _load_dll_libraries)", line):
            if any("dll_paths" in x for x in src[i:i + 80]):
                start = i
        if start is not None and "SetErrorMode(prev_error_mode)" in line:
            return start, i
    return None, None


def survey(name, init, metadata):
    src = init.split("\n")
    s, e = block(src)
    if s is None:
        return "%s unreadable: no _load_dll_libraries block in torch/__init__.py" % name
    lines = src[s:e + 1]
    code = "\n".join(re.sub(r"#.*", "", x) for x in lines).replace("'", '"')
    flat = re.sub(r"\s+", " ", code)

    def at(pat):
        for i in range(s, e + 1):
            if re.search(pat, src[i]):
                return str(i + 1)
        return "?"

    m = re.search(r"dll_paths = (?:list\(filter\(os\.path\.exists, \[(.*?)\]\)\)|\[ p for p in \((.*?)\) if os\.path\.exists\(p\) \])", flat)
    names = {"th_dll_path": "lib", "py_dll_path": "prefix", "base_py_dll_path": "base_prefix",
             "usebase_path": "userbase", "py_root_bin_path": "prefix_bin"}
    if m:
        folders = ",".join(names.get(x.strip(), "?" + x.strip()) for x in (m.group(1) or m.group(2)).split(",") if x.strip())
    else:
        folders = "?"
    nvtx = "yes" if "nvtoolsext_dll_path" in flat and re.search(r"for p in \(nvtoolsext_dll_path, cuda_path\)|\[nvtoolsext_dll_path, cuda_path\]", flat) else "no"
    if 'platform.machine() != "ARM64"' in flat:
        vc1 = "not-arm64"
    elif 'cuda_version not in ("9.2", "10.0")' in flat:
        vc1 = "not-cuda-9.2-10.0"
    else:
        vc1 = "always"
    add = "os.add_dll_directory" + ("+kernel32.AddDllDirectory" if "kernel32.AddDllDirectory(dll_path)" in flat else "")
    glob = ",".join(re.findall(r'glob\.glob\(os\.path\.join\(th_dll_path, "([^"]+)"\)\)', flat)) or "?"
    flags = ",".join(re.findall(r"LoadLibraryExW\(dll, None, (0x[0-9a-fA-F]+)\)", flat)) or "?"
    fb = "PATH+LoadLibraryW" if ('os.environ["PATH"] = ";".join(dll_paths + [os.environ["PATH"]])' in flat
                                 and "kernel32.LoadLibraryW(dll)" in flat) else "?"
    anchor = "torch._C" if 'find_spec("torch._C")' in flat else "__file__"
    ln = ",".join("%s:%s" % kv for kv in [
        ("dll_paths", at(r"dll_paths = ")), ("userbase", at(r"usebase_path = ")),
        ("prefix_bin", at(r"py_root_bin_path = ")), ("add", at(r"add_dll_directory\(dll_path\)")),
        ("probe", at(r"CDLL\(.vcruntime140\.dll.\)")), ("glob", at(r"glob\.glob\(os\.path\.join\(th_dll_path")),
        ("load", at(r"LoadLibraryExW\(dll")), ("path", at(r"os\.environ\[.PATH.\] =")),
        ("retry", at(r"kernel32\.LoadLibraryW\(dll\)"))])
    req = []
    for line in metadata.split("\n"):
        mm = re.match(r"Requires-Dist:\s*([A-Za-z0-9_.-]+)\s*([^;]*?)\s*;\s*(.*)$", line)
        if mm and re.search(r"platform_system\s*==\s*['\"]Windows['\"]|sys_platform\s*==\s*['\"]win32['\"]", mm.group(3)):
            req.append("%s%s" % (mm.group(1), mm.group(2).replace(" ", "")))
    ver = re.match(r"torch-([^-]+)-", name)
    return "%s %s folders=%s nvtx=%s vcruntime140_1=%s add=%s glob=%s flags=%s fallback=%s anchor=%s lines=%s requires_windows=%s" % (
        ver.group(1) if ver else "?", name, folders, nvtx, vc1, add, glob, flags, fb, anchor, ln,
        ";".join(req) if req else "none")


def main(argv):
    for whl in argv[1:]:
        z = zipfile.ZipFile(whl)
        meta = [n for n in z.namelist() if re.fullmatch(r"torch-[^/]+\.dist-info/METADATA", n)]
        init = z.read("torch/__init__.py").decode("utf-8", "replace")
        print(survey(whl.split("/")[-1], init, z.read(meta[0]).decode("utf-8", "replace") if meta else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
