#!/usr/bin/python3
"""pefile_missing.py ROOT TORCH_DIR: what a pefile script reports as missing.

The dependency walk people write with pefile: start from every DLL in
torch\\lib and every .pyd of the torch package, read each import table
(pefile, fast_load + the import directory), and look each imported DLL name
up, case-insensitively, in torch\\lib, the Python folder and ROOT's
Windows/System32; api-ms-win-* names count as present (the API set schema);
recurse into what was found. Prints the missing names, sorted, one per line.
It knows no search order, no KnownDLLs, no missing functions, no versions:
this is the baseline the bench compares the checker with.
"""
import os
import sys

import pefile


def main(root, torch):
    lib = os.path.join(torch, "lib")
    py = os.path.dirname(os.path.dirname(os.path.dirname(torch)))  # PythonXY/Lib/site-packages/torch
    dirs = [lib, py, os.path.join(root, "Windows", "System32")]
    index = {}
    for d in dirs:
        for n in os.listdir(d) if os.path.isdir(d) else []:
            index.setdefault(n.lower(), os.path.join(d, n))
    todo = [os.path.join(lib, n) for n in os.listdir(lib) if n.lower().endswith(".dll")]
    todo += [os.path.join(torch, n) for n in os.listdir(torch) if n.lower().endswith(".pyd")]
    seen, missing = set(), set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        pe = pefile.PE(p, fast_load=True)
        pe.parse_data_directories(directories=[pefile.DIRECTORY_ENTRY["IMAGE_DIRECTORY_ENTRY_IMPORT"]])
        for d in getattr(pe, "DIRECTORY_ENTRY_IMPORT", []):
            name = d.dll.decode("latin-1").lower()
            if name.startswith("api-ms-win-") or name.startswith("ext-ms-"):
                continue
            if name in index:
                todo.append(index[name])
            else:
                missing.add(name)
        pe.close()
    for m in sorted(missing):
        print(m)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
