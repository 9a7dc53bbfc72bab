#!/usr/bin/env python3
"""gen_reg_export.py OUT MB: a `reg export HKLM`-like file of about MB megabytes.

UTF-16LE with a BOM and CRLF line ends, as reg.exe writes it: key after key
of the shapes a real export is made of (strings with escapes, DWORDs,
REG_EXPAND_SZ / REG_MULTI_SZ / REG_BINARY as hex lists continued over
several lines, default values, non-ASCII text), with the VC++ runtime keys
the inventory reads at the very end, so a reader must get through all of it.
"""
import sys

out, mb = sys.argv[1], int(sys.argv[2])
target = mb * 1000 * 1000


def hexlist(data, first):
    parts, line, width = [], "", first
    for i, b in enumerate(data):
        tok = "%02x" % b + ("," if i + 1 < len(data) else "")
        if width + len(tok) > 77:
            parts.append(line + "\\")
            line, width = "  ", 2
        line += tok
        width += len(tok)
    parts.append(line)
    return "\r\n".join(parts)


def block(n):
    k = "HKEY_LOCAL_MACHINE\\SOFTWARE\\Vendor%d\\Product %d\\Settings\\%d" % (n % 97, n % 1013, n)
    path = "C:\\\\Program Files\\\\Vendor%d\\\\Product %d\\\\bin" % (n % 97, n % 1013)
    exp = "%ProgramFiles%\\Vendor\\" + str(n)
    lines = [
        "[%s]" % k,
        '@="Product %d – Jürgen\'s \\"build\\""' % n,
        '"InstallDir"="%s"' % path,
        '"Version"=dword:%08x' % (n & 0xFFFFFFFF),
        '"Flags"=dword:00000001',
        '"Path"=hex(2):' + hexlist((exp + "\0").encode("utf-16-le"), 14),
        '"Blob"=hex:' + hexlist(bytes((n * 7 + i) & 0xFF for i in range(48)), 11),
        '"List"=hex(7):' + hexlist("a\0b\0\0".encode("utf-16-le"), 14),
        "",
    ]
    return "\r\n".join(lines) + "\r\n"


tail = (
    "[HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes\\x64]\r\n"
    '"Installed"=dword:00000001\r\n"Major"=dword:0000000e\r\n"Minor"=dword:00000028\r\n'
    '"Bld"=dword:000083f2\r\n"Rbld"=dword:00000000\r\n"Version"="v14.40.33810.00"\r\n\r\n'
)
with open(out, "wb") as f:
    f.write(b"\xff\xfe" + "Windows Registry Editor Version 5.00\r\n\r\n".encode("utf-16-le"))
    written, n = 0, 0
    while written < target:
        chunk = "".join(block(n + i) for i in range(2000)).encode("utf-16-le")
        f.write(chunk)
        written += len(chunk)
        n += 2000
    f.write(tail.encode("utf-16-le"))
