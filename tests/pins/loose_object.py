#!/usr/bin/env python3
"""loose_object.py GITDIR SIZE [DECLARED [TYPE]]: writes a loose object of SIZE bytes of content
("# x" then spaces, a valid pin file's comment) whose header says DECLARED bytes (default SIZE),
zlib-compressed in 1 MiB steps, so a 1 GiB blob takes about 1 MB on disk (a "blob bomb"); a
DECLARED that differs from SIZE makes a header that lies. Prints the object id (the SHA-1 git
would give it, of the header as written)."""
import hashlib
import os
import sys
import zlib

gitdir, size = sys.argv[1], int(sys.argv[2])
declared = int(sys.argv[3]) if len(sys.argv) > 3 else size
kind = sys.argv[4] if len(sys.argv) > 4 else "blob"
hdr = b"%s %d\0" % (kind.encode(), declared)
h = hashlib.sha1(hdr)
z = zlib.compressobj(9)
tmp = os.path.join(gitdir, "objects", "loose.tmp")
with open(tmp, "wb") as f:
    f.write(z.compress(hdr))
    first = b"# x\n"[:size]
    h.update(first)
    f.write(z.compress(first))
    left = size - len(first)
    chunk = b" " * (1 << 20)
    while left > 0:
        c = chunk[:min(left, len(chunk))]
        h.update(c)
        f.write(z.compress(c))
        left -= len(c)
    f.write(z.flush())
oid = h.hexdigest()
d = os.path.join(gitdir, "objects", oid[:2])
os.makedirs(d, exist_ok=True)
os.replace(tmp, os.path.join(d, oid[2:]))
print(oid)
