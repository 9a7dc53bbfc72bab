#!/usr/bin/env bash
# shellcheck disable=SC2317  # inert_patch and inert_tree_build run through fx_build
# test_inert_output: every command, in every output format, with hostile
# input, writes nothing that can act: under GITHUB_ACTIONS=true no workflow
# command but ours (text inside the one stop-commands guard, JSON escaped and
# still valid JSON), and outside Actions no raw control byte, C1 control or
# bidi character on the terminal, with the hostile bytes still shown (as
# visible escapes). checker/cli/out.h, text.h and jsonout.h are the mechanism.
#
# The hostile inputs (issue 9): a DLL importing
# x##[add-mask]torch##[error]pwned.dll (built by mingw from a .def); a DLL
# whose import name and own export name carry ESC, BEL, CR, LF, C1, a bidi
# override and bytes that are not UTF-8 (built, then the name bytes patched
# in the real file); a requirement line with python_version < "##[error]x";
# a reg export value with the same control characters; a matrix file with
# hostile keys; a torch\lib file whose name carries them, failing for the same
# cause as another binary, so the grouped forms (one annotation, summary entry
# and SARIF result per root cause) name it. Also: when no random token can be
# drawn the guard refuses.
set -u
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
TEST_NAME=inert

# shellcheck source=tests/lib/fixtures.sh
source tests/lib/fixtures.sh
# shellcheck source=tests/lib/trees/loader.sh
source tests/lib/trees/loader.sh
# shellcheck source=tests/lib/trees/torch240.sh
source tests/lib/trees/torch240.sh

IMP_PH=PPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPP.dll # 40 bytes, patched to the hostile import name
OWN_PH=QQQQQQQQQQQQQQQQQQQQQQQQQQQQ.dll         # 32 bytes, patched to the hostile own name
HOSTILE_FILE=$'x\e]0;t\a\r\n::error::f\xc2\x9b\xe2\x80\xae##[warning]w.dll' # a torch\lib file name

# inert_patch FILE: replaces the placeholder names in a built DLL by hostile bytes of the same length.
inert_patch() {
	python3 - "$1" <<'PY'
import sys
p = sys.argv[1]
b = open(p, "rb").read()
imp = b"\x1b]0;pwned\x07\x1b[2J\r\n::error::ctl\xc2\x9b\xe2\x80\xaeld\xff.dll"
own = b"\x1b[31m\x07\r\n##[warning]own\xc2\x85\xe2\x81\xa6\xfe.dll"
for ph, new in ((b"P" * 36 + b".dll", imp), (b"Q" * 28 + b".dll", own)):
    assert len(ph) == len(new) and ph in b, ph
    b = b.replace(ph, new)
open(p + ".tmp", "wb").write(b)
PY
	mv "$1.tmp" "$1"
}

inert_tree_build() {
	local d=$1 lib
	torch240_build "$d" || return 1
	lib=$d/Python311/Lib/site-packages/torch/lib
	make_dll "$lib/evil.dll" --export e --import 'x##[add-mask]torch##[error]pwned.dll:g' || return 1
	make_dll "$lib/ctl.dll" --name "$OWN_PH" --export c --import "$IMP_PH:h" || return 1
	inert_patch "$lib/ctl.dll"
	# a second torch binary failing for evil.dll's cause, its file name hostile:
	# the grouped forms name it among the binaries the cause affects
	cp "$lib/evil.dll" "$lib/$HOSTILE_FILE"
}

if ! root=$(FX_KEY=$( (declare -f loader_base torch_tree dist_info torch240_build inert_patch inert_tree_build
	echo "$IMP_PH $OWN_PH $HOSTILE_FILE") |
	sha256sum | cut -c1-16) fx_build inert_tree inert_tree_build 2>"$tmp/tree.err") || [ ! -d "$root" ]; then
	not_ok "cannot build the hostile tree"
	tail -5 "$tmp/tree.err" | sed 's/^/#   /'
	tap_done
