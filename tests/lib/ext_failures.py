#!/usr/bin/env python3
"""ext_failures.py ROOT N: a tree whose torch (2.5.1+cpu, torch\\lib holding
one c10.dll) has an extension distribution `ext` with N binaries, each in
its own folder (ext\\dI\\m.pyd), each importing c10.dll and a DLL that
exists nowhere (missingI.dll): N extension load failures, 126 each. Minimal
x64 PE files written directly (1.5 KiB each). Used by
tests/check/test_ext_scale.sh."""
import os, struct, sys
def dll(own, imports):
    SEC_RVA, SEC_OFF, SEC_SIZE = 0x1000, 0x400, 0x400
    sec = bytearray(SEC_SIZE)
    ed, eat = 0x1000, 0x1040
    names = 0x1200
    own_b = own.encode()+b"\0"
    struct.pack_into("<IIHHIIIIIII", sec, 0, 0, 0, 0, 0, names, 1, 1, 0, eat, 0, 0)
    struct.pack_into("<I", sec, eat - SEC_RVA, 0x1180)
    sec[names-SEC_RVA:names-SEC_RVA+len(own_b)] = own_b
    imp = 0x1060; thunks = 0x1100; nrva = names + 0x40
    for j, d in enumerate(imports):
        b = d.encode()+b"\0"
        sec[nrva-SEC_RVA:nrva-SEC_RVA+len(b)] = b
        ilt = thunks + j*32
        struct.pack_into("<IIIII", sec, imp - SEC_RVA + 20*j, ilt, 0, 0, nrva, ilt+16)
        struct.pack_into("<Q", sec, ilt - SEC_RVA, 0x8000000000000001)
        struct.pack_into("<Q", sec, ilt + 16 - SEC_RVA, 0x8000000000000001)
        nrva += len(b) + 1
    hdr = bytearray(SEC_OFF)
    hdr[0:2] = b"MZ"; struct.pack_into("<I", hdr, 0x3C, 0x80); hdr[0x80:0x84] = b"PE\0\0"
    struct.pack_into("<HHIIIHH", hdr, 0x84, 0x8664, 1, 0, 0, 0, 240, 0x2022)
    opt = 0x98
    struct.pack_into("<HBB", hdr, opt, 0x20B, 14, 38)
    struct.pack_into("<Q", hdr, opt + 24, 0x180000000)
    struct.pack_into("<II", hdr, opt + 32, 0x1000, 0x200)
    struct.pack_into("<II", hdr, opt + 56, 0x2000, SEC_OFF)
    struct.pack_into("<HH", hdr, opt + 68, 2, 0x160)
    struct.pack_into("<I", hdr, opt + 108, 16)
    struct.pack_into("<II", hdr, opt + 112, ed, 0x40)
    if imports: struct.pack_into("<II", hdr, opt + 120, imp, 20*(len(imports)+1))
    st = opt + 240
    hdr[st:st + 8] = b".data\0\0\0"
    struct.pack_into("<IIII", hdr, st + 8, SEC_SIZE, SEC_RVA, SEC_SIZE, SEC_OFF)
    struct.pack_into("<I", hdr, st + 36, 0xC0000040)
    return bytes(hdr+sec)
root, N = sys.argv[1], int(sys.argv[2])
sp = os.path.join(root, "Python311/Lib/site-packages")
os.makedirs(sp+"/torch/lib", exist_ok=True)
open(sp+"/torch/version.py","w").write("__version__ = '2.5.1+cpu'\n")
open(sp+"/torch/lib/c10.dll","wb").write(dll("c10.dll", []))
di = sp+"/ext-1.0.dist-info"; os.makedirs(di, exist_ok=True)
open(di+"/METADATA","w").write("Metadata-Version: 2.1\nName: ext\nVersion: 1.0\nRequires-Dist: torch\n")
rec = []
for i in range(N):
    d = "ext/d%d" % i; os.makedirs(sp+"/"+d, exist_ok=True)
    open(sp+"/"+d+"/m.pyd","wb").write(dll("m.pyd", ["c10.dll", "missing%d.dll" % i]))
    rec.append(d+"/m.pyd,,")
rec.append("ext-1.0.dist-info/METADATA,,"); rec.append("ext-1.0.dist-info/RECORD,,")
open(di+"/RECORD","w").write("\n".join(rec)+"\n")
