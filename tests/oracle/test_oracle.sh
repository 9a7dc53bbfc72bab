#!/usr/bin/env bash
# test_oracle.sh: the oracle itself (tests/oracle/torchload_oracle.c) under
# Wine — that it depends on kernel32 only, reads UTF-16 arguments and UTF-8
# response files, writes valid JSON, and reports the loader's error codes
# unchanged. The scenario suite relies on all of this.
set -u
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
export TEST_NAME=oracle
# shellcheck source=tests/oracle/wine.sh
source tests/oracle/wine.sh
# shellcheck source=tests/lib/fixtures.sh
source tests/lib/fixtures.sh

command -v wine >/dev/null || { not_ok "wine is not installed (see .ci/deps)"; tap_done; }
exe=$(oracle_build) || { not_ok "the oracle does not build"; tap_done; }
pfx=$(wine_prefix_ensure) || { not_ok "no Wine prefix"; tap_done; }

# Only kernel32: the oracle must not bring a runtime DLL into the process it observes.
imports=$(x86_64-w64-mingw32-objdump -p "$exe" | sed -n 's/^\s*DLL Name: //p' | tr '\n' ' ')
check_eq "imports kernel32 only" "KERNEL32.dll " "$imports"

w=$tmp
dir="$w/Jürgen dir ü"
mkdir -p "$dir"
make_dll "$dir/äbc.dll" --msvc --export f >/dev/null || not_ok "make_dll failed"
make_dll "$dir/needs_missing.dll" --import nowhere_to_be_found.dll:x --export g >/dev/null || not_ok "make_dll failed"

wine_lock "$pfx"
wine_start "$pfx"
# 1. usage errors exit 2
wine_run "$pfx" "$w/o1" "$w/e1" "$exe" frobnicate
check_eq "an unknown mode is a usage error (exit 2)" 2 $?

# 2. probe mode through a UTF-8 response file: non-ASCII path loads (0);
#    a missing dependency is 126; a bare name with DLL_LOAD_DIR is 87;
#    a missing file is 126.
printf '%s\n' probe --out "$(wine_zpath "$w/probe.jsonl")" --flags 0x1100 "$(wine_zpath "$dir/äbc.dll")" \
	"$(wine_zpath "$dir/needs_missing.dll")" "äbc.dll" "$(wine_zpath "$dir/absent.dll")" >"$w/args.txt"
wine_run "$pfx" "$w/o2" "$w/e2" "$exe" "@$(wine_zpath "$w/args.txt")"
check_eq "probe exits 1 when a load failed" 1 $?
got=$(/usr/bin/python3 - "$w/probe.jsonl" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
print(" ".join(f"{r['path'].split(chr(92))[-1]}={r['error']}" for r in rows if "order" in r))
EOF
)
check_eq "probe verdicts (non-ASCII path, missing dependency, bare name, missing file)" \
	"äbc.dll=0 needs_missing.dll=126 äbc.dll=87 absent.dll=126" "$got"
grep -q '^@@oracle begin 1 tid=[0-9a-f]*$' "$w/e2" && grep -q '^@@oracle end 1 126$' "$w/e2"
check_eq "markers bracket each load on stderr" 0 $?

# 3. arguments straight from the command line (UTF-16 via GetCommandLineW),
#    with spaces: the same DLL, by its full path.
wine_run "$pfx" "$w/o3" "$w/e3" "$exe" probe --out "$(wine_zpath "$w/cmdline.jsonl")" --flags 0 "$(wine_zpath "$dir/äbc.dll")"
check_eq "a non-ASCII path with spaces on the command line loads" 0 $?
got=$(/usr/bin/python3 -c 'import json,sys
rows=[json.loads(l) for l in open(sys.argv[1],encoding="utf-8")]
print([r for r in rows if "order" in r][0]["path"].split(chr(92))[-1])' "$w/cmdline.jsonl" 2>&1)
check_eq "the JSON path round-trips in UTF-8" "äbc.dll" "$got"

# 4. torch mode on a tiny torch dir: the env line first, one line per DLL,
#    the missing dependency reaches the PATH fallback.
mkdir -p "$w/torch/lib"
cp "$dir/äbc.dll" "$w/torch/lib/a.dll"
cp "$dir/needs_missing.dll" "$w/torch/lib/b.dll"
printf '%s\n' torch --out "$(wine_zpath "$w/torch.jsonl")" --torch-dir "$(wine_zpath "$w/torch")" \
	--dll-path "$(wine_zpath "$w/torch/lib")" --no-vc-probe >"$w/targs.txt"
wine_run "$pfx" "$w/o4" "$w/e4" "$exe" "@$(wine_zpath "$w/targs.txt")"
check_eq "torch mode exits 1 when a DLL fails" 1 $?
got=$(/usr/bin/python3 - "$w/torch.jsonl" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
out = [rows[0].get("event", "?")]
out += [f"{r['path'].split(chr(92))[-1]}:{r['stage']}:{r.get('first_error', '-')}:{r['error']}" for r in rows[1:]]
print(" ".join(out))
EOF
)
check_eq "torch mode lines" "env a.dll:add_dll_directory:-:0 b.dll:path_fallback:126:126" "$got"
wine_stop "$pfx"
tap_done
