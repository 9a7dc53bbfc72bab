#!/usr/bin/env python3
"""empty_hive.py OUT [NAME]: writes a minimal empty regf hive (8 KiB) to OUT.

Debian's hivex tools edit hives but cannot create one, and hivex's own empty
test image is not packaged: this writes the smallest hive they accept, from
the format description ("Windows registry file format specification",
github.com/msuhanov/regf): a 4096-byte base block, then one 4096-byte hive
bin holding the root key (nk), its security descriptor (sk, which hivex
copies to every key it adds) and one free cell for the rest.
NAME (default "SOFTWARE") goes into the base block's file name field.
"""
import struct
import sys


def cell(payload):
    size = (4 + len(payload) + 7) // 8 * 8
    return struct.pack("<i", -size) + payload + b"\0" * (size - 4 - len(payload))


def main():
    out = sys.argv[1]
    name = sys.argv[2] if len(sys.argv) > 2 else "SOFTWARE"
    nk_off, sk_off = 0x20, 0x20 + 0x58  # offsets relative to the start of the hive bins
    root_name = b"ROOT"
    nk = struct.pack(
        "<2sHQIIIIIIIIIIIIIIIHH",
        b"nk", 0x2C,  # KEY_HIVE_ENTRY | KEY_NO_DELETE | KEY_COMP_NAME
        0, 0,
        0xFFFFFFFF,  # parent: none
        0, 0, 0xFFFFFFFF, 0xFFFFFFFF,  # subkeys, volatile subkeys, their lists
        0, 0xFFFFFFFF,  # values and their list
        sk_off, 0xFFFFFFFF,  # security, class name
        0, 0, 0, 0, 0,  # largest name/class/value name/value data, workvar
        len(root_name), 0,
    ) + root_name
    nk_cell = cell(nk)
    assert len(nk_cell) == sk_off - nk_off, len(nk_cell)
    # self-relative security descriptor without owner, group or ACLs
    sd = struct.pack("<BBHIIII", 1, 0, 0x8000, 0, 0, 0, 0)
    sk = struct.pack("<2sHIIII", b"sk", 0, sk_off, sk_off, 1, len(sd)) + sd
    body = nk_cell + cell(sk)
    free = 4096 - 0x20 - len(body)
    hbin = struct.pack("<4sIIQQI", b"hbin", 0, 4096, 0, 0, 0) + body + struct.pack("<i", free) + b"\0" * (free - 4)
    assert len(hbin) == 4096
    fname = ("\\SystemRoot\\System32\\Config\\" + name)[-31:].encode("utf-16-le")
    base = struct.pack("<4sIIQIIIIIII", b"regf", 1, 1, 0, 1, 5, 0, 1, nk_off, 4096, 1)
    base += fname + b"\0" * (64 - len(fname))
    base += b"\0" * (508 - len(base))
    csum = 0
    for (d,) in struct.iter_unpack("<I", base):
        csum ^= d
    csum = {0: 1, 0xFFFFFFFF: 0xFFFFFFFE}.get(csum, csum)
    base += struct.pack("<I", csum) + b"\0" * (4096 - 512)
    with open(out, "wb") as f:
        f.write(base + hbin)


main()
