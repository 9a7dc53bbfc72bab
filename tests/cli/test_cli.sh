#!/usr/bin/env bash
# test_cli: the command line behaves the same in every command (checker/cli/,
# opt.h): error first, then one `Try '... --help'.` line, exit 2; the same
# words for the same mistake; `--` ends options; did-you-mean for flags and
# commands; every --help ends with its exit statuses; docs/cli.md is what the
# option tables generate. One check per issue-#12 command-line fix, named after it.
set -u
TEST_NAME=cli
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"

# run ARGS...: sets $out, $err, $rc
run() {
	"$B" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
}

# Every visible command, as typed, with an option of it that takes a value.
commands=("check:--matrix:FILE" "deps:--root:DIR" "pe::" "inventory:--root:DIR" "matrix lint::"
	"matrix show:--matrix:FILE" "matrix select:--variant:V" "matrix derive::" "pins:--repo:DIR"
	"report:--in:REPORT.json" "audit:--runner:NAME" "history:--history:DIR" "fleet:--history:DIR")

# ---- frobnicate: one error line, no literal \n, then the Try line ----
run frobnicate
check_eq "unknown command: error, then Try line, exit 2 (no literal \\n)" \
	"2|torch-dll-check: unknown command 'frobnicate'|Try 'torch-dll-check --help'.|" "$rc|$(tr '\n' '|' <<<"$err")"
run chek
check_eq "unknown command: did you mean" "torch-dll-check: unknown command 'chek' (did you mean 'check'?)" \
	"$(head -1 <<<"$err")"
run matrix selekt 2.4.0
check_eq "unknown matrix subcommand: did you mean" \
	"torch-dll-check: unknown command 'matrix selekt' (did you mean 'matrix select'?)" "$(head -1 <<<"$err")"

run --hlep
check_eq "top-level misspelled option: did you mean" \
	"2|torch-dll-check: unknown option '--hlep' (did you mean '--help'?)|Try 'torch-dll-check --help'.|" \
	"$rc|$(tr '\n' '|' <<<"$err")"
run help matrix select
check_eq "help CMD is CMD --help" "0 usage: torch-dll-check matrix select [options] VERSION" "$rc $(head -1 <<<"$out")"

# ---- the top-level help lists every command, matrix select included ----
run --help
for spec in "${commands[@]}"; do
	c=${spec%%:*}
	if grep -q "^  $c  " <<<"$out"; then ok "top-level help lists '$c'"; else not_ok "top-level help lists '$c'"; fi
done

# ---- every command's --help: stdout, exit 0, ends with its exit statuses ----
for spec in "${commands[@]}"; do
	c=${spec%%:*}
	# shellcheck disable=SC2086  # "matrix lint" is two words
	run $c --help
	check_eq "$c --help: exit 0, stdout, its last paragraph 'Exit status: ...'" "0 Exit status:" \
		"$rc $(awk 'BEGIN { RS = "" } { p = $0 } END { print substr(p, 1, 12) }' <<<"$out")"
done

# ---- --summary, --outputs, --sarif-anchor explained where they are taken ----
for c in check report; do
	run "$c" --help
	for o in --summary --outputs --sarif-anchor; do
		line=$(grep -A1 "^  $o FILE" <<<"$out" | tr -s ' ')
		if [ "${#line}" -gt 60 ] && [[ "$line" != *"see "* ]]; then ok "$c --help explains $o"; else
			not_ok "$c --help explains $o"
			echo "#   got: $line"
		fi
	done
done

# ---- a misspelled flag: error first, did-you-mean, Try line; no usage dump ----
run check --torhc 'C:\x'
check_eq "misspelled flag: two lines, error first with did-you-mean, exit 2" \
	"2|torch-dll-check: check: unknown option '--torhc' (did you mean '--torch'?)|Try 'torch-dll-check check --help'.|" \
	"$rc|$(tr '\n' '|' <<<"$err")"
run deps --trase x.dll
check_eq "misspelled switch: did you mean" "torch-dll-check: deps: unknown option '--trase' (did you mean '--trace'?)" \
	"$(head -1 <<<"$err")"

# ---- the same words for the same mistake in every command ----
for spec in "${commands[@]}"; do
	IFS=: read -r c opt arg <<<"$spec"
	# shellcheck disable=SC2086
	run $c --bogus
	check_eq "$c: unknown option, same words" \
		"2|torch-dll-check: $c: unknown option '--bogus'|Try 'torch-dll-check $c --help'.|" "$rc|$(tr '\n' '|' <<<"$err")"
	[ -n "$opt" ] || continue
	# shellcheck disable=SC2086
	run $c "$opt"
	check_eq "$c: missing value, same words" \
		"2|torch-dll-check: $c: option '$opt' needs a value ($arg)|Try 'torch-dll-check $c --help'.|" \
		"$rc|$(tr '\n' '|' <<<"$err")"
done

