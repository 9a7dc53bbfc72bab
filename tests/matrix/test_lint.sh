#!/usr/bin/env bash
# shellcheck disable=SC2016  # expected messages quote YAML keys in backticks, literally
# test_lint: `torch-dll-check matrix lint|show|select` on matrix files written
# here. Every bad file is asserted with its exact "file:line:col: message"
# lines and exit status 2; good files with status 0. Runs the ASan build, so
# a leak or an out-of-bounds read on any of these inputs fails the test.
set -u
TEST_NAME=matrix/lint
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"

bin=$B
cd "$tmp" || exit 1

# lint_case NAME EXPECTED_STATUS EXPECTED_MESSAGES: lints NAME.yml (written by the
# caller). The messages are stdout without its last line, the count (or OK).
lint_case() {
	local name=$1 want_status=$2 want=$3 out rc
	out=$("$bin" matrix lint "$name.yml" 2>/dev/null)
	rc=$?
	check_eq "$name: exit status" "$want_status" "$rc"
	check_eq "$name: messages" "$want" "$(sed '$d' <<<"$out")"
}

# --- what a user gets wrong ------------------------------------------------
cat >typo.yml <<'EOF'
schema: 1
rows:
  - id: org-2.5
    torch: ">=2.5,<2.6"
    status: inferred
    runtime_dlls:
      - name: msvcp140.dll
        min_versoin: "14.40"
        why: test
    vc_redist: {x64: "14.4x"}
  - id: org-bad-spec
    torch: ">=2.4.x"
    status: sourced
  - id: org-missing
    status: inferred
    torch: [1]
    arch: [amd64]
    variant: [cuda]
    statsu: x
EOF
lint_case typo 2 'typo.yml:8:9: unknown key `min_versoin` in a runtime_dlls entry; did you mean `min_version`?
typo.yml:10:27: vc_redist.x64: bad file version "14.4x" at column 5: unexpected "x"
typo.yml:11:5: row `org-bad-spec` is `status: sourced` but has no `sources` (links to issues, PRs or docs)
typo.yml:12:19: torch: bad specifier ">=2.4.x" at column 7: unexpected "x"
typo.yml:16:12: `torch` must be a version specifier such as ">=2.4.1,<2.7", not a list
typo.yml:17:12: unknown architecture `amd64`; write `x64`
typo.yml:18:15: unknown variant `cuda`; expected cpu, xpu, cuXYZ (cu121), rocmX.Y (rocm6.1) or a pattern such as cu* or rocm6.*
typo.yml:19:5: unknown key `statsu` in a row; did you mean `status`?'

# winerror: the error a too-old copy gives (needs min_version; a number)
cat >winerror.yml <<'EOF'
schema: 1
rows:
  - id: org-2.9
    torch: ">=2.9"
    status: inferred
    runtime_dlls:
      - {name: msvcp140.dll, min_version: "14.40", why: test, winerror: 1114}
      - {name: vcruntime140.dll, why: test, winerror: 1114}
      - {name: concrt140.dll, min_version: "14.40", why: test, winerror: "1114"}
      - {name: vcomp140.dll, min_version: "14.40", why: test, winerror: 70000}
EOF
lint_case winerror 2 'winerror.yml:8:9: runtime_dlls entry `vcruntime140.dll` has `winerror` but no `min_version` (the error is for a copy older than it)
winerror.yml:9:74: `winerror` must be a Windows error code, a number such as 1114
winerror.yml:10:73: `winerror` must be a Windows error code, a number such as 1114'
grep -v 'vcruntime140.dll, why\|concrt140\|vcomp140' winerror.yml >winerror-ok.yml
lint_case winerror-ok 0 ''
check_eq "winerror: shown in the row" 1114 \
	"$("$bin" matrix show --no-default --matrix winerror-ok.yml --json 2>/dev/null |
		jq '[.. | objects | select(.name? == "msvcp140.dll") | .winerror] | first')"

