#!/usr/bin/env python3
"""chain_dlls.py DIR N [PREFIX]: writes N minimal x64 DLLs PREFIX1.dll ..
PREFIXN.dll (default prefix "c") into DIR, each exporting ordinal 1 and
importing ordinal 1 of the next one: an import chain N modules deep, the
last DLL importing nothing. Each file is 1.5 KiB; 40,000 of them are written
in seconds (mingw would take an hour). Used by tests/loader/test_deep_chain.sh."""
import os
import struct
import sys

out_dir, N = sys.argv[1], int(sys.argv[2])
prefix = sys.argv[3] if len(sys.argv) > 3 else "c"
SEC_RVA, SEC_OFF, SEC_SIZE = 0x1000, 0x400, 0x200


def dll(i):
    own = ("%s%d.dll" % (prefix, i)).encode() + b"\0"
    nxt = ("%s%d.dll" % (prefix, i + 1)).encode() + b"\0" if i < N else None
    sec = bytearray(SEC_SIZE)
    ed, eat, imp, ilt, iat, names = 0x1000, 0x1040, 0x1060, 0x10A0, 0x10B0, 0x10C0
    own_rva = names
    struct.pack_into("<IIHHIIIIIII", sec, ed - SEC_RVA, 0, 0, 0, 0, own_rva, 1, 1, 0, eat, 0, 0)
    struct.pack_into("<I", sec, eat - SEC_RVA, 0x1180)  # outside the export directory: code, not a forwarder
    sec[own_rva - SEC_RVA:own_rva - SEC_RVA + len(own)] = own
    if nxt:
        nxt_rva = names + 0x40
        sec[nxt_rva - SEC_RVA:nxt_rva - SEC_RVA + len(nxt)] = nxt
        struct.pack_into("<IIIII", sec, imp - SEC_RVA, ilt, 0, 0, nxt_rva, iat)
        struct.pack_into("<Q", sec, ilt - SEC_RVA, 0x8000000000000001)
        struct.pack_into("<Q", sec, iat - SEC_RVA, 0x8000000000000001)
    hdr = bytearray(SEC_OFF)
    hdr[0:2] = b"MZ"
    struct.pack_into("<I", hdr, 0x3C, 0x80)
    hdr[0x80:0x84] = b"PE\0\0"
    struct.pack_into("<HHIIIHH", hdr, 0x84, 0x8664, 1, 0, 0, 0, 240, 0x2022)
    opt = 0x98
    struct.pack_into("<HBB", hdr, opt, 0x20B, 14, 38)
    struct.pack_into("<Q", hdr, opt + 24, 0x180000000)
    struct.pack_into("<II", hdr, opt + 32, 0x1000, 0x200)
    struct.pack_into("<II", hdr, opt + 56, 0x2000, SEC_OFF)
    struct.pack_into("<HH", hdr, opt + 68, 2, 0x160)
    struct.pack_into("<I", hdr, opt + 108, 16)
    struct.pack_into("<II", hdr, opt + 112, ed, 0x40)
    if nxt:
        struct.pack_into("<II", hdr, opt + 120, imp, 0x28)
    st = opt + 240
    hdr[st:st + 8] = b".data\0\0\0"
    struct.pack_into("<IIII", hdr, st + 8, SEC_SIZE, SEC_RVA, SEC_SIZE, SEC_OFF)
    struct.pack_into("<I", hdr, st + 36, 0xC0000040)
    return bytes(hdr + sec)


os.makedirs(out_dir, exist_ok=True)
for i in range(1, N + 1):
    with open(os.path.join(out_dir, "%s%d.dll" % (prefix, i)), "wb") as f:
        f.write(dll(i))
