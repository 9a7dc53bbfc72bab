#!/usr/bin/python3
"""compare.py: Wine's verdicts vs the expected table vs the checker's report.

    compare.py RUN_DIR EXPECTED_TSV            print TAP-like ok / not ok lines
    compare.py RUN_DIR EXPECTED_TSV --record   print the table as Wine says it

RUN_DIR is what tests/scenarios/run.sh wrote. For every scenario and every
binary the oracle loaded (torch\\lib\\*.dll in load order, then the .pyd
files) this script derives:

  wine     what Wine did: GetLastError() of the last attempt, the stage
           (add_dll_directory / path_fallback / cpython), plus what Wine
           printed with WINEDEBUG=warn+module inside the binary's
           "@@oracle begin N" … "@@oracle end N" window;
  windows  what Windows does, i.e. `wine` corrected by the documented
           differences in WINE_VS_WINDOWS below (one table, with sources);

and checks, each as one line:
  1. `windows` equals the committed table (tests/scenarios/expected.tsv):
     the oracle and the fixtures still say what was reviewed;
  2. when the checker ran (RUN_DIR/<s>.check.json): its winerror and stage
     equal `windows`; for failing binaries its leaf, symbol, chain and probes
     equal the table's expectations; it reports no binary the oracle did not
     load and misses none. Every mismatch names scenario, binary, the
     checker's verdict and Wine's.

Paths: the oracle ran with the tree as drive T: (the real C:\\windows kept),
the checker with the tree as C:\\. Both are compared as C:\\ paths,
case-insensitively.
"""
import json
import os
import re
import sys