printf 'schema: 1\nrows:\n  - id: x\n    vc_redist: {x64: "14.40"}\n  - just text\n  - id: y\n    torch: "==1.0"\n    status: maybe\n    runtime_dlls:\n      - name: msvcp140\n        where: sytem\n      - 7\n    openmp: {dll: a.dll}\n    known_issues:\n      - id: k\n        symptom: s\n        status: sourced\n        applies_when: {imports: [x.so], when: 1}\n' >missing.yml
lint_case missing 2 'missing.yml:3:5: row `x` is missing `torch` (a version specifier such as ">=2.4.1,<2.7")
missing.yml:3:5: row `x` is missing `status` (one of `sourced`, `inferred`, `measured`)
missing.yml:5:5: each row must be a mapping (id, torch, status, ...), not a string
missing.yml:8:13: `status` is `maybe`; expected one of `sourced`, `inferred`, `measured`
missing.yml:10:9: runtime_dlls entry `msvcp140` is missing `why` (a sentence saying why torch needs it)
missing.yml:10:15: `name` is `msvcp140`; expected a DLL file name such as msvcp140.dll
missing.yml:11:16: `where` is `sytem`; did you mean `system`?
missing.yml:12:9: each item of `runtime_dlls` must be a mapping, not a string
missing.yml:13:13: `openmp` must be a list of mappings ({dll, where, redistributable}), not a mapping
missing.yml:15:9: known issue `k` is missing `cause` (why it happens)
missing.yml:15:9: known issue `k` is missing `fix` (what to do)
missing.yml:15:9: known issue `k` is `status: sourced` but has no `sources`
missing.yml:18:34: `x.so` is not a DLL file name (such as libomp140.x86_64.dll)
missing.yml:18:41: unknown key `when` in applies_when; expected one of `variant`, `arch`, `imports`, `unresolved`, `older`'

cat >dup.yml <<'EOF'
schema: 1
rows:
  - id: a
    torch: "==2.5.0"
    torch: "==2.5.1"
    status: inferred
  - id: a
    torch: "==2.5.2"
    status: inferred
EOF
lint_case dup 2 'dup.yml:5:5: duplicate key `torch` in a row (first at line 4)
dup.yml:7:9: duplicate row id `a` (first at line 3); ids are unique within a file'

cat >overlap.yml <<'EOF'
schema: 1
rows:
  - id: old
    torch: ">=2.4,<2.6"
    status: inferred
    vc_redist: {x64: "14.29"}
  - id: new
    torch: ">=2.5.1,<2.7"
    status: inferred
    vc_redist: {x64: "14.38"}
  - id: cuda
    torch: ">=2.5.1,<2.7"
    variant: ["cu12*"]
    status: inferred
    vc_redist: {x64: "14.40"}
  - id: cuda-too
    torch: "~=2.6.0"
    variant: [cu126]
    status: inferred
    runtime_dlls: [{name: msvcp140.dll, min_version: "14.40", why: test}]
EOF
lint_case overlap 2 'overlap.yml:8:12: rows `old` (line 3) and `new` both match torch 2.5.1 with different requirements (vc_redist.x64 "14.29" vs "14.38"); narrow one `torch` specifier or restrict one row by `variant`/`arch`
overlap.yml:17:12: rows `cuda` (line 11) and `cuda-too` both match torch 2.6, variant cu126 with different requirements (vc_redist.x64 "14.40" vs (none)); narrow one `torch` specifier or restrict one row by `variant`/`arch`'

printf 'schema: 1\nrow:\n  - id: x\n' >toptypo.yml
lint_case toptypo 2 'toptypo.yml:1:1: missing `rows` (a list of rows) at the top level
toptypo.yml:2:1: unknown key `row` in the top level; did you mean `rows`?'

printf 'schema: 1\nrows: 5\n' >rowsstr.yml
lint_case rowsstr 2 'rowsstr.yml:2:7: `rows` must be a list of rows, not a string'

printf 'schema: 2\nrows: []\n' >schema2.yml
lint_case schema2 2 'schema2.yml:1:9: unsupported schema 2: this torch-dll-check reads schema 1'

printf 'rows: []\n' >noschema.yml
lint_case noschema 2 'noschema.yml:1:1: missing `schema: 1` at the top level'

# --- YAML the reader refuses -----------------------------------------------
printf 'schema: 1\nrows:\n  - &a {id: x, torch: "==1.0", status: inferred}\n  - *a\n' >anchor.yml
lint_case anchor 2 'anchor.yml:3:5: anchors (&a) are not allowed in a matrix; write the value out'

printf 'schema: 1\nrows:\n  - *a\n' >alias.yml
lint_case alias 2 'alias.yml:3:5: aliases (*a) are not allowed in a matrix; write the value out'

# A classic alias bomb: refused at its first anchor, nothing is expanded.
python3 -c '
import string
print("a: &a [\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\"]")
for p, c in zip("abcdefgh", "bcdefghi"):
    print("%s: &%s [%s]" % (c, c, ",".join(["*" + p] * 9)))' >bomb.yml
lint_case bomb 2 'bomb.yml:1:4: anchors (&a) are not allowed in a matrix; write the value out'

