#!/usr/bin/env python3
"""record.py SITE DIST_INFO TOP...: writes DIST_INFO/RECORD as pip does for the
files under SITE/TOP... and DIST_INFO (path relative to SITE with '/',
sha256=<urlsafe base64 without padding>, size; RECORD's own row with both
fields empty) — "Recording installed projects", PEP 376 / PEP 627.
A test tree built by hand then looks like what pip leaves behind."""
import base64
import csv
import hashlib
import os
import sys


def main(argv):
    site, di = argv[1], argv[2]
    rows = []
    for top in argv[3:] + [os.path.relpath(di, site)]:
        for d, dirs, files in os.walk(os.path.join(site, top)):
            dirs.sort()
            for f in sorted(files):
                p = os.path.join(d, f)
                rel = os.path.relpath(p, site).replace(os.sep, "/")
                if rel == os.path.relpath(os.path.join(di, "RECORD"), site).replace(os.sep, "/"):
                    continue
                with open(p, "rb") as fh:
                    data = fh.read()
                h = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                rows.append([rel, "sha256=" + h, str(len(data))])
    rows.append([os.path.relpath(os.path.join(di, "RECORD"), site).replace(os.sep, "/"), "", ""])
    with open(os.path.join(di, "RECORD"), "w", newline="") as fh:
        csv.writer(fh, lineterminator="\n").writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
