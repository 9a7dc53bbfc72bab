#!/usr/bin/env bash
# test_lint_cost: linting a torch_load layer of 256 entries (the cap), 255 of them
# ">=X.0,<X.1" plus 30 `!=` clauses, compares every pair of entries for an
# overlap; each comparison tried every sample version of both ranges against
# both (~0.9 s of CPU for the layer here, 5-10 s for the worst layers, on
# every `check --matrix`). Ranges whose `>=` floor and `<` ceiling cannot meet
# are now told apart without the samples (matrix_proc.c floor_above_ceiling):
# under 0.3 s of CPU, the same verdict.
set -u
TEST_NAME=matrix/lint-cost
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
REL=$TDC_BIN
python3 - "$tmp/tl.yml" <<'PY'
import sys
out = ["schema: 1", "rows: []", "torch_load:"]
ne = ",".join("!=9.%d" % k for k in range(30))
for i in range(255):
    out.append('  - torch: ">=%d.0,<%d.1,%s"' % (100 + i, 100 + i, ne))
    out += ["    folders: [lib]", "    nvtx: true", "    vcruntime140_1: always", "    anchor: __file__",
            "    add: os.add_dll_directory+kernel32.AddDllDirectory", "    fallback: PATH+LoadLibraryW",
            "    status: inferred"]
out.append('  - torch: ">=354.0.5,<355"')  # overlaps the last entry: still found
out += ["    folders: [lib]", "    nvtx: true", "    vcruntime140_1: always", "    anchor: __file__",
        "    add: os.add_dll_directory+kernel32.AddDllDirectory", "    fallback: PATH+LoadLibraryW",
        "    status: inferred"]
open(sys.argv[1], "w").write("\n".join(out) + "\n")
PY
/usr/bin/time -f '%U %S' -o "$tmp/cpu" "$REL" matrix lint "$tmp/tl.yml" >"$tmp/out" 2>&1
check_cmd "the 256th entry overlapping the 255th is still found" grep -q "torch_load entries at lines [0-9]* and [0-9]* both cover torch 354.0.5" "$tmp/out"
read -r u s < <(tail -1 "$tmp/cpu")
check_cmd "...linting 256 entries of 32 clauses in under 0.3 s of CPU ($u s user, $s s system)" \
	python3 -c "import sys; sys.exit(0 if $u + $s < 0.3 else 1)"
tap_done
