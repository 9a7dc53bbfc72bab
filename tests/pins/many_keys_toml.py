#!/usr/bin/env python3
"""many_keys_toml.py KEYS_PER_TABLE TOTAL_BYTES: a pyproject.toml pinning torch, then [tool.tN] tables of
KEYS_PER_TABLE keys each until TOTAL_BYTES (duplicate keys were found by a linear scan: quadratic per table)."""
import sys

k, total = int(sys.argv[1]), int(sys.argv[2])
out = ['[project]\nname = "x"\ndependencies = ["torch==2.4.0"]\n']
size, t = 0, 0
while size < total:
    lines = ['[tool.t%d]\n' % t] + ['key%d = "v"\n' % i for i in range(k)]
    s = ''.join(lines); out.append(s); size += len(s); t += 1
sys.stdout.write(''.join(out))
