#!/usr/bin/env python3
"""many_exports.py OUT N NAMED: writes a minimal x64 DLL whose export table
has N address-table slots (RVAs 0x100000 + i), the first NAMED of them named
export_NNNNNN (sorted, as the loader requires). Ordinal indices are 16-bit,
so at most 65,536 slots can have names: the rest are ordinal-only, as in
DLLs that outgrow the limit. Used by tests/pe/test_pe_cmd.sh (150,000 slots)
and bench/scale.sh (4,000,000 slots, the PE reader's cap)."""
import struct
import sys

out, N, NAMED = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
assert NAMED <= min(N, 65536)
names = sorted("export_%06d" % i for i in range(NAMED))
SEC_RVA, SEC_OFF = 0x1000, 0x400
# Section layout: export directory, address table, name pointers, ordinals, strings.
ed = SEC_RVA
eat = ed + 0x40
enpt = eat + 4 * N
eot = enpt + 4 * NAMED
strs = eot + 2 * NAMED
blob = bytearray(b"many.dll\0")
name_rvas = []
dllname_rva = strs
for n in names:
    name_rvas.append(strs + len(blob))
    blob += n.encode() + b"\0"
size = (strs - SEC_RVA) + len(blob)
size = (size + 0x1FF) & ~0x1FF
sec = bytearray(size)
struct.pack_into("<IIHHIIIIIII", sec, 0, 0, 0, 0, 0, dllname_rva, 1, N, NAMED, eat, enpt, eot)
sec[eat - SEC_RVA:eat - SEC_RVA + 4 * N] = struct.pack("<%dI" % N, *range(0x100000, 0x100000 + N))
sec[enpt - SEC_RVA:enpt - SEC_RVA + 4 * NAMED] = struct.pack("<%dI" % NAMED, *name_rvas)
sec[eot - SEC_RVA:eot - SEC_RVA + 2 * NAMED] = struct.pack("<%dH" % NAMED, *range(NAMED))
sec[strs - SEC_RVA:strs - SEC_RVA + len(blob)] = blob
hdr = bytearray(SEC_OFF)
hdr[0:2] = b"MZ"
struct.pack_into("<I", hdr, 0x3C, 0x80)
hdr[0x80:0x84] = b"PE\0\0"
struct.pack_into("<HHIIIHH", hdr, 0x84, 0x8664, 1, 0, 0, 0, 240, 0x2022)
opt = 0x98
struct.pack_into("<HBB", hdr, opt, 0x20B, 14, 38)
struct.pack_into("<Q", hdr, opt + 24, 0x180000000)
struct.pack_into("<II", hdr, opt + 32, 0x1000, 0x200)
struct.pack_into("<II", hdr, opt + 56, SEC_RVA + ((size + 0xFFF) & ~0xFFF), SEC_OFF)
struct.pack_into("<HH", hdr, opt + 68, 2, 0x160)
struct.pack_into("<I", hdr, opt + 108, 16)
struct.pack_into("<II", hdr, opt + 112, ed, 0x40)
st = opt + 240
hdr[st:st + 8] = b".edata\0\0"
struct.pack_into("<IIII", hdr, st + 8, size, SEC_RVA, size, SEC_OFF)
struct.pack_into("<I", hdr, st + 36, 0x40000040)
with open(out + ".tmp", "wb") as f:
    f.write(hdr + sec)
import os
os.replace(out + ".tmp", out)