# ---------------------------------------------------------------------------
# Where Wine 8 differs from Windows, and what Windows does (the checker must
# follow Windows). Each entry: id, what Wine does, what Windows does, sources.
WINE_VS_WINDOWS = [
    {
        "id": "W1-dependency-status",
        "wine": "any failure to load a dependency (wrong architecture c000007b, "
                "0-byte/not-PE c0000020, a folder of that name c00000ba) is turned into STATUS_DLL_NOT_FOUND: "
                "LoadLibrary reports 126 (dlls/ntdll/loader.c import_dll → "
                "fixup_imports sets STATUS_DLL_NOT_FOUND; its ERR line "
                "'Loading library X (which is needed by Y) failed (error c000007b)')",
        "windows": "the dependency's own status propagates (NTSTATUS_WIN32 below; a folder: "
                   "STATUS_FILE_IS_A_DIRECTORY → 5, as Wine itself gives for a folder loaded by "
                   "path): STATUS_INVALID_IMAGE_FORMAT "
                   "→ ERROR_BAD_EXE_FORMAT 193 (the famous 0xc000007b start-up error "
                   "comes from a dependency, not the exe); since torch only falls back "
                   "to PATH on 126, the error is raised at the 0x1100 attempt",
        "sources": [
            "https://learn.microsoft.com/en-us/archive/blogs/dsvc/diagnosing-status_invalid_image_format-c000007b-errors",
            "https://learn.microsoft.com/en-us/openspecs/windows_protocols/ms-erref/596a1078-e883-4972-9bbc-49e60bebca55 (NTSTATUS values)",
            "https://9to5answer.com/loadlibrary-fails-with-error-code-193 (loader snaps: a dependency failing with 0xc000007b makes LoadLibrary return 193)",
        ],
    },
    {
        "id": "W2-stub-binding",
        "wine": "an imported name or ordinal the resolved DLL does not export is bound "
                "to a stub; the load succeeds (GetLastError 0) and the module stays "
                "loaded; only WINEDEBUG=warn+module says 'No implementation for "
                "<dll>.<name|ordinal> imported from L\"<path>\"'",
        "windows": "the load fails: STATUS_ENTRYPOINT_NOT_FOUND → 127 for a name, "
                   "STATUS_ORDINAL_NOT_FOUND → 182 for an ordinal; torch raises at "
                   "the 0x1100 attempt (no PATH fallback for codes other than 126)",
        "sources": [
            "https://learn.microsoft.com/en-us/windows/win32/debug/system-error-codes--0-499- (127 ERROR_PROC_NOT_FOUND, 182 ERROR_INVALID_ORDINAL)",
            "https://github.com/pytorch/pytorch/issues/37733 (127 on import torch)",
            "https://github.com/pytorch/pytorch/issues/31324 (182 on import torch)",
        ],
    },
    {
        "id": "W3-failed-module-stays-loaded",
        "wine": "because of W2 the module with the unresolved import is in the "
                "loaded-module list, so later binaries that import it load (0) "
                "without any diagnostic",
        "windows": "a failed LoadLibrary leaves the module unloaded; a later binary that "
                   "imports it by name searches again, finds the same file and fails "
                   "the same way (same code) [I: by the loader's all-or-nothing "
                   "LoadLibrary contract; the checker models it]",
        "sources": [
            "https://learn.microsoft.com/en-us/windows/win32/api/libloaderapi/nf-libloaderapi-loadlibraryexw (returns NULL on failure; no partial module handle)",
        ],
    },
    {
        "id": "W4-forwarder-to-missing-dll",
        "wine": "the import resolves to a forwarder whose DLL cannot be loaded: ERR "
                "'find_forwarded_export module not found for forward', then a stub "
                "as in W2; the load succeeds",
        "windows": "the load fails; whether GetLastError is 126 (the forwarded-to DLL's "
                   "STATUS_DLL_NOT_FOUND; torch then tries its PATH fallback) or 127 is "
                   "not documented [I] — either is accepted (with the matching stage), "
                   "0 is not",
        "sources": [
            "https://learn.microsoft.com/en-us/windows/win32/debug/pe-format#export-address-table (forwarder RVAs)",
        ],
    },
    {
        "id": "W5-dependent-load-flags",
        "wine": "Wine 8 ignores the load-config DependentLoadFlags: fbgemm.dll with "
                "0x800 (System32 only) still finds asmjit.dll in torch\\lib",
        "windows": "DependentLoadFlags changes the search for the module's static imports "
                   "(Windows 10 1607+); how it combines with explicit LoadLibraryExW "
                   "search flags (torch passes 0x1100) is not documented [I]: 0 "
                   "(explicit flags win) or 126 (0x800 applies) are accepted",
        "sources": [
            "https://learn.microsoft.com/en-us/cpp/build/reference/dependentloadflag",
        ],
    },
    {
        "id": "W6-builtin-substitution",
        "wine": "for any DLL name Wine has a builtin of, the builtin is used instead of the file "
                "the search found (default load order builtin,native), while GetModuleFileName "
                "still reports the file's path; the file's own exports and imports never matter "
                "(an old msvcp140.dll in torch\\lib lacking _Mtx_init 'loads')",
        "windows": "the file the search finds is the module; KnownDLLs alone come from System32 "
                   "whatever a folder holds. run.sh therefore loads every such file natively "
                   "(WINEDLLOVERRIDES=<name>=n,b) except KnownDLLs, and lists the names in "
                   "<scenario>.native; every name overridden must be in `dlls` below",
        # Every DLL an install can carry app-local that Wine 8 has a builtin of:
        # the VC++ 2015-2022 runtime (the msvc-runtime wheel's and the
        # redistributable's files, which conda and app-local installs put
        # next to python.exe or in Library\bin), the UCRT, dbghelp, and the
        # KnownDLL ws2_32. None of the torch\lib DLLs of PyPI's torch wheels
        # 1.7.1-2.15.0 has a Wine builtin (measured).
        "dlls": ["concrt140.dll", "msvcp140.dll", "msvcp140_1.dll", "msvcp140_2.dll",
                 "msvcp140_atomic_wait.dll", "vcomp140.dll", "vcruntime140.dll", "vcruntime140_1.dll",
                 "ucrtbase.dll", "dbghelp.dll",
                 "ws2_32.dll (a KnownDLL: not overridden, Wine's builtin stands for System32's copy, "
                 "as on Windows)"],
        "sources": [
            "https://wiki.winehq.org/Wine_User%27s_Guide#DLL_Overrides (load order, WINEDLLOVERRIDES)",
            "https://learn.microsoft.com/en-us/windows/win32/dlls/dynamic-link-library-search-order",
        ],
    },
    {
        "id": "W7-stub-bound-module-initialises",
        "wine": "because of W2 a module with unresolved imports is initialised: its DllMain and "
                "static constructors run, and may call a stub or use torch's registries "
                "(torchvision 0.21.0's _C.pyd next to torch 2.9.1 ends the process with "
                "c0000409); the oracle's result line for it is then missing, its @@oracle "
                "section unterminated (tests/wheels/oracle_ext_compare.py reads the stubs there)",
        "windows": "the load fails with 127 before any initialisation; the process goes on "
                   "(torchvision catches the OSError)",
        "sources": [
            "https://learn.microsoft.com/en-us/windows/win32/dlls/dynamic-link-library-entry-point-function (DllMain runs after the imports are bound)",
        ],
    },
    {
        "id": "W8-dllmain-failure-code",
        "wine": "a DLL whose initialisation fails (c10.dll with PyQt5's msvcp140.dll 14.26 "
                "loaded first) makes LoadLibraryExW fail with 998 ERROR_NOACCESS",
        "windows": "STATUS_DLL_INIT_FAILED → 1114 ERROR_DLL_INIT_FAILED, the WinError 1114 "
                   "of pytorch/pytorch#169429",
        "sources": [
            "https://learn.microsoft.com/en-us/windows/win32/debug/system-error-codes--1000-1299- (1114)",
            "https://github.com/pytorch/pytorch/issues/169429",
        ],
    },
    {
        "id": "W9-nvcuda-builtin",
        "wine": "nvcuda.dll is no file of the prefix: Debian's Wine 8.0 ships no nvcuda builtin, so "
                "a prefix's system32 has none and a load of it fails like any missing DLL (126). "
                "Other Wines differ: Wine-Staging carried an nvcuda builtin forwarding the CUDA "
                "driver API to the host's libcuda (patchset nvcuda-CUDA_Support, since dropped; "
                "continued as SveSop/nvidia-libs), Proton has an nvcuda thunk; with one, a prefix "
                "has an nvcuda.dll whether or not the host has an NVIDIA GPU. tests/cuda runs the "
                "trees without the driver on the bare prefix (the static import of torch 1.5: 126 "
                "on both loaders), and for the runs with a driver (new 572.16, old 516.94) copies "
                "the tree's look-alike nvcuda.dll (NVIDIA's version resource) into the prefix's "
                "system32 for that run only, with WINEDLLOVERRIDES=nvcuda=n so that a Wine with "
                "a builtin loads the file, not its builtin; WINEDEBUG=+loaddll's 'Loaded "
                "L\"C:\\windows\\system32\\nvcuda.dll\" ...: native' line and the oracle's "
                "loaded-module list confirm it (checked: the static import binds to it)",
        "windows": "only the NVIDIA display driver installs System32\\nvcuda.dll (the CUDA driver "
                   "API); a machine without it has none, and one with it has NVIDIA's file, whose "
                   "version resource says the driver (31.0.15.5161 = 551.61)",
        "sources": [
            "https://github.com/pytorch/pytorch/pull/37811 (caffe2_nvrtc delay-loads nvcuda.dll)",
            "https://github.com/wine-compholio/wine-staging/issues/231 (the nvcuda patchset)",
            "https://github.com/ValveSoftware/wine/pull/119 (Proton's nvcuda thunk)",
            "https://docs.nvidia.com/cuda/cuda-installation-guide-microsoft-windows/ (the driver installs the CUDA driver API)",
        ],
    },
    {
        "id": "W10-process-commit",
        "wine": "GetProcessMemoryInfo fills PagefileUsage, not PrivateUsage, with the process's "
                "resident anonymous memory plus its swap (RssAnon + VmSwap of /proc/<pid>/status), "
                "not a commit charge; and the loader copies every section whose file offset is not "
                "page-aligned (MSVC's 0x200 file alignment: all of torch's) into anonymous memory. "
                "So --confirm's measured growth (installs[].commit.measured) is about the size of "
                "every section of the DLLs that loaded, read-only code too, plus the loads' heap: "
                "torch 2.9.1's torch\\lib 313.8 MiB against 16.1 MiB predicted "
                "(tests/confirm/test_confirm_commit.sh)",
        "windows": "PrivateUsage (= PagefileUsage on Windows 8+) is the process's commit charge: "
                   "its private memory plus, when an image is mapped, the copy-on-write pages of "
                   "its writable sections whether or not they are written [I] (docs/commit.md), "
                   "so the growth is the predicted charge plus the loads' heap",
        "sources": [
            "https://learn.microsoft.com/windows/win32/api/psapi/ns-psapi-process_memory_counters_ex",
            "https://gitlab.winehq.org/wine/wine/-/blob/master/dlls/kernelbase/process.c (K32GetProcessMemoryInfo)",
            "https://gitlab.winehq.org/wine/wine/-/blob/master/server/process.c (RssAnon + VmSwap)",
        ],
    },
]
EXC = {e["id"]: e for e in WINE_VS_WINDOWS}
W6_DLLS = {d.split()[0] for d in EXC["W6-builtin-substitution"]["dlls"]}

