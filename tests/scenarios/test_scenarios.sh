#!/usr/bin/env bash
# test_scenarios.sh: the checker's static verdicts against a real loader.
#
# Builds (or reuses, from $TDC_CACHE) the scenario trees of build.sh, runs
# the oracle (tests/oracle/torchload_oracle.c: torch's and CPython's load
# procedure, for real) in each under Wine, runs `torch-dll-check check` on
# the same tree, and compares per binary (compare.py): the oracle against
# the reviewed table expected.tsv, the checker against the oracle — with
# Wine's known departures from Windows corrected in one explicit table
# (compare.py WINE_VS_WINDOWS, with sources). Warm cache: a few seconds.
# Needs wine (Debian `wine wine64`), the mingw-w64 and clang/lld cross tools
# and python3-pefile; says so and fails when they are missing.
set -u
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
export TEST_NAME=scenarios

for tool in wine wineserver x86_64-w64-mingw32-gcc i686-w64-mingw32-gcc clang lld-link; do
	command -v "$tool" >/dev/null || { not_ok "$tool is not installed (see .ci/deps)"; tap_done; }
done
/usr/bin/python3 -c 'import pefile' 2>/dev/null || { not_ok "python3-pefile is not installed"; tap_done; }

run=build/scenarios-run
rm -rf "$run"
mkdir -p "$run"
if ! bash tests/scenarios/run.sh "$run" >"$run/run.log" 2>&1; then
	not_ok "building or running the scenarios failed"
	sed 's/^/#   /' "$run/run.log" | tail -20
	tap_done
fi
/usr/bin/python3 tests/scenarios/compare.py "$run" tests/scenarios/expected.tsv
rc=$?

# The comparison must be able to fail: a doctored report (fbgemm.dll said
# to load where libomp140.x86_64.dll is missing) has to produce a not-ok line.
neg=$run/negative
mkdir -p "$neg"
cp "$run/SCENARIO_DIR" "$run/HAVE_CHECK" "$neg/"
if [ "$(cat "$run/HAVE_CHECK")" = 1 ]; then
	cp "$run"/libomp140_missing.* "$neg/"
	/usr/bin/python3 - "$neg/libomp140_missing.check.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1], encoding="utf-8"))
for b in r["installs"][0]["binaries"]:
    if b["path"].lower().endswith("\\fbgemm.dll"):
        b["winerror"], b["outcome"], b["stage"] = 0, "loads", "add_dll_directory"
json.dump(r, open(sys.argv[1], "w", encoding="utf-8"))
PY
	/usr/bin/python3 tests/scenarios/compare.py "$neg" tests/scenarios/expected.tsv >"$neg/out.txt"
	nrc=$?
	if [ $nrc -ne 0 ] && grep -q '^not ok - scenarios: libomp140_missing: fbgemm.dll: checker says 0 add_dll_directory' "$neg/out.txt"; then
		ok "a doctored checker verdict is caught (compare.py can fail)"
	else
		not_ok "compare.py did not catch a doctored checker verdict (exit $nrc)"
		rc=1
	fi
else
	skip "a doctored checker verdict is caught (compare.py can fail)" "torch-dll-check check is not available in this build"
fi
exit $rc