# ---- unknown option vs unexpected argument: one word each, in every command ----
for c in check inventory "matrix show" report pins; do
	# shellcheck disable=SC2086
	run $c stray
	check_eq "$c: an operand it does not take is an 'unexpected argument'" \
		"2 torch-dll-check: $c: unexpected argument 'stray'" "$rc $(head -1 <<<"$err")"
done
run deps a.dll b.dll
check_eq "deps: a second FILE is an 'unexpected argument'" "torch-dll-check: deps: unexpected argument 'b.dll'" \
	"$(head -1 <<<"$err")"
run deps
check_eq "deps: no FILE" "torch-dll-check: deps: missing FILE" "$(head -1 <<<"$err")"
run deps --trace=yes x.dll
check_eq "a switch given a value" "torch-dll-check: deps: option '--trace' takes no value" "$(head -1 <<<"$err")"

# ---- `--` ends the options everywhere ----
fx=$(bash "$TDC_REPO/tests/pe/fixtures.sh" 2>/dev/null) || fx=
if [ -z "$fx" ] || [ ! -f "$fx/x64/dep.dll" ]; then
	skip "deps -- FILE" "the PE fixtures did not build (mingw-w64 missing?)"
else
	run deps --json -- "$fx/x64/dep.dll"
	check_eq "deps -- FILE: FILE is the operand (loads, exit 0)" "0 0" "$rc $(jq -r .winerror <<<"$out" 2>&1)"
	cp "$fx/x64/dep.dll" "$tmp/--json"
	(cd "$tmp" && "$B" pe -- --json >"$tmp/pe.out" 2>&1)
	if grep -q '^  machine:     x64 ' "$tmp/pe.out"; then ok "pe -- --json: a file named --json"; else
		not_ok "pe -- --json: a file named --json"
		head -3 "$tmp/pe.out" | sed 's/^/#   /'
	fi
fi
run check -- --torch x
check_eq "check -- --torch: an operand after --, not an option" "torch-dll-check: check: unexpected argument '--torch'" \
	"$(head -1 <<<"$err")"

# ---- check --torch /nonexistent names the path as given, not C:\nonexistent ----
run check --torch /nonexistent
check_eq "check --torch /nonexistent: the user's path in the message" \
	"2 torch-dll-check: check: --torch /nonexistent: no such directory" "$rc $err"

# ---- one --machine parser: check takes amd64 as deps does ----
run check --torch /nonexistent --machine amd64
check_eq "check --machine amd64 is accepted (the error is about the path)" \
	"torch-dll-check: check: --torch /nonexistent: no such directory" "$err"
run deps --machine amd65 x.dll
check_eq "--machine: one message" "torch-dll-check: deps: --machine amd65: expected x64, x86 or arm64" \
	"$(head -1 <<<"$err")"
run check --machine i686 --torch /nonexistent
check_eq "--machine: the same message in check" "torch-dll-check: check: --machine i686: expected x64, x86 or arm64" \
	"$(head -1 <<<"$err")"

# ---- deps on a non-PE exits 2, as pe does ----
printf 'root:x:0:0\n' >"$tmp/passwd"
cp "$tmp/passwd" "$tmp/text.dll"
run deps "$tmp/text.dll"
check_eq "deps on a non-PE file: exit 2, named once" \
	"2 torch-dll-check: deps: $tmp/text.dll: not a PE file (no MZ signature)" "$rc $err"
run pe "$tmp/text.dll"
check_eq "pe on the same file: exit 2" "2 torch-dll-check: $tmp/text.dll: not a PE file (no MZ signature)" "$rc $err"
run deps "$tmp/passwd."
check_eq "deps on a non-PE file named without extension ('FILE.'): exit 2" \
	"2 torch-dll-check: deps: $tmp/passwd.: not a PE file (no MZ signature)" "$rc $err"
run deps "$tmp/passwd"
check_eq "deps FILE without extension: exit 2, saying LoadLibraryExW looks for FILE.dll" \
	"2 torch-dll-check: deps: $tmp/passwd: no extension, so LoadLibraryExW looks for passwd.dll, which is not there; end the name with '.' to load the file as named" \
	"$rc $err"

# ---- pe /nonexistent.dll names the path once ----
run pe "$tmp/nonexistent.dll"
check_eq "pe on a missing file: the path once" "1" "$(grep -o "$tmp/nonexistent.dll" <<<"$err" | wc -l)"

# ---- matrix lint: errors and their count on one stream ----
printf 'schema: 1\nrows:\n  - id: a\n    torch: ">=2.4"\n    statsu: sourced\n' >"$tmp/typo.yml"
run matrix lint "$tmp/typo.yml"
check_eq "matrix lint: errors then count on stdout, nothing on stderr" "2|matrix lint: 2 errors|0" \
	"$rc|$(tail -1 <<<"$out")|${#err}"

