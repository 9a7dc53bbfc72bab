#!/usr/bin/python3
"""pefile_parse.py FILE...: what a Python tool built on pefile does to list a
DLL's imports and exports cheaply: fast_load, then only the import, export
and delay-import directories. Used by bench/run.sh as the pefile row."""
import sys

import pefile

DIRS = [pefile.DIRECTORY_ENTRY[d] for d in ("IMAGE_DIRECTORY_ENTRY_IMPORT",
                                            "IMAGE_DIRECTORY_ENTRY_EXPORT",
                                            "IMAGE_DIRECTORY_ENTRY_DELAY_IMPORT")]
n = 0
for path in sys.argv[1:]:
    pe = pefile.PE(path, fast_load=True)
    pe.parse_data_directories(directories=DIRS)
    for imp in getattr(pe, "DIRECTORY_ENTRY_IMPORT", []):
        n += len(imp.imports)
    for imp in getattr(pe, "DIRECTORY_ENTRY_DELAY_IMPORT", []):
        n += len(imp.imports)
    exp = getattr(pe, "DIRECTORY_ENTRY_EXPORT", None)
    if exp:
        n += len(exp.symbols)
    pe.close()
print(n)
