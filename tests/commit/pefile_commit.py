#!/usr/bin/env python3
"""pefile_commit.py: the commit each DLL charges, read independently of the
checker with pefile (Debian's python3-pefile): the sum of its writable
sections' virtual sizes (VirtualSize, or SizeOfRawData when 0) rounded up to
the section alignment, at most SizeOfImage (docs/commit.md). Prints
"<bytes> <path>" per file."""
import sys

import pefile

WRITE = 0x80000000


def up(v, a):
    return (v + a - 1) // a * a


for path in sys.argv[1:]:
    pe = pefile.PE(path, fast_load=True)
    align = pe.OPTIONAL_HEADER.SectionAlignment
    image = up(pe.OPTIONAL_HEADER.SizeOfImage, 4096)
    total = 0
    for s in pe.sections:
        if s.Characteristics & WRITE:
            total += up(up(s.Misc_VirtualSize or s.SizeOfRawData, align), 4096)
    print(min(total, image), path)