# ---- inventory --root X with no install option lists the tree's torch installs, and says how it looked ----
mkdir -p "$tmp/root/Windows/System32"
run inventory --root "$tmp/root"
if [ "$rc" = 0 ] && grep -qF "looked for in all of C:\\, 8 folders deep (--scan DIR or --depth N" <<<"$out"; then
	ok "inventory --root: looks through the tree and says how"
else
	not_ok "inventory --root: looks through the tree and says how (status $rc)"
	printf '%s\n' "$out$err" | tail -5 | sed 's/^/#   /'
fi
for e in a b; do
	mkdir -p "$tmp/root/envs/$e/Lib/site-packages/torch/lib"
	printf "__version__ = '2.5.1+cpu'\n" >"$tmp/root/envs/$e/Lib/site-packages/torch/version.py"
done
run inventory --root "$tmp/root" --json
check_eq "inventory --root: finds every torch install in the tree, as check --scan 'C:\\' does" \
	'["C:\\envs\\a\\Lib\\site-packages\\torch","C:\\envs\\b\\Lib\\site-packages\\torch"]' \
	"$(jq -c '[.inventory.installs[].torch_dir] | sort' <<<"$out")"
run inventory --root "$tmp/root" --torch 'C:\envs\a\Lib\site-packages\torch' --json
check_eq "inventory --root --torch: only where the option says" 1 "$(jq '.inventory.installs | length' <<<"$out")"

# ---- docs/cli.md is what the tables generate ----
if "$TDC_BIN" --help-markdown | diff -u "$TDC_REPO/docs/cli.md" - >"$tmp/docs.diff"; then
	ok "docs/cli.md equals \`torch-dll-check --help-markdown\`"
else
	not_ok "docs/cli.md is stale: run make docs"
	head -20 "$tmp/docs.diff" | sed 's/^/#   /'
fi

# ---- hints: the same words for the same mistake, and the next step said ----
run check --torch x --fail-on errors
check_eq "--fail-on errors: did you mean 'error'" \
	"torch-dll-check: check: --fail-on errors: expected error, warning or never (did you mean 'error'?) 2" "$(head -1 <<<"$err") $rc"
run report --in x --format jsn
check_eq "--format jsn: did you mean 'json'" \
	"torch-dll-check: report: --format jsn: expected text, json, github, sarif or markdown (did you mean 'json'?)" "$(head -1 <<<"$err")"
run audit --runner r --fail-on warnings
check_eq "audit --fail-on warnings: the same words" \
	"torch-dll-check: audit: --fail-on warnings: expected error, warning, note or never (did you mean 'warning'?)" "$(head -1 <<<"$err")"
run check --torch x --format sarif --json
check_eq "--format sarif --json: an error, not JSON on stdout" "2 " "$rc $out"
check_cmd "...saying --json FILE writes it beside" grep -q -- "--json: prints the JSON report, which does not go with --format (give --json FILE" "$tmp/err"
run check --torch x --json --format sarif
check_cmd "--json --format sarif: the same mistake the other way round" grep -q -- "--format sarif: does not go with a bare --json" "$tmp/err"
run check --torch x --format json --json
check_cmd "--format json --json agree: no such error" bash -c "! grep -q 'does not go with' '$tmp/err'"
mkdir -p "$tmp/empty"
run check --python 'C:\Python311\python.exe'
if [ "$(uname -s)" = Linux ]; then
	check_cmd "--python C:\\... without --root on Linux: the hint names --root" \
		grep -qF -- "--python C:\Python311\python.exe: no such file (without --root, C:\ is this machine's / folder: give --root DIR" "$tmp/err"
fi
run check --root "$tmp/empty" --python 'C:\Python311\python.exe'
check_cmd "...with --root: no such hint" bash -c "grep -q 'no such file' '$tmp/err' && ! grep -q 'without --root' '$tmp/err'"
# deps of a bare name in the DLL's own folder: WinError 87 (searched for), with the hint to give ./NAME
. "$TDC_REPO/tests/lib/fixtures.sh"
mkdir -p "$tmp/tree/Windows/System32" "$tmp/tree/app"
if make_dll "$tmp/tree/app/fbgemm.dll" >/dev/null 2>&1; then
	(cd "$tmp/tree/app" && "$B" deps --root "$tmp/tree" fbgemm.dll >"$tmp/out" 2>"$tmp/err")
	check_cmd "deps fbgemm.dll in its folder: WinError 87" grep -q 'WinError 87' "$tmp/out"
	check_cmd "...and the hint suggests ./fbgemm.dll" grep -q 'give a path: ./fbgemm.dll' "$tmp/err"
	(cd "$tmp/tree/app" && "$B" deps --root "$tmp/tree" ./fbgemm.dll >"$tmp/out" 2>"$tmp/err")
	check_cmd "deps ./fbgemm.dll: no hint" bash -c "! grep -q hint '$tmp/err'"
else
	not_ok "make_dll could not build a fixture DLL"
fi

tap_done
