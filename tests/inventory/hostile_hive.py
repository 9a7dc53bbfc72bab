#!/usr/bin/env python3
"""hostile_hive.py OUT KIND [N] [VALUE_BYTES]: writes a regf SOFTWARE hive whose cells loop or are shared,
as an attacker would write one (format: "Windows registry file format specification",
github.com/msuhanov/regf). Keys: ROOT\\Python\\Loop with N subkeys K0..K(N-1).
KIND: ok     - a sane hive: each Ki has its own value (VALUE_BYTES of data) and no subkeys
      loop   - each Ki's subkey list is Loop's own list (the tree loops back on itself)
      share  - every Ki's value list is one shared list (one value cell reached N times)
      both   - loop, and every Ki's value list is N references to one value cell
      data   - each Ki has a value cell of its own, all pointing at one data cell
"""
import struct
import sys

out, kind = sys.argv[1], sys.argv[2]
n = int(sys.argv[3]) if len(sys.argv) > 3 else 100
vbytes = int(sys.argv[4]) if len(sys.argv) > 4 else 16000
assert vbytes <= 16344
cells = bytearray()
BASE = 0x20  # first cell offset within the hive bins (after the hbin header)


def alloc(payload):
    global cells
    size = (4 + len(payload) + 7) // 8 * 8
    off = BASE + len(cells)
    cells += struct.pack("<i", -size) + payload + b"\0" * (size - 4 - len(payload))
    return off


def patch(off, payload):
    cells[off - BASE + 4: off - BASE + 4 + len(payload)] = payload


def nk(name, parent, flags=0x20):
    b = name.encode()
    return alloc(struct.pack("<2sHQIIIIIIIIIIIIIIIHH", b"nk", flags, 0, 0, parent, 0, 0, 0xFFFFFFFF, 0xFFFFFFFF,
                             0, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0, 0, 0, 0, 0, len(b), 0) + b)


def set_subkeys(key, count, lst):
    patch(key + 0x14, struct.pack("<I", count))
    patch(key + 0x1C, struct.pack("<I", lst))


def set_values(key, count, lst):
    patch(key + 0x24, struct.pack("<II", count, lst))


def li(offs):
    return alloc(struct.pack("<2sH", b"li", len(offs)) + b"".join(struct.pack("<I", o) for o in offs))


def value(name, data, d=None):
    d = alloc(data) if d is None else d
    b = name.encode()
    return alloc(struct.pack("<2sHIIIHH", b"vk", len(b), len(data), d, 3, 1, 0) + b)  # REG_BINARY, ASCII name


root = nk("ROOT", 0xFFFFFFFF, 0x2C)
sd = struct.pack("<BBHIIII", 1, 0, 0x8000, 0, 0, 0, 0)
sk = alloc(struct.pack("<2sHIIII", b"sk", 0, 0, 0, 0, len(sd)) + sd)
patch(sk + 4, struct.pack("<II", sk, sk))
patch(sk + 12, struct.pack("<I", n + 3))
py = nk("Python", root)
loop = nk("Loop", py)
for k in (root, py, loop):
    patch(k + 0x2C, struct.pack("<I", sk))
set_subkeys(root, 1, li([py]))
set_subkeys(py, 1, li([loop]))
kids = [nk("K%d" % i, loop) for i in range(n)]
for k in kids:
    patch(k + 0x2C, struct.pack("<I", sk))
kl = li(kids)
set_subkeys(loop, n, kl)
shared = None
shared_data = alloc(bytes([0x41]) * vbytes) if kind == "data" else None
for i, k in enumerate(kids):
    if kind == "data":
        set_values(k, 1, alloc(struct.pack("<I", value("V", bytes(vbytes), shared_data))))
    elif kind in ("share", "both"):
        if shared is None:
            v = value("V", bytes([0x41]) * vbytes)
            shared = alloc(struct.pack("<I", v) * (n if kind == "both" else 1))
        set_values(k, n if kind == "both" else 1, shared)
    else:
        set_values(k, 1, alloc(struct.pack("<I", value("V", bytes([0x41 + i % 26]) * vbytes))))
    if kind in ("loop", "both"):
        set_subkeys(k, n, kl)
body = bytes(cells)
total = (0x20 + len(body) + 8 + 4095) // 4096 * 4096
free = total - 0x20 - len(body)
hbin = struct.pack("<4sIIQQI", b"hbin", 0, total, 0, 0, 0) + body + struct.pack("<i", free) + b"\0" * (free - 4)
fname = "\\SystemRoot\\System32\\Config\\SOFTWARE"[-31:].encode("utf-16-le")
base = struct.pack("<4sIIQIIIIIII", b"regf", 1, 1, 0, 1, 5, 0, 1, root, total, 1)
base += fname + b"\0" * (64 - len(fname))
base += b"\0" * (508 - len(base))
csum = 0
for i in range(0, 508, 4):
    csum ^= struct.unpack_from("<I", base, i)[0]
csum = {0: 1, 0xFFFFFFFF: 0xFFFFFFFE}.get(csum, csum)
base += struct.pack("<I", csum) + b"\0" * (4096 - 512)
open(out, "wb").write(base + hbin)