printf 'schema: 1\nrows:\n  - id: x\n    torch: !!int 5\n' >tag.yml
lint_case tag 2 'tag.yml:4:12: YAML tags (tag:yaml.org,2002:int) are not allowed in a matrix'

printf 'schema: 1\nrows:\n  - id: x\n    torch: >=2.9\n    status: inferred\n' >unquoted.yml
lint_case unquoted 2 'unquoted.yml:4:13: invalid YAML: did not find expected comment or line break (while scanning a block scalar at line 4); quote values that start with > or | (torch: ">=2.9")'

printf 'schema: 1\nrows:\n  - id: x\n    torch: !=2.9\n    status: inferred\n' >bang.yml
lint_case bang 2 'bang.yml:4:12: "!" starts a YAML tag here; quote the specifier (torch: "!=2.9")'

printf 'schema: 1\nrows:\n\t- id: x\n' >tab.yml
lint_case tab 2 'tab.yml:3:1: invalid YAML: found character that cannot start any token (while scanning for the next token at line 3); indent with spaces, not tabs'

printf 'schema: 1\nrows: []\n---\nschema: 1\n' >twodocs.yml
lint_case twodocs 2 'twodocs.yml:3:1: a matrix file holds one YAML document; remove this "---" and what follows'

python3 -c "print('schema: 1\nrows: ' + '['*40 + ']'*40)" >deep.yml
lint_case deep 2 'deep.yml:2:38: nested deeper than 32 levels'

printf '' >empty.yml
lint_case empty 2 'empty.yml:1:1: empty file: expected a mapping with `schema: 1` and `rows`'

printf -- '- 1\n' >list.yml
lint_case list 2 'list.yml:1:1: the top level must be a mapping with `schema: 1` and `rows`, not a list'

# Terminal control bytes from the file never reach the terminal raw.
printf 'schema: 1\nrows:\n  - id: "a\\e[31m"\n    torch: "==1"\n    status: inferred\n' >ctrl.yml
lint_case ctrl 2 'ctrl.yml:3:9: row id `a\x1b[31m` may only use letters, digits, '"'.', '-' and '_'"' (at most 64)'

python3 -c "print('schema: 1\nrows: [' + ','.join(['1'] * 1100) + ']')" >many.yml
lint_case many 2 'many.yml:2:2056: more than 1024 items in one list'

# --- encodings and sizes -----------------------------------------------------
printf '\xef\xbb\xbfschema: 1\nrows: []\n' >bom.yml
lint_case bom 0 ''

printf '\xff\xfes\x00c\x00' >utf16.yml
lint_case utf16 2 'utf16.yml:1:1: the file is UTF-16 (it starts with a byte order mark); save it as UTF-8'

printf 'schema: 1\nrows:\n  - id: caf\xe9\n' >latin1.yml
lint_case latin1 2 'latin1.yml:3:12: invalid UTF-8 (byte 0xe9 is not followed by a continuation byte; Latin-1 or Windows-1252 text?); save the file as UTF-8'

printf 'schema: 1\nrows:\n  - id: \xc0\xaf\n' >overlong.yml
lint_case overlong 2 'overlong.yml:3:9: invalid UTF-8 (byte 0xc0); save the file as UTF-8'

printf 'schema: 1\nrows: []\n\0' >nul.yml
lint_case nul 2 'nul.yml:3:1: NUL byte: this is not a text file'

head -c 1048577 /dev/zero | tr '\0' ' ' >big.yml
lint_case big 2 'big.yml:1:1: big.yml is larger than 1048576 bytes'

lint_case nonexistent 2 'nonexistent.yml:1:1: cannot open nonexistent.yml: No such file or directory'

# Columns count characters, as libyaml does; a lone CR ends a line as LF does.
printf 'schema: 1\nrows:\n  - id: x\n    torch: "===\xc3\xa9 x"\n    status: inferred\n' >utf8col.yml
# valid UTF-8 is shown as text; only control, C1, bidi characters and invalid bytes are escaped (text.h)
lint_case utf8col 2 'utf8col.yml:4:17: torch: bad specifier "===é x" at column 6: === takes one word (no spaces)'
printf 'schema: 1\rrows:\r  - id: \xff\r' >cr.yml
lint_case cr 2 'cr.yml:3:9: invalid UTF-8 (byte 0xff); save the file as UTF-8'

# 256 disjoint rows are fine (and quick: overlap checks are bounded); 257 are too many.
python3 -c '
for n, name in ((256, "rows256.yml"), (257, "rows257.yml")):
    with open(name, "w") as f:
        f.write("schema: 1\nrows:\n")
        for i in range(n):
            f.write("  - {id: r%d, torch: \">=%d.0,<%d.0\", status: inferred, vc_redist: {x64: \"14.%d\"}}\n" % (i, i + 10, i + 11, i))'