fi
lib=$root/Python311/Lib/site-packages/torch/lib
TORCH='C:\Python311\Lib\site-packages\torch'

# A reg export (UTF-8) whose REG_SZ value holds ESC, BEL, CR, LF, C1 and RLO (hex(1): UTF-16LE).
python3 - "$tmp/evil.reg" <<'PY'
import sys
v = "v14.40\x1b]0;t\x07\r\n::error::reg\x9b\u202e##[error]r".encode("utf-16-le") + b"\0\0"
open(sys.argv[1], "w", encoding="utf-8").write(
    "Windows Registry Editor Version 5.00\r\n\r\n"
    "[HKEY_LOCAL_MACHINE\\SOFTWARE\\tdc-inert]\r\n"
    '"Version"=hex(1):' + ",".join("%02x" % c for c in v) + "\r\n"
    '"::error::name"=dword:00000001\r\n\r\n'
    # the VC++ redistributable key, whose Version `inventory` and `check` show as stored
    "[HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes\\x64]\r\n"
    '"Installed"=dword:00000001\r\n'
    '"Version"=hex(1):' + ",".join("%02x" % c for c in v) + "\r\n")
PY

# A matrix file with hostile keys and values (lint reports them).
printf 'schema: 1\nrows:\n  - id: "x\\e[2J\\a"\n    torch: "==2.4.0"\n    "##[error]yaml-key": 1\n    "::error::k": "\\u009b\\u202e"\n' >"$tmp/evil.yml"

# A repository whose requirement line carries a legacy command in a marker.
repo=$tmp/repo
git init -q -b main "$repo" && git -C "$repo" config user.email t@example.com && git -C "$repo" config user.name t
printf 'torch==2.4.0; python_version < "##[error]x"\ntorchvision==0.19.0 ; sys_platform == "win32" # \033[2J::error::c\n' \
	>"$repo/requirements.txt"
git -C "$repo" add -A && git -C "$repo" commit -qm "##[error]subject ::error::s" >/dev/null

"$B" check --root "$root" --torch "$TORCH" --json "$tmp/report.json" >/dev/null 2>&1

# run NAME KIND ARGS...: runs the command under Actions and outside, checks both.
# KIND: text | json | github (text with our annotations first)
run() {
	local name=$1 kind=$2 mode v
	shift 2
	GITHUB_ACTIONS=true "$B" "$@" >"$tmp/a.out" 2>"$tmp/a.err"
	case $kind in json) mode=json ;; github) mode="text-actions --annotations" ;; *) mode=text-actions ;; esac
	# shellcheck disable=SC2086
	v=$(python3 tests/report/inert.py $mode "$tmp/a.out")
	check_eq "GITHUB_ACTIONS=true $name: stdout ($kind) acts on nothing" ok "$v"
	check_eq "GITHUB_ACTIONS=true $name: stderr acts on nothing" ok "$(python3 tests/report/inert.py none "$tmp/a.err")"
	env -u GITHUB_ACTIONS "$B" "$@" >"$tmp/t.out" 2>"$tmp/t.err"
	check_eq "terminal $name: stdout and stderr show no raw control, C1 or bidi character" ok \
		"$(python3 tests/report/inert.py terminal "$tmp/t.out" "$tmp/t.err")"
	[ "$kind" = json ] && check_eq "terminal $name: valid JSON" ok "$(python3 tests/report/inert.py json "$tmp/t.out")"
	cp "$tmp/t.out" "$tmp/$name.out"
}

