#!/usr/bin/env bash
# survey.sh [VERSION...]: the matrix's evidence (`make wheels-survey`; not in CI).
#
# For every torch release PyPI serves for win_amd64 (or the VERSIONs given):
# fetch the wheel (tests/lib/wheels.py: pip, sha256 checked against PyPI's
# index, cached by file name + sha256), unpack its torch\lib, its top-level
# .pyd files and version.py into a temporary folder, run
# `torch-dll-check matrix derive --json` over it and print one line:
#
#   VERSION FILE sha256=… toolset=14.xx(BINARY) vcruntime140_1=yes|no
#     openmp=DLL(bundled|absent:IMPORTER+…),… runtime=DLL,…
#
# (one line; wrapped here). A release pip refuses prints `VERSION refused: WHY`.
# matrix/evidence/torch-win_amd64.txt is this output, committed; the rows of
# matrix/torch.yml cite it. WHEELS_SURVEY_DROP=1 (what `make wheels-survey`
# sets) deletes each wheel the survey itself fetched once it is measured, so
# the sweep (~8 GB) leaves only the wheels that were cached before.
#
# survey.sh --table FILE: the survey as the Markdown table of matrix/README.md.
set -u
cd "$(dirname "$0")/../.." || exit 2
if [ "${1:-}" = --table ]; then
	echo "| torch | wheel (sha256) | toolset (newest linker) | OpenMP imported | vcruntime140_1 | other runtime DLLs | minimum redistributable |"
	echo "|---|---|---|---|---|---|---|"
	awk '$2 == "refused:" { $1 = $1; v = $1; $1 = ""; printf "| %s | pip: %s | | | | | |\n", v, substr($0, 2); next }
	{
		for (i = 3; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		t = f["toolset"]; sub(/\(.*/, "", t)
		omp = f["openmp"]; gsub(/\(bundled:/, " (bundled; ", omp); gsub(/\(absent:/, " (**not shipped**; ", omp)
		gsub(/\+/, ", ", omp); gsub(/\),/, "); ", omp)
		rt = f["runtime"]; gsub(/(^|,)(vcruntime140|vcruntime140_1|msvcp140)\.dll/, "", rt); sub(/^,/, "", rt); gsub(/,/, ", ", rt)
		printf "| %s | `%s` (%s…) | %s | %s | %s | %s | %s |\n", $1, $2, substr(f["sha256"], 1, 12), f["toolset"], omp,
			f["vcruntime140_1"], rt == "" ? "-" : rt, t
	}' "$2"
	exit 0
fi
source tests/lib/wheels.sh
BIN=${TDC_BIN:-$PWD/torch-dll-check}
PY=$(pip_python) || exit 2

versions=("$@")
[ ${#versions[@]} -gt 0 ] || mapfile -t versions < <("$PY" "$WHEELS_PY" versions torch)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for v in "${versions[@]}"; do
	had=
	read -r f s _ < <("$PY" "$WHEELS_PY" resolve torch "$v" 2>/dev/null) && [ -f "$TDC_CACHE/pypi/$s/$f" ] && had=1
	if ! whl=$(wheel_fetch torch "$v" 2>"$tmp/err"); then
		echo "$v refused: $(grep -v '^\s*$' "$tmp/err" | tail -1 | tr -s ' ')"
		continue
	fi
	rm -rf "$tmp/t"
	"$PY" - "$whl" "$tmp/t" <<'PYEOF' || { echo "$v unreadable: $(basename "$whl")"; continue; }
import re, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
for n in z.namelist():
    if re.fullmatch(r"torch/(lib/[^/]+\.dll|[^/]+\.pyd|version\.py)", n, re.I):
        z.extract(n, sys.argv[2])
PYEOF
	sha=$(basename "$(dirname "$whl")")
	"$BIN" matrix derive --json "$tmp/t" >"$tmp/d.json" || { echo "$v derive failed: $(basename "$whl")"; continue; }
	jq -r --arg v "$v" --arg f "$(basename "$whl")" --arg s "$sha" '.[0] |
		"\($v) \($f) sha256=\($s) toolset=\(.toolset)(\(.toolset_from)) vcruntime140_1=\(if .vcruntime140_1 then "yes" else "no" end)" +
		" openmp=\([.openmp[] | "\(.dll)(\(if .bundled then "bundled" else "absent" end):\(.importers | join("+")))"] | if length == 0 then "none" else join(",") end)" +
		" runtime=\(.runtime_dlls | join(","))"' "$tmp/d.json"
	if [ "${WHEELS_SURVEY_DROP:-}" = 1 ] && [ -z "$had" ]; then rm -rf "$(dirname "$whl")"; fi
done
exit 0
