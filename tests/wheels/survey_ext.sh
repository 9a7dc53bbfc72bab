#!/usr/bin/env bash
# survey_ext.sh [PROJECT...]: which torch each torch extension release was
# built for — the pairing data the checker embeds (`make extensions-survey`;
# not in CI: it fetches every win_amd64 wheel of torchvision and torchaudio,
# about 300 MB, deleting each one it fetched itself once measured).
#
# For every release PyPI serves for win_amd64 (tests/lib/wheels.py: the
# cp311 wheel, else the newest CPython's; fetched with pip, sha256 checked
# against PyPI's index, cached by file name + sha256), the wheel's own
# `*.dist-info/METADATA` is read and its `Requires-Dist: torch` written as
# one line:
#
#   PROJECT VERSION FILE sha256=... torch==X        (an exact pin)
#   PROJECT VERSION FILE sha256=... torch SPEC      (another specifier; "torch -": any, or no torch requirement)
#   PROJECT VERSION refused: WHY                    (PyPI or pip did not give the file)
#
# matrix/evidence/extensions-win_amd64.txt is this output, committed; the
# checker embeds it (checker/matrix/pairs.h) to name the release that
# matches an installed torch, and `check --pins` judges pinned pairs by it.
set -u
cd "$(dirname "$0")/../.." || exit 2
source tests/lib/wheels.sh
PY=$(pip_python) || exit 2
projects=("$@")
[ ${#projects[@]} -gt 0 ] || projects=(torchvision torchaudio)
for p in "${projects[@]}"; do
	mapfile -t versions < <("$PY" "$WHEELS_PY" versions "$p")
	for v in "${versions[@]}"; do
		had=
		read -r f s _ < <("$PY" "$WHEELS_PY" resolve "$p" "$v" 2>/dev/null) && [ -f "$TDC_CACHE/pypi/$s/$f" ] && had=1
		if ! whl=$(wheel_fetch "$p" "$v" 2>/tmp/survey_ext.err.$$); then
			echo "$p $v refused: $(grep -v '^\s*$' /tmp/survey_ext.err.$$ | tail -1 | tr -s ' ')"
			continue
		fi
		"$PY" - "$p" "$v" "$whl" <<'PYEOF'
import email.parser, os, re, sys, zipfile
p, v, whl = sys.argv[1:4]
z = zipfile.ZipFile(whl)
meta = [n for n in z.namelist() if re.fullmatch(r"[^/]+\.dist-info/METADATA", n)]
if len(meta) != 1:
    print("%s %s unreadable: %d METADATA files in %s" % (p, v, len(meta), os.path.basename(whl)))
    sys.exit(0)
msg = email.parser.HeaderParser().parsestr(z.read(meta[0]).decode("utf-8", "replace"))
torch = "torch -"  # no torch requirement at all
for r in msg.get_all("Requires-Dist") or []:
    m = re.match(r"\s*torch\s*(?:\(([^)]*)\)|([^;]*))\s*(;.*)?$", r)
    if m and not (m.group(3) and "extra" in m.group(3)):
        spec = (m.group(1) or m.group(2) or "").replace(" ", "")
        torch = "torch" + spec if spec.startswith("==") and "," not in spec and "*" not in spec else "torch " + (spec or "-")
sha = os.path.basename(os.path.dirname(whl))
print("%s %s %s sha256=%s %s" % (p, v, os.path.basename(whl), sha, torch))
PYEOF
		if [ -z "$had" ]; then rm -rf "$(dirname "$whl")"; fi
	done
done
rm -f /tmp/survey_ext.err.$$
exit 0