run "check text" text check --root "$root" --torch "$TORCH" --format text
run "check github" github check --root "$root" --torch "$TORCH" --format github --summary '' --outputs ''
run "check json" json check --root "$root" --torch "$TORCH" --format json
run "check sarif" json check --root "$root" --torch "$TORCH" --format sarif --sarif-anchor requirements.txt
run "check --json -" json check --root "$root" --torch "$TORCH" --json -
run "report text" text report --in "$tmp/report.json" --format text
run "report github" github report --in "$tmp/report.json" --format github --summary '' --outputs ''
run "report json" json report --in "$tmp/report.json" --format json
run "report sarif" json report --in "$tmp/report.json" --format sarif --sarif-anchor requirements.txt
run "pe" text pe "$lib/ctl.dll" "$lib/evil.dll"
run "pe json" json pe --json "$lib/ctl.dll" "$lib/evil.dll"
run "deps" text deps --root "$root" "$lib/ctl.dll"
run "deps trace" text deps --root "$root" --trace "$lib/evil.dll"
run "deps json" json deps --root "$root" --json "$lib/ctl.dll"
run "inventory" text inventory --root "$root" --scan "$root"
run "inventory json" json inventory --root "$root" --scan "$root" --json
run "inventory registry" text inventory --registry "$tmp/evil.reg"
run "inventory registry json" json inventory --registry "$tmp/evil.reg" --json
run "check registry" text check --root "$root" --torch "$TORCH" --registry "$tmp/evil.reg" --format text
run "check registry json" json check --root "$root" --torch "$TORCH" --registry "$tmp/evil.reg" --format json
run "inventory query" text inventory --registry "$tmp/evil.reg" --query 'HKLM\SOFTWARE\tdc-inert'
run "matrix lint" text matrix lint "$tmp/evil.yml"
run "matrix show json" json matrix show --json
run "pins" text pins --repo "$repo" --rev main --all
run "pins json" json pins --repo "$repo" --rev main --all --json

# The hostile bytes are shown, as visible escapes, not dropped.
check_eq "pe shows the import name's controls as escapes" 1 \
	"$(grep -c -F '\x1b]0;pwned\x07\x1b[2J\r\n::error::ctl\u009b\u202eld\xff.dll' "$tmp/pe.out")"
check_eq "pe shows the legacy command broken, visibly" 1 \
	"$(grep -c -F 'x#\x23[add-mask]torch#\x23[error]pwned.dll' "$tmp/pe.out")"
check_eq "inventory --query shows the value's controls as escapes" 1 \
	"$(grep -c -F 'v14.40\x1b]0;t\x07\r\n::error::reg\u009b\u202e#\x23[error]r' "$tmp/inventory query.out")"
check_eq "inventory shows the redistributable's Version as stored, escaped" 1 \
	"$(grep -c -F 'as stored' "$tmp/inventory registry.out")"
check_eq "inventory: the stored Version, visible" 2 \
	"$(grep -c -F 'v14.40\x1b]0;t\x07\r\n::error::reg\u009b\u202e#\x23[error]r' "$tmp/inventory registry.out")"
check_eq "pins shows the marker, legacy command broken" 1 \
	"$(grep -c -F 'python_version < "#\x23[error]x"' "$tmp/pins.out")"
check_eq "pe --json: the import name decodes whole, U+FFFD for the byte that is not UTF-8" ok "$(python3 - "$tmp/pe json.out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
names = [i["dll"] for f in d["files"] for i in f["imports"]]
want = "\x1b]0;pwned\x07\x1b[2J\r\n::error::ctl\x9b\u202eld\ufffd.dll"
print("ok" if want in names and "x##[add-mask]torch##[error]pwned.dll" in names else "bad: %r" % names)
PY
)"
check_eq "check --json FILE: valid UTF-8 JSON, the hostile names whole" ok "$(python3 - "$tmp/report.json" <<'PY'
import json, sys
raw = open(sys.argv[1], "rb").read()
d = json.loads(raw.decode("utf-8"))
s = json.dumps(d, ensure_ascii=False)
ok = "x##[add-mask]torch##[error]pwned.dll" in s and "ld\ufffd.dll" in s and b"##[" not in raw
print("ok" if ok else "bad")
PY
)"

