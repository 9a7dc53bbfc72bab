#!/usr/bin/env python3
"""wheels.py: real Windows wheels from PyPI, fetched once into the cache.

    wheels.py resolve PROJECT VERSION    print "FILE SHA256 PYVER ABI" of the wheel we use
    wheels.py fetch PROJECT VERSION [PY] fetch (or reuse) it; print its path in the cache
                                         (PY, e.g. 3.8: that CPython's build, not 3.11's)
    wheels.py versions PROJECT           print every X.Y.Z release with a win_amd64 wheel

Which file: the win_amd64 wheel for CPython 3.11 when PyPI has one, else the
newest CPython the release was built for (old releases stop at 3.7-3.10),
else a py3-none-win_amd64 wheel (intel-openmp). The sha256 is the one PyPI
publishes in its simple index (PEP 691 JSON); pip downloads the file with
--require-hashes against it, and we hash the result again before it enters the
cache, so a file in the cache is byte-for-byte the one PyPI serves.

The cache: $TDC_CACHE/pypi/<sha256>/<file name> (key = file name + sha256),
written through a temporary directory and a rename, so runs sharing the cache
never see half a file. The index answer is cached per project for a day
($TDC_CACHE/pypi/index/<project>.json) so a test run asks PyPI once.

Runs with any Python 3 (stdlib only); pip runs under $TDC_PIP_PYTHON, found
by wheels.sh. Exit status 3 means "PyPI did not give us the file": the caller
turns it into a skip that names the file.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

INDEX = os.environ.get("TDC_PYPI_INDEX", "https://pypi.org/simple")
REFUSED = 3


def cache_dir():
    base = os.environ.get("TDC_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "torch-dll-check")
    return os.path.join(base, "pypi")


def atomic_write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def project_index(project):
    """The PEP 691 JSON page of PROJECT (cached for a day)."""
    path = os.path.join(cache_dir(), "index", project + ".json")
    try:
        if time.time() - os.path.getmtime(path) < 86400:
            with open(path, "rb") as f:
                return json.load(f)
    except OSError:
        pass
    req = urllib.request.Request(INDEX + "/" + project + "/",
                                 headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        data = r.read()
    atomic_write(path, data)
    return json.loads(data)


def norm(project):
    return re.sub(r"[-_.]+", "_", project).lower()


WHEEL = re.compile(r"([^-]+)-([^-]+)-([^-]+)-([^-]+)-win_amd64\.whl")


def win_wheels(project):
    """(file, version, python tag, abi tag, sha256) of each non-yanked win_amd64 wheel."""
    for f in project_index(project)["files"]:
        m = WHEEL.fullmatch(f["filename"])
        sha = f.get("hashes", {}).get("sha256")
        if m and sha and not f.get("yanked") and norm(m.group(1)) == norm(project):
            yield f["filename"], m.group(2), m.group(3), m.group(4), sha


def candidates(project, version):
    """(file, sha256, pyver, abi) for each CPython or pure-py3 win_amd64 wheel of VERSION."""
    out = []
    for name, ver, py, abi, sha in win_wheels(project):
        if ver != version:
            continue
        m = re.fullmatch(r"cp3(\d+)", py)
        if m and abi in ("cp3" + m.group(1), "cp3" + m.group(1) + "m"):
            out.append((name, sha, "3." + m.group(1), abi))
        elif m and abi == "abi3" and int(m.group(1)) <= 11:  # the stable ABI: any newer CPython (PyQt5)
            out.append((name, sha, "3.11", abi))
        elif py in ("py3", "py2.py3") and abi == "none":
            out.append((name, sha, "3.11", abi))
    return out


def resolve(project, version, want="3.11"):
    c = candidates(project, version)
    if not c:
        return None
    for t in c:
        if t[2] == want:
            return t
    if want != "3.11":  # a named Python: that build or nothing
        return None
    return max(c, key=lambda t: int(t[2].split(".")[1]))


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def fetch(project, version, want="3.11"):
    t = resolve(project, version, want)
    if t is None:
        print("wheels.py: PyPI lists no win_amd64 wheel of %s %s" % (project, version), file=sys.stderr)
        return REFUSED
    name, sha, pyver, abi = t
    final = os.path.join(cache_dir(), sha, name)
    if os.path.isfile(final):
        print(final)
        return 0
    pip_py = os.environ.get("TDC_PIP_PYTHON", sys.executable)
    os.makedirs(cache_dir(), exist_ok=True)
    tmp = tempfile.mkdtemp(dir=cache_dir(), prefix=".fetch-")
    try:
        req = os.path.join(tmp, "req.txt")
        with open(req, "w") as f:
            f.write("%s==%s --hash=sha256:%s\n" % (project, version, sha))
        dl = os.path.join(tmp, "dl")
        cmd = [pip_py, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
               "--platform", "win_amd64", "--python-version", pyver, "--abi", abi,
               "--require-hashes",
               "--disable-pip-version-check", "-q", "-r", req, "-d", dl]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        got = os.path.join(dl, name)
        if r.returncode != 0 or not os.path.isfile(got):
            print("wheels.py: pip download of %s failed:\n%s" % (name, r.stdout[-2000:]), file=sys.stderr)
            return REFUSED
        if sha256_of(got) != sha:
            print("wheels.py: %s: sha256 differs from PyPI's %s" % (name, sha), file=sys.stderr)
            return REFUSED
        os.makedirs(os.path.join(tmp, "out"))
        os.rename(got, os.path.join(tmp, "out", name))
        try:
            os.rename(os.path.join(tmp, "out"), os.path.join(cache_dir(), sha))
        except OSError:
            if not os.path.isfile(final):  # another run won the race with the same bytes
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(final)
    return 0


def vkey(v):
    return tuple(int(x) for x in v.split("."))


def versions(project):
    """Every final release (X.Y.Z) with a win_amd64 wheel, oldest first."""
    seen = {v for _, v, _, _, _ in win_wheels(project) if re.fullmatch(r"\d+\.\d+\.\d+", v)}
    for v in sorted(seen, key=vkey):
        print(v)
    return 0


def main(argv):
    if len(argv) == 4 and argv[1] == "resolve":
        t = resolve(argv[2], argv[3])
        if t is None:
            return REFUSED
        print(" ".join(t))
        return 0
    if len(argv) in (4, 5) and argv[1] == "fetch":
        return fetch(argv[2], argv[3], *argv[4:])
    if len(argv) == 3 and argv[1] == "versions":
        return versions(argv[2])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except OSError as e:  # network refused, DNS, disk
        print("wheels.py: %s" % e, file=sys.stderr)
        sys.exit(REFUSED)