lint_case rows256 0 ''
lint_case rows257 2 'rows257.yml:259:5: more than 256 rows in one file'

# --- layering against the default -------------------------------------------
printf 'schema: 1\nremove: [torch-2.4.0, nope]\nrows:\n  - {id: torch-2.9-to-2.11, merge: true, vc_redist: {x64: "14.43"}}\n  - {id: zz, merge: true}\n' >layer.yml
lint_case layer 2 'layer.yml:2:23: remove: no earlier layer has a row `nope`
layer.yml:5:5: row `zz` has `merge: true` but no earlier layer has a row with this id to merge into'

# --- good files --------------------------------------------------------------
cat >good.yml <<'EOF'
# An organisation's additions: a stricter minimum for 2.9+, and a private build.
schema: 1
description: ACME runners
rows:
  - id: torch-2.9-to-2.11
    merge: true
    vc_redist: {x64: "14.43"}
  - id: acme-2.5-internal
    torch: "==2.5.1+acme1"
    status: inferred
    vc_redist: {x64: 14.40, arm64: "v14.40.33810.00"}
EOF
lint_case good 0 ''
check_status "the embedded default lints clean" 0 "$bin" matrix lint
check_status "matrix/torch.yml in the repository lints clean" 0 "$bin" matrix lint "$TDC_REPO/matrix/torch.yml"

out=$("$bin" matrix lint good.yml layer.yml typo.yml 2>"$tmp/lint.err")
check_eq "several files: the error count closes stdout, after the errors" "matrix lint: 10 errors" "$(tail -1 <<<"$out")"
check_eq "several files: errors and count on stdout, nothing on stderr" "11 0" \
	"$(wc -l <<<"$out") $(wc -c <"$tmp/lint.err")"

# --- show and select -----------------------------------------------------------
out=$("$bin" matrix show --json --matrix good.yml | python3 -c '
import json, sys
d = json.load(sys.stdin)
r = {x["id"]: x for x in d["rows"]}
print(d["schema"], len(d["rows"]), d["files"][1], r["torch-2.9-to-2.11"]["vc_redist"]["x64"],
      r["torch-2.9-to-2.11"]["origin"]["file"], r["torch-2.9-to-2.11"]["origin"]["line"],
      len(r["torch-2.9-to-2.11"]["known_issues"]), r["acme-2.5-internal"]["vc_redist"]["arm64"])')
check_eq "show --json: layered rows with origins" "1 19 good.yml 14.43 good.yml 5 1 v14.40.33810.00" "$out"

out=$("$bin" matrix select 2.4.0+cu121 --arch x64 | head -1)
check_eq "select 2.4.0+cu121" "torch-2.4.0  torch ==2.4.0  [measured]  <embedded>/matrix/torch.yml:$(grep -n -- '- id: torch-2.4.0$' "$TDC_REPO/matrix/torch.yml" | cut -d: -f1):5" "$out"
out=$("$bin" matrix select 2.5.1+acme1 --matrix good.yml --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["row"]["id"])')
check_eq "select with a layer: the pinned local version" "acme-2.5-internal" "$out"
out=$("$bin" matrix select 2.5.1+cu121 --matrix good.yml --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["row"]["id"])')
check_eq "select: another local of the same version keeps the default row" "torch-2.4.1-to-2.6" "$out"
printf 'schema: 1\nrows:\n  - {id: only, torch: ">=2", status: inferred}\n' >only.yml
check_status "select: uncovered version exits 1" 1 "$bin" matrix select 0.4.0 --no-default --matrix only.yml
out=$("$bin" matrix select 0.4.0 --no-default --matrix only.yml 2>&1)
check_eq "select: uncovered version says how to add a row" \
	'torch-dll-check: no matrix row covers torch 0.4.0 (variant unknown, arch unknown); add a row to a file passed with --matrix, e.g. `schema: 1` / `rows: [{id: my-torch-0.4.0, torch: "==0.4.0", status: inferred, vc_redist: {x64: "14.40"}}]` (schema in matrix/README.md)' "$out"
check_status "select: a bad version is a usage error" 2 "$bin" matrix select 2.x
out=$("$bin" matrix select 2.x 2>&1)
check_eq "select: a bad version names the column" 'torch-dll-check: bad version "2.x" at column 3: unexpected "x"' "$out"
check_status "select: a bad matrix is a usage error" 2 "$bin" matrix select 2.4.0 --matrix typo.yml
check_status "unknown subcommand" 2 "$bin" matrix frobnicate

tap_done