# The grouped forms: evil.dll and the hostile file fail for one cause, said once, naming both, escaped.
hostile_esc='x\x1b]0;t\x07\r\n::error::f\u009b\u202e#\x23[warning]w.dll'
check_eq "github: one annotation for the cause two binaries share" 1 \
	"$(grep -c '^::error title=evil.dll cannot load.*pwned.dll is missing (and 1 more torch binary)::' "$tmp/check github.out")"
check_eq "github: it names both binaries, the hostile name as visible escapes" 1 \
	"$(grep -c -F "%0AAffects 2 torch binaries: evil.dll, $hostile_esc%0A" "$tmp/check github.out")"
env -u GITHUB_ACTIONS "$B" report --in "$tmp/report.json" --format json --summary "$tmp/grouped.md" --outputs '' >/dev/null
check_eq "summary: one entry names both binaries, escaped for Markdown" 1 \
	"$(grep -c -F '**Affects** 2 torch binaries: evil\.dll, x\x1b\]0\;t\x07  \:\:error\:\:f\u009b\u202e\#\#\[warning\]w\.dll' "$tmp/grouped.md")"
check_eq "summary: no raw control, C1 or bidi character" ok "$(python3 tests/report/inert.py terminal "$tmp/grouped.md")"
check_eq "sarif: one result for the cause, both binaries as related locations, names whole" ok "$(python3 - "$tmp/check sarif.out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
hostile = "x\x1b]0;t\x07\r\n::error::f\x9b\u202e##[warning]w.dll"
rs = [r for r in d["runs"][0]["results"] if "pwned.dll" in r["message"]["text"] and "evil.dll" in r["message"]["text"]]
rel = rs[0].get("relatedLocations", []) if len(rs) == 1 else []
names = [loc["logicalLocations"][0]["fullyQualifiedName"].rsplit("\\", 1)[-1] for loc in rel]
print("ok" if names == ["evil.dll", hostile] and hostile in rs[0]["message"]["text"] else "bad: %r" % names)
PY
)"

# No random token, no output: the guard refuses instead of printing unguarded.
# An LD_PRELOAD shim makes /dev/urandom unopenable (the release build: ASan
# wants to be first in the preload list).
if [ -x "$TDC_BIN" ] && [ -x "$TDC_GIT_BIN" ] && cc -shared -fPIC -o "$tmp/norandom.so" -x c - -ldl <<'C' 2>"$tmp/cc.err"; then
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
FILE *fopen(const char *p, const char *m)
{
	FILE *(*real)(const char *, const char *) = (FILE * (*)(const char *, const char *)) dlsym(RTLD_NEXT, "fopen");
	if (!strcmp(p, "/dev/urandom")) {
		errno = EACCES;
		return NULL;
	}
	return real(p, m);
}
C
	for c in "pe $lib/evil.dll" "report --in $tmp/report.json --format text --fail-on never" "pins --repo $repo --rev main"; do
		# shellcheck disable=SC2086
		GITHUB_ACTIONS=true LD_PRELOAD=$tmp/norandom.so "$TDC_BIN" $c >"$tmp/r.out" 2>"$tmp/r.err"
		check_eq "no random token: '${c%% *}' refuses (exit 2)" 2 $?
		check_eq "no random token: '${c%% *}' prints nothing on stdout" 0 "$(wc -c <"$tmp/r.out")"
		check_eq "no random token: '${c%% *}' says why" 1 "$(grep -c 'cannot guard the output against GitHub workflow commands' "$tmp/r.err")"
		# shellcheck disable=SC2086
		env -u GITHUB_ACTIONS LD_PRELOAD="$tmp/norandom.so" "$TDC_BIN" $c >/dev/null 2>&1
		check_eq "no random token outside Actions: '${c%% *}' needs none" 0 $?
	done
else
	not_ok "cannot build the LD_PRELOAD shim or the release binaries are missing"
	sed 's/^/#   /' "$tmp/cc.err"
fi

tap_done