# Where Windows itself does not decide (documentation or environment), with
# what the checker must say instead of a guess.
WINDOWS_UNDECIDED = [
    {
        "id": "U1-add-dll-directory-order",
        "what": "two AddDllDirectory folders hold the same DLL name: Microsoft: 'If AddDllDirectory "
                "is used to add more than one directory to the process DLL search path, the order "
                "in which those directories are searched is unspecified.' Wine takes the last added",
        "checker": "evaluates the load with each folder first in turn (and last-added first); a "
                   "verdict that differs is an order-dependent warning naming the candidates, never "
                   "a confident error or pass",
        "sources": ["https://learn.microsoft.com/en-us/windows/win32/api/libloaderapi/nf-libloaderapi-adddlldirectory"],
    },
    {
        "id": "U2-relative-path-entry",
        "what": "a relative PATH entry is resolved against the process's current directory "
                "(Wine's here is the tree's root, so it finds the DLL); a static check does not "
                "know where python will be started",
        "checker": "does not search it and says so (path-entry finding, probe 'not searched')",
        "sources": ["https://learn.microsoft.com/en-us/windows/win32/dlls/dynamic-link-library-search-order"],
    },
]
UND = {e["id"]: e for e in WINDOWS_UNDECIDED}

# Binaries whose Windows verdict is undecided by the documentation: the
# codes and stages accepted (beyond Wine's own), with the exception id.
ALL_STAGES = {"add_dll_directory", "path_fallback", "cpython"}
UNDECIDED = {
    ("dependent_load_flags", b): ("W5-dependent-load-flags", {0, 126}, ALL_STAGES)
    for b in ("fbgemm.dll", "torch_cpu.dll", "torch_python.dll", "_c.cp311-win_amd64.pyd")
}
UNDECIDED.update({
    ("same_dll_two_user_dirs", b): ("U1-add-dll-directory-order", {0, 127}, ALL_STAGES)
    for b in ("fbgemm.dll", "torch_cpu.dll", "torch_python.dll", "_c.cp311-win_amd64.pyd")
})
UNDECIDED.update({
    ("relative_path_entry", b): ("U2-relative-path-entry", {0, 126}, ALL_STAGES)
    for b in ("fbgemm.dll", "torch_cpu.dll", "torch_python.dll", "_c.cp311-win_amd64.pyd")
})

# Findings a scenario must produce beyond what the oracle shows per binary
# (rule, [substrings the finding's title or message must contain]). The
# oracle adds: vc-runtime-probe iff its VC runtime probe failed, and
# loads-via-path for each binary that loaded only through the PATH fallback.
SCENARIO_FINDINGS = {
    "delay_import_missing": [("delay-load-missing", ["torch_cpu.dll", "cupti64_2024.1.0.dll"])],
    "old_msvcp140_app_local": [("shadowed-dll", ["msvcp140.dll"])],
    "same_dll_two_user_dirs": [("order-dependent", ["fbgemm.dll", "omp_dup.dll"])],
    "quoted_path_entry": [("path-entry", ['"c:\\tools\\omp"', "quoted"])],
    "relative_path_entry": [("path-entry", ["tools\\omp", "relative"])],
}

STAGES = ("vc_probe", "add_dll_directory", "path_fallback", "cpython")


def winlow(p):
    """A path as the checker writes it, for comparing: T: → C:, lower case."""
    if p is None:
        return None
    p = p.replace("/", "\\")
    if len(p) > 1 and p[1] == ":" and p[0] in "Tt":
        p = "C" + p[1:]
    return p.lower()


