#!/usr/bin/env python3
"""action/wheel.py OUT_DIR VERSION PLATFORM_TAG PROG GIT_PROG LICENCE...: a
wheel carrying the two programs, for people on their own machine:

    pipx run torch-dll-check check      (or: uvx torch-dll-check check)
    pip install torch-dll-check && torch-dll-check check

The wheel is torch_dll_check-VERSION-py3-none-PLATFORM_TAG.whl (win_amd64,
or manylinux_2_35_x86_64: the Linux programs need glibc 2.35, see
action/dist.sh) and holds the package torch_dll_check: bin/ with the two
programs (torch-dll-check finds torch-dll-check-git beside it), a console
script `torch-dll-check` that runs the program with the same arguments, and
`python -m torch_dll_check`. No Python code of the checker: the programs are
the checker.

Reproducible (written by `make dist`): the entries in one order, every time
stamp SOURCE_DATE_EPOCH (at least 1980, zip's epoch), fixed modes and
compression, no machine's name or path in it. The format: the wheel binary
package format (PEP 427, "Binary distribution format" in the Python
Packaging User Guide), RECORD as in "Recording installed projects".
"""
import base64
import hashlib
import os
import sys
import time
import zipfile

INIT = '''"""torch-dll-check: will `import torch` load on this Windows machine, and if
not, which DLL is missing, why, and the fix. This package carries the
program (bin/); `torch-dll-check ARGS` and `python -m torch_dll_check ARGS`
run it with ARGS."""
import os
import subprocess
import sys

__version__ = "%(version)s"


def program(name="torch-dll-check"):
    """The path of a bundled program."""
    exe = name + (".exe" if os.name == "nt" else "")
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", exe)


def main():
    prog = program()
    if os.name == "nt":  # no exec on Windows: a child, its exit status ours
        sys.exit(subprocess.call([prog] + sys.argv[1:]))
    os.execv(prog, [prog] + sys.argv[1:])
'''

MAIN = '''from torch_dll_check import main

main()
'''


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (name, digest, len(data))


def main():
    out_dir, version, tag, prog, git_prog = sys.argv[1:6]
    licences = sys.argv[6:]
    windows = tag.startswith("win")
    ext = ".exe" if windows else ""
    epoch = max(int(os.environ.get("SOURCE_DATE_EPOCH", "0")), 315532800)  # 1980-01-01
    stamp = time.gmtime(epoch)[:6]
    dist_info = "torch_dll_check-%s.dist-info" % version
    files = []  # (name, bytes, executable)

    def read(p):
        with open(p, "rb") as f:
            return f.read()

    files.append(("torch_dll_check/__init__.py", (INIT % {"version": version}).encode(), False))
    files.append(("torch_dll_check/__main__.py", MAIN.encode(), False))
    files.append(("torch_dll_check/bin/torch-dll-check" + ext, read(prog), True))
    files.append(("torch_dll_check/bin/torch-dll-check-git" + ext, read(git_prog), True))
    meta = ["Metadata-Version: 2.1", "Name: torch-dll-check", "Version: " + version,
            "Summary: Tells, before `import torch` runs, whether PyTorch will load on a Windows machine; "
            "if not, which DLL is missing, why, and how to fix it.",
            "License: MIT", "Requires-Python: >=3.8", "Classifier: License :: OSI Approved :: MIT License",
            "Classifier: Operating System :: Microsoft :: Windows",
            "Classifier: Operating System :: POSIX :: Linux", ""]
    files.append((dist_info + "/METADATA", "\n".join(meta).encode(), False))
    wheel = ["Wheel-Version: 1.0", "Generator: torch-dll-check action/wheel.py", "Root-Is-Purelib: false",
             "Tag: py3-none-" + tag, ""]
    files.append((dist_info + "/WHEEL", "\n".join(wheel).encode(), False))
    files.append((dist_info + "/entry_points.txt",
                  b"[console_scripts]\ntorch-dll-check = torch_dll_check:main\n", False))
    for lic in sorted(licences):
        files.append((dist_info + "/" + os.path.basename(lic), read(lic), False))
    record = [record_line(n, d) for n, d, _ in files] + [dist_info + "/RECORD,,"]
    files.append((dist_info + "/RECORD", ("\n".join(record) + "\n").encode(), False))

    path = os.path.join(out_dir, "torch_dll_check-%s-py3-none-%s.whl" % (version, tag))
    with zipfile.ZipFile(path + ".tmp", "w") as z:
        for name, data, executable in files:
            info = zipfile.ZipInfo(name, date_time=stamp)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3  # Unix: the mode below is meant
            info.external_attr = ((0o100755 if executable else 0o100644) & 0xFFFF) << 16
            z.writestr(info, data, compress_type=zipfile.ZIP_DEFLATED, compresslevel=9)
    os.replace(path + ".tmp", path)
    print(path)


if __name__ == "__main__":
    main()
