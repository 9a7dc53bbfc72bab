#!/usr/bin/python3
"""cpython_pyds.py TORCH_DIR TAG PLATFORM: the extension modules CPython imports.

Prints, one host path a line (sorted), every .pyd under TORCH_DIR that
CPython's importlib would load for a module, for an interpreter whose
importlib.machinery.EXTENSION_SUFFIXES are ['.<TAG>-<PLATFORM>.pyd', '.pyd']
(Windows CPython 3.5+, Include/internal/pycore_importdl.h: PYD_TAGGED_SUFFIX
then PYD_UNTAGGED_SUFFIX). The scenario oracle is handed this list: the
oracle is a real loader, not a real Python, so which files Python picks is
decided here, by importlib's own rules (Lib/importlib/_bootstrap_external.py,
FileFinder.find_spec and _fill_cache), written independently of the
checker's C:

  - a module name is a file name up to its first '.'; on Windows FileFinder
    lower-cases the rest (the suffix) in its cache, the module part is kept;
  - for a module, the suffixes are tried in EXTENSION_SUFFIXES order and the
    first file that exists wins (a .py/.pyc beside it would come later);
  - a folder of that name holding __init__ with a known suffix is a package
    and wins over the file;
  - folders are packages only under a name Python can import (an
    identifier); torch\\lib holds torch's DLLs and is not an import path.
"""
import os
import sys


def main():
    top, tag, plat = sys.argv[1], sys.argv[2], sys.argv[3]
    suffixes = [f".{tag}-{plat}.pyd", ".pyd"]
    init_suffixes = suffixes + [".py", ".pyc"]
    out = []

    def walk(d, is_top):
        names = os.listdir(d)
        cache = {}
        for n in names:
            mod, dot, rest = n.partition(".")
            if dot:
                cache.setdefault((mod, "." + rest.lower()), n)
        mods = sorted({mod for (mod, _) in cache})
        for mod in mods:
            pkg = os.path.join(d, mod)
            if os.path.isdir(pkg) and any(os.path.isfile(os.path.join(pkg, "__init__" + s)) for s in init_suffixes):
                continue
            for s in suffixes:
                n = cache.get((mod, s))
                if n and os.path.isfile(os.path.join(d, n)):
                    out.append(os.path.join(d, n))
                    break
        for n in names:
            p = os.path.join(d, n)
            if is_top and n.lower() == "lib":
                continue
            if n.isidentifier() and os.path.isdir(p) and not os.path.islink(p):
                walk(p, False)

    walk(top, True)
    for p in sorted(out):
        print(p)


if __name__ == "__main__":
    main()