def base(p):
    return p.replace("/", "\\").split("\\")[-1]


class Out:
    def __init__(self):
        self.failed = 0
        self.count = 0

    def ok(self, msg):
        self.count += 1
        print("ok - scenarios: " + msg)

    def not_ok(self, msg, detail=None):
        self.count += 1
        self.failed = 1
        print("not ok - scenarios: " + msg)
        for d in detail or []:
            print("#   " + d)


def unescape(s):
    """Wine's debugstr_w writes a backslash as two."""
    return s.replace("\\\\", "\\")


def parse_windows(err_path):
    """Wine's stderr split into {order: [lines]} by the oracle's markers."""
    windows = {}
    cur = tid = None
    with open(err_path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = re.match(r"@@oracle (begin|end) (\d+)(?: tid=([0-9a-f]+))?", line)
            if m:
                cur = int(m.group(2)) if m.group(1) == "begin" else None
                tid = m.group(3)
                windows.setdefault(int(m.group(2)), [])
                continue
            if cur is None:
                continue
            # Other Wine processes (explorer, services) share the stream:
            # keep the oracle thread's lines only.
            t = re.match(r"([0-9a-f]{4,8}):", line)
            if tid and t and int(t.group(1), 16) != int(tid, 16):
                continue
            windows[cur].append(unescape(line.rstrip("\n")))
    return windows


RE_STUB = re.compile(r'No implementation for (.+?\.dll)\.(\S+) imported from L"(.*?)"', re.I)
RE_FWD = re.compile(r"module not found for forward '([^']+)' used by L\"(.*?)\"")
RE_FAILED = re.compile(r'Failed to load module L"(.*?)"; status=(c[0-9a-f]+)', re.I)
# The Win32 error Windows reports for a dependency's NTSTATUS (RtlNtStatusToDosError).
NTSTATUS_WIN32 = {
    "c000007b": 193,  # STATUS_INVALID_IMAGE_FORMAT → ERROR_BAD_EXE_FORMAT
    "c0000020": 193,  # STATUS_INVALID_FILE_FOR_SECTION (0-byte / not a PE) → ERROR_BAD_EXE_FORMAT
    "c00000ba": 5,    # STATUS_FILE_IS_A_DIRECTORY (a folder named like the DLL) → ERROR_ACCESS_DENIED
}
RE_DEPFAIL = re.compile(r'Loading library (\S+) \(which is needed by L"(.*?)"\) failed \(error (c[0-9a-f]+)\)', re.I)


def pe_imports(host_path, cache):
    """Static import names (lower case) of a host file, [] when unreadable."""
    if host_path in cache:
        return cache[host_path]
    names = []
    try:
        import pefile
        pe = pefile.PE(host_path, fast_load=True)
        pe.parse_data_directories(directories=[pefile.DIRECTORY_ENTRY["IMAGE_DIRECTORY_ENTRY_IMPORT"]])
        for d in getattr(pe, "DIRECTORY_ENTRY_IMPORT", []):
            names.append(d.dll.decode("latin-1").lower())
        pe.close()
    except Exception:
        pass
    cache[host_path] = names
    return names


def wine_to_host(winpath, root, prefix_c):
    """Host file for a Wine path: T:\\x → root/x, C:\\windows\\x → prefix drive_c."""
    p = winpath.replace("\\", "/")
    if p[:2].lower() == "t:":
        return os.path.join(root, p[3:])
    if p[:2].lower() == "c:":
        return os.path.join(prefix_c, p[3:])
    return None


def read_meta(scen_dir, scen):
    meta = {}
    with open(os.path.join(scen_dir, scen, "meta.tsv"), encoding="utf-8") as f:
        for line in f:
            k, _, v = line.rstrip("\n").partition("\t")
            meta.setdefault(k, []).append(v)
    return meta


RE_EDGE = re.compile(r'Library (\S+) \(which is needed by L"(.*?)"\) (?:not found|failed)', re.I)


def chain_from_failures(lines, top_path):
    """Wine's ERR lines name every failed import edge, "Library X (which is
    needed by L"P") not found|failed": from the binary, follow each module's
    first failing import (import-descriptor order) down to the leaf."""
    edges = []
    for line in lines:
        m = RE_EDGE.search(line)
        if m:
            edges.append((base(m.group(2)).lower(), m.group(1)))
    chain = [base(top_path)]
    seen = {chain[0].lower()}
    while True:
        nxt = next((child for parent, child in edges if parent == chain[-1].lower()), None)
        if nxt is None or nxt.lower() in seen:
            break
        chain.append(nxt)
        seen.add(nxt.lower())
    return chain if len(chain) > 1 else None


def chain_from_graph(top_host, leaf, loaded_by_name, root, prefix_c, cache):
    """The import path from a binary to `leaf` through the modules Wine loaded (BFS)."""
    from collections import deque
    q = deque([(top_host, [base(top_host)])])
    seen = set()
    while q:
        hp, path = q.popleft()
        if not hp or hp in seen:
            continue
        seen.add(hp)
        for name in pe_imports(hp, cache):
            if name == leaf.lower():
                return path + [leaf]
            if name in loaded_by_name:
                q.append((wine_to_host(loaded_by_name[name], root, prefix_c), path + [base(loaded_by_name[name])]))
    return None


def derive(run, scen, root, prefix_c):
    """The per-binary verdicts of one scenario: list of dicts (see module doc)."""
    recs = []
    env_path = None
    with open(os.path.join(run, scen + ".oracle.jsonl"), encoding="utf-8") as f:
        for line in f:
            o = json.loads(line)
            if o.get("event") == "env":
                env_path = o["PATH"]
            elif "order" in o:
                recs.append(o)
    wins = parse_windows(os.path.join(run, scen + ".wine.err"))
    loaded_by_name = {}  # basename (lower) → Wine path of the module in the process
    failed = {}          # basename (lower) → (code, leaf, symbol) Windows would fail with
    imp_cache = {}
    out = []
    for r in recs:
        lines = wins.get(r["order"], [])
        stubs = [m.groups() for m in map(RE_STUB.search, lines) if m]
        fwds = [m.groups() for m in map(RE_FWD.search, lines) if m]
        deps = [m.groups() for m in map(RE_DEPFAIL.search, lines) if m]
        v = {
            "order": r["order"], "kind": r["kind"], "path": r["path"],
            "wine_code": r["error"], "wine_stage": r["stage"],
            "code": r["error"], "stage": r["stage"], "accept": None,
            "exceptions": [], "leaf": None, "symbol": None, "chain": None,
            "loaded": r.get("loaded", []),
        }
        if r["error"] != 0:
            v["chain"] = chain_from_failures(lines, r["path"])
            if v["chain"]:
                v["leaf"] = v["chain"][-1]
        if r["error"] == 0 and stubs:
            dll, sym, importer = stubs[0]
            if fwds:
                v["exceptions"].append("W4-forwarder-to-missing-dll")
                v["code"], v["accept"] = 126, {126, 127}
                # 126 sends torch to its PATH fallback, 127 does not.
                v["accept_stages"] = {"add_dll_directory", "path_fallback"} if r["kind"] == "dll" else set()
                v["leaf"] = fwds[0][0].split(".")[0] + ".dll"
                fwd_module = base(fwds[0][1])
                loaded_now = dict(loaded_by_name)
                for p in r.get("loaded", []):
                    loaded_now.setdefault(base(p).lower(), p)
                head = chain_from_graph(wine_to_host(r["path"], root, prefix_c), fwd_module,
                                        loaded_now, root, prefix_c, imp_cache)
                v["chain"] = head + [v["leaf"]] if head else None
            else:
                v["exceptions"].append("W2-stub-binding")
                v["code"] = 182 if sym.isdigit() else 127
                v["leaf"], v["symbol"] = dll, ("#" + sym if sym.isdigit() else sym)
            if r["stage"] == "path_fallback":
                # The 0x1100 attempt failed with 126 for another reason; the
                # fallback's stub becomes the error raised after it.
                pass
            if v["chain"] is None and not fwds:
                loaded_now = dict(loaded_by_name)
                for p in r.get("loaded", []):
                    loaded_now.setdefault(base(p).lower(), p)
                head = chain_from_graph(wine_to_host(r["path"], root, prefix_c), base(importer),
                                        loaded_now, root, prefix_c, imp_cache) \
                    if base(importer).lower() != base(r["path"]).lower() else [base(r["path"])]
                v["chain"] = head + [dll] if head else None
            tail = v["chain"][v["chain"].index(base(importer)) if v["chain"] and base(importer) in v["chain"] else 0:] \
                if v["chain"] else [base(importer), v["leaf"]]
            failed[base(importer).lower()] = (v["code"], v["leaf"], v["symbol"], v["accept"], tail)
        elif r["error"] == 126 and any(st.lower() != "c0000135" for _, _, st in deps):
            dll, importer, st = next(d for d in deps if d[2].lower() != "c0000135")
            v["exceptions"].append("W1-dependency-status")
            v["code"] = NTSTATUS_WIN32.get(st.lower(), 193)
            if r["stage"] == "path_fallback":
                v["stage"] = "add_dll_directory"  # torch raises: only 126 falls back
            v["leaf"] = dll
        if v["code"] != 0 and v["chain"] is None and v["leaf"]:
            v["chain"] = chain_from_graph(wine_to_host(r["path"], root, prefix_c), v["leaf"],
                                          loaded_by_name, root, prefix_c, imp_cache)
        # W3: a binary Wine loaded whose static closure reaches a module that
        # Windows failed to load.
        if v["code"] == 0:
            seen = set()
            stack = [wine_to_host(r["path"], root, prefix_c)]
            hit = None
            own = base(r["path"]).lower()
            if r["kind"] in ("dll", "pyd") and own in failed:
                # the binary itself was stub-bound by an earlier load (it
                # sits inside an earlier failing chain): Windows fails it
                # the same way when it is loaded by path
                hit = (own, failed[own])
            while stack and not hit:
                hp = stack.pop()
                if not hp or hp in seen:
                    continue
                seen.add(hp)
                for name in pe_imports(hp, imp_cache):
                    if name in failed:
                        hit = (name, failed[name])
                        break
                    if name in loaded_by_name:
                        stack.append(wine_to_host(loaded_by_name[name], root, prefix_c))
            if hit:
                v["exceptions"].append("W3-failed-module-stays-loaded")
                v["code"], v["leaf"], v["symbol"], v["accept"], tail = hit[1]
                if v["accept"] and 126 in v["accept"] and r["kind"] == "dll":
                    v["accept_stages"] = {"add_dll_directory", "path_fallback"}
                if v["stage"] == "path_fallback":
                    v["stage"] = "add_dll_directory"
                if hit[0] == own:
                    v["chain"] = tail
                else:
                    head = chain_from_graph(wine_to_host(r["path"], root, prefix_c), tail[0],
                                            loaded_by_name, root, prefix_c, imp_cache)
                    v["chain"] = head + tail[1:] if head else None
        und = UNDECIDED.get((scen, base(r["path"]).lower()))
        if und:
            v["exceptions"].append(und[0])
            v["accept"] = und[1] | {v["code"]}
            v["accept_stages"] = und[2]
        if v["code"] != 0 and r["error"] == 0 and r["kind"] in ("dll", "pyd"):
            # Loaded in Wine, failed on Windows: later importers must fail too.
            # (Binaries that failed in Wine as well are searched afresh by
            # both loaders: nothing to correct.)
            chain = v["chain"] or [base(r["path"]), v["leaf"]]
            failed.setdefault(base(r["path"]).lower(), (v["code"], v["leaf"], v["symbol"], v["accept"], chain))
            # every module on the failing chain that statically imports the
            # rest of it fails on Windows too (W3); a forwarder link (W4)
            # fails only whoever imports the forwarded name
            static_tail = True
            for i in range(len(chain) - 2, 0, -1):
                hp = loaded_by_name.get(chain[i].lower())
                hp = wine_to_host(hp, root, prefix_c) if hp else None
                static_tail = static_tail and bool(hp) and chain[i + 1].lower() in pe_imports(hp, imp_cache)
                if static_tail:
                    failed.setdefault(chain[i].lower(), (v["code"], v["leaf"], v["symbol"], v["accept"], chain[i:]))
        # What the Wine process really holds now (a failed load in Wine may
        # still leave dependencies loaded; a stub-bound module stays loaded).
        for p in r.get("loaded", []):
            loaded_by_name.setdefault(base(p).lower(), p)
        out.append(v)
    return out, env_path


def fmt_code(v):
    return "|".join(str(c) for c in sorted(v["accept"])) if v["accept"] else str(v["code"])


def wine_raw(v):
    s = str(v["wine_code"])
    if v["wine_stage"] == "path_fallback":
        s += "(via PATH)"
    return s


def read_table(path):
    rows = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            c = line.rstrip("\n").split("\t")
            if len(c) < 9:
                raise SystemExit(f"{path}:{n}: expected 9 tab-separated columns, got {len(c)}")
            rows[(c[0], c[1].lower())] = {
                "scenario": c[0], "binary": c[1], "wine": c[2], "code": c[3], "stage": c[4],
                "leaf": None if c[5] == "-" else c[5], "symbol": None if c[6] == "-" else c[6],
                "chain": None if c[7] == "-" else c[7].split(">"),
                "probe_dirs": None if c[8] == "-" else c[8].split(";"), "line": n,
            }
    return rows


def checker_binaries(report):
    bins = {}
    for inst in report.get("installs", []):
        for b in inst.get("binaries", []):
            bins[winlow(b.get("path"))] = b
    return bins


def check_import_error(out, s, report, vs):
    """What `import torch` raises first: the first binary, in the real load
    order, that fails on Windows (torch raises at its first failing DLL;
    CPython's ImportError comes after every DLL loaded)."""
    ie = (report.get("installs") or [{}])[0].get("import_error")
    first = None
    for v in vs:
        if v["kind"] not in ("dll", "pyd"):
            continue
        acc = v["accept"] or {v["code"]}
        if 0 in acc and acc != {0}:
            out.ok(f"{s}: import_error not asserted # SKIP optional: {base(v['path'])} may or may not load on Windows")
            return
        if 0 not in acc:
            first = v
            break
    if first is None:
        if ie is None:
            out.ok(f"{s}: import_error null: every binary loads")
        else:
            out.not_ok(f"{s}: import_error {ie.get('winerror')} ({ie.get('text')}), but every binary loads")
        return
    acc = first["accept"] or {first["code"]}
    if ie and ie.get("winerror") in acc and winlow(ie.get("binary")) == winlow(first["path"]):
        out.ok(f"{s}: import_error {ie.get('winerror')} for {base(first['path'])}, the first binary that fails")
    else:
        got = f"{ie.get('winerror')} for {ie.get('binary')}" if ie else "null"
        out.not_ok(f"{s}: import_error: checker says {got}; the real first failure is {base(first['path'])} "
                   f"({fmt_code(first)})")


def check_findings(out, s, report, vs, run):
    """Scenario-level findings: the oracle's VC probe and PATH-fallback loads,
    and SCENARIO_FINDINGS."""
    findings = report.get("findings", [])

    def text(f):
        return " ".join(str(f.get(k) or "") for k in ("title", "message", "binary", "leaf")).lower()

    probe_failed = [v for v in vs if v["kind"] == "vc_probe" and v["wine_code"] != 0]
    has_probe = [f for f in findings if f.get("rule") == "vc-runtime-probe"]
    if probe_failed and not has_probe:
        out.not_ok(f"{s}: no vc-runtime-probe finding, but the real probe failed on {base(probe_failed[0]['path'])}")
    elif has_probe and not probe_failed:
        out.not_ok(f"{s}: a vc-runtime-probe finding, but the real probe loaded every runtime")
    else:
        out.ok(f"{s}: vc-runtime-probe finding {'present' if has_probe else 'absent'}, as the real probe says")
    for v in vs:
        if v["kind"] == "dll" and v["code"] == 0 and not v["accept"] and v["stage"] == "path_fallback":
            b = base(v["path"]).lower()
            if any(f.get("rule") == "loads-via-path" and b in text(f) for f in findings):
                out.ok(f"{s}: {base(v['path'])}: loads-via-path finding")
            else:
                out.not_ok(f"{s}: {base(v['path'])}: no loads-via-path finding, but it loaded only through PATH")
    for rule, needles in SCENARIO_FINDINGS.get(s, []):
        hits = [f for f in findings if f.get("rule") == rule and all(n.lower() in text(f) for n in needles)]
        if hits:
            out.ok(f"{s}: {rule} finding naming {', '.join(needles)}")
        else:
            out.not_ok(f"{s}: no {rule} finding naming {', '.join(needles)}",
                       ["findings: " + "; ".join(f"{f.get('rule')}: {f.get('title')}" for f in findings) or "none"])
    if s == "old_msvcp140_app_local":
        # The real loader's winner: where msvcp140.dll came from in the process.
        winner = next((p for v in vs for p in v["loaded"] if base(p).lower() == "msvcp140.dll"), None)
        hits = [f for f in findings if f.get("rule") == "shadowed-dll" and "msvcp140.dll" in text(f)]
        if winner and hits:
            w = winlow(winner)
            if any(w in (f.get("message") or "").lower() or w in text(f) for f in hits):
                out.ok(f"{s}: the shadowing finding names the winner the real loader took, {winner}")
            else:
                out.not_ok(f"{s}: the shadowing finding does not name the real winner {winner}",
                           [f"{f.get('title')}: {f.get('message')}" for f in hits])


def main():
    run, table_path = sys.argv[1], sys.argv[2]
    record = "--record" in sys.argv[3:]
    scen_dir = open(os.path.join(run, "SCENARIO_DIR")).read().strip()
    if not os.path.exists(os.path.join(scen_dir, "SCENARIOS")):
        print(f"not ok - scenarios: the scenario trees in {scen_dir} vanished during the run "
              "(an older build.sh in another worktree pruned the shared cache?); run again")
        return 1
    prefix_c = os.path.join(os.path.realpath(os.path.join(scen_dir, "healthy", "root", "Windows", "System32")), "..", "..")
    prefix_c = os.path.realpath(prefix_c)
    scenarios = [s for s in open(os.path.join(scen_dir, "SCENARIOS")).read().split()
                 if os.path.exists(os.path.join(run, s + ".oracle.jsonl"))]
    if record:
        print("# scenario\tbinary\twine (raw)\twindows code\tstage\tleaf\tsymbol\tchain\tprobe dirs")
        for s in scenarios:
            vs, _ = derive(run, s, os.path.join(scen_dir, s, "root"), prefix_c)
            meta = read_meta(scen_dir, s)
            for v in vs:
                if v["kind"] == "vc_probe":
                    continue
                probe_dirs = "-"
                if v["code"] == 126 and not v["accept"]:
                    # Where the missing leaf is looked for under 0x1100 (the
                    # documented order): the binary's folder (DLL_LOAD_DIR),
                    # python.exe's (APPLICATION_DIR), torch's dll_paths
                    # (USER_DIRS), System32.
                    d = ["C:" + v["path"][2:].rsplit("\\", 1)[0], meta["PYDIR"][0]] + meta.get("DLL_PATHS", []) + \
                        ["C:\\Windows\\System32"]
                    probe_dirs = ";".join(dict.fromkeys(d))
                print("\t".join([s, base(v["path"]), wine_raw(v), fmt_code(v), v["stage"],
                                 v["leaf"] or "-", v["symbol"] or "-",
                                 ">".join(v["chain"]) if v["chain"] else "-", probe_dirs]))
        return 0

    table = read_table(table_path)
    out = Out()
    requested_path = os.path.join(run, "REQUESTED")
    if os.path.exists(requested_path):
        for s in open(requested_path).read().split():
            if s not in scenarios:
                out.ok(f"{s}: oracle run # SKIP the oracle wrote no output under Wine (see {s}.wine.err): NOT compared")
    have_check = open(os.path.join(run, "HAVE_CHECK")).read().strip() == "1"
    n_bin = n_agree = 0
    used = set()
    for s in scenarios:
        vs, _ = derive(run, s, os.path.join(scen_dir, s, "root"), prefix_c)
        # Sanity: the oracle ran in this scenario's tree (drive T: is shared
        # by every run on the prefix): it loaded exactly the tree's DLLs.
        meta = read_meta(scen_dir, s)
        lib = os.path.join(scen_dir, s, "root", *meta["TORCH"][0][3:].split("\\"), "lib")
        on_disk = sorted(n.lower() for n in os.listdir(lib) if n.lower().endswith(".dll") and not n.startswith("."))
        loaded = sorted(base(v["path"]).lower() for v in vs if v["kind"] == "dll")
        if on_disk != loaded:
            out.not_ok(f"{s}: the oracle did not run in this scenario's tree (another run re-pointed T:?)",
                       ["tree:   " + " ".join(on_disk), "oracle: " + " ".join(loaded)])
            continue
        # W6: every DLL run.sh had Wine load natively is listed in the table.
        nat = os.path.join(run, s + ".native")
        if os.path.exists(nat):
            names = [n.strip() for n in open(nat) if n.strip()]
            extra = [n for n in names if n not in W6_DLLS]
            if extra:
                out.not_ok(f"{s}: Wine builtins overridden but not listed in W6: {' '.join(extra)}")
            elif names:
                out.ok(f"{s}: Wine's builtin {' '.join(names)} replaced by the file (W6, listed)")
        report = None
        if have_check:
            cj = os.path.join(run, s + ".check.json")
            try:
                with open(cj, encoding="utf-8") as f:
                    report = json.load(f)
            except (OSError, ValueError) as e:
                err = open(os.path.join(run, s + ".check.err"), encoding="utf-8", errors="replace").read()
                out.not_ok(f"{s}: the checker produced no JSON report ({e})", err.splitlines()[:10])
        cbins = checker_binaries(report) if report else {}
        seen_paths = set()
        for v in vs:
            if v["kind"] == "vc_probe":
                continue
            b = base(v["path"])
            exc = (" [" + ", ".join(v["exceptions"]) + "]") if v["exceptions"] else ""
            row = table.get((s, b.lower()))
            # 1. the oracle against the reviewed table
            if row is None:
                out.not_ok(f"{s}: {b}: not in {os.path.basename(table_path)} "
                           f"(Wine: {wine_raw(v)}, Windows: {fmt_code(v)} {v['stage']}{exc})")
            else:
                used.add((s, b.lower()))
                if row["code"] == fmt_code(v) and row["stage"] == v["stage"] and row["wine"] == wine_raw(v):
                    out.ok(f"{s}: {b}: oracle {fmt_code(v)} {v['stage']} as expected{exc}")
                else:
                    out.not_ok(f"{s}: {b}: oracle says {fmt_code(v)} {v['stage']} (Wine {wine_raw(v)}){exc}, "
                               f"table (line {row['line']}) says {row['code']} {row['stage']} (Wine {row['wine']})")
            # 2. the checker against the oracle
            if report is None:
                continue
            n_bin += 1
            key = winlow(v["path"])
            seen_paths.add(key)
            c = cbins.get(key)
            wine_says = f"Wine {wine_raw(v)} → Windows {fmt_code(v)} {v['stage']}{exc}"
            if c is None:
                out.not_ok(f"{s}: {b}: missing from the checker's report ({wine_says})")
                continue
            accept = v["accept"] or {v["code"]}
            cw, cs = c.get("winerror"), c.get("stage")
            if cw in accept and (cs == v["stage"] or cs in v.get("accept_stages", ())):
                n_agree += 1
                out.ok(f"{s}: {b}: checker {cw} {cs} = {wine_says}")
            else:
                out.not_ok(f"{s}: {b}: checker says {cw} {cs} ({c.get('outcome')}), {wine_says}")
            if row and (cw or 0) != 0 and row["leaf"]:
                want_leaf = row["leaf"].lower()
                got_leaf = (c.get("leaf") or "").lower()
                check_eq = (lambda d, w, g: out.ok(f"{s}: {b}: {d} {g}") if w == g
                            else out.not_ok(f"{s}: {b}: {d}: checker says {g!r}, expected {w!r}"))
                check_eq("leaf", want_leaf, got_leaf)
                if row["symbol"]:
                    check_eq("symbol", row["symbol"], c.get("symbol"))
                if row["chain"]:
                    check_eq("chain", [x.lower() for x in row["chain"]],
                             [x.lower() for x in (c.get("chain") or [])])
                if row["probe_dirs"]:
                    probed = [winlow(p.get("path", "").rsplit("\\", 1)[0]) for p in c.get("probes") or []
                              if base(p.get("path", "")).lower() == want_leaf]
                    want = [winlow(d) for d in row["probe_dirs"]]
                    if set(want) <= set(probed):
                        out.ok(f"{s}: {b}: probes for {row['leaf']} cover the {len(want)} folders of the 0x1100 search")
                    else:
                        out.not_ok(f"{s}: {b}: probes for {row['leaf']} miss folders of the 0x1100 search",
                                   ["expected: " + "; ".join(want), "checker probed: " + "; ".join(probed),
                                    "missing: " + "; ".join(w for w in want if w not in probed)])
        if report is not None:
            check_findings(out, s, report, vs, run)
            check_import_error(out, s, report, vs)
            # torch's dll_paths: what the oracle was given (build.sh computes
            # them by torch's rules) against what the checker derived.
            want = [winlow(p) for p in read_meta(scen_dir, s).get("DLL_PATHS", [])]
            got = [winlow(p) for i in report.get("installs", []) for p in i.get("dll_paths", [])]
            if want == got:
                out.ok(f"{s}: dll_paths ({len(want)}) as torch computes them")
            else:
                out.not_ok(f"{s}: dll_paths differ", ["torch:   " + "; ".join(want), "checker: " + "; ".join(got)])
            # torch's load order: FindFirstFileW's under Wine, the view's NTFS order in the checker.
            real = [base(v["path"]).lower() for v in vs if v["kind"] == "dll"]
            mine = [base(c.get("path", "")).lower() for c in sorted(
                (c for c in cbins.values() if c.get("kind") == "dll"), key=lambda c: c.get("order", 0))]
            if real == mine:
                out.ok(f"{s}: torch\\lib load order ({len(real)} DLLs) as FindFirstFileW returned it")
            else:
                out.not_ok(f"{s}: torch\\lib load order differs", ["real:    " + " ".join(real),
                                                                   "checker: " + " ".join(mine)])
        for key, c in cbins.items():
            if key not in seen_paths and c.get("kind") in ("dll", "pyd"):
                out.not_ok(f"{s}: {base(c.get('path'))}: in the checker's report, but the real loader never loaded it "
                           f"(checker: {c.get('winerror')} {c.get('stage')})")
    for key, row in table.items():
        if key not in used and row["scenario"] in scenarios:
            out.not_ok(f"{row['scenario']}: {row['binary']}: in the table (line {row['line']}) but the oracle never loaded it")
    if not have_check:
        out.ok("checker comparison # SKIP torch-dll-check check is not available in this build")
    else:
        print(f"# {len(scenarios)} scenarios, {n_bin} binaries compared, {n_agree} agree with the checker, "
              f"{n_bin - n_agree} disagree")
    return out.failed


if __name__ == "__main__":
    sys.exit(main())
