#!/usr/bin/env bash
# test_pe_cmd: `torch-dll-check pe` on real fixture DLLs (mingw, lld): the text
# summary, the JSON shape of docs/pe-json.md, exit statuses and messages for
# bad input, a 1 GiB file that must cost no memory, and a 150,000-export DLL
# that must list in linear time.
set -u
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
TEST_NAME=pe_cmd
bin=$TDC_BIN # the release build: peak memory is measured (the sanitizers would drown it)
fx=$(bash tests/pe/fixtures.sh) || { not_ok "fixtures build"; tap_done; }
work=$tmp

# ---- text ----
out=$("$bin" pe "$fx/x64/fixture.dll" 2>&1)
check_status "text summary of the x64 fixture exits 0" 0 "$bin" pe "$fx/x64/fixture.dll"
for want in "machine:     x64 (0x8664), PE32+, DLL" "dep.dll (2 functions)" "      dep_a (hint " "      #5" \
	"KERNEL32.dll (1 function)" "fwd_a -> dep.dep_a" "(ordinal only)" "version:     file 14.40.33810.0, product 14.40.33810.1" \
	"ProductName:      torch-dll-check fixture" "exports (fixture.dll, ordinal base 4, 4 used of 4 slots):"; do
	if [[ "$out" == *"$want"* ]]; then ok "text has '$want'"; else
		not_ok "text has '$want'"
		printf '%s\n' "$out" | sed 's/^/#   /' | head -40
	fi
done
out=$("$bin" pe "$fx/x64/delay.dll" 2>&1)
check_eq "text shows DependentLoadFlags" "  dependent load flags: 0x0800" "$(grep 'dependent load' <<<"$out")"

# ---- JSON ----
"$bin" pe --json "$fx/x64/fixture.dll" "$fx/x86/fixture.dll" "$fx/x64/delay.dll" >"$work/fx.json"
check_cmd "JSON of the fixtures matches what was linked" python3 - "$work/fx.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "torch-dll-check/pe/v1", d["schema"]
x64, x86, delay = d["files"]
for f, machine, code, fmt in ((x64, "x64", 34404, "PE32+"), (x86, "x86", 332, "PE32")):
    assert f["error"] is None
    assert (f["machine"], f["machine_code"], f["format"], f["dll"]) == (machine, code, fmt, True), f
    assert f["linker"] == "2.40", f["linker"]
    imps = {i["dll"]: i["functions"] for i in f["imports"]}
    assert [x.get("name") for x in imps["dep.dll"]] == ["dep_a", None], imps
    assert imps["dep.dll"][1] == {"ordinal": 5}, imps
    assert imps["KERNEL32.dll"][0]["name"] == "GetTickCount"
    assert isinstance(imps["KERNEL32.dll"][0]["hint"], int)
    assert f["delay_imports"] == []
    ex = f["exports"]
    assert ex["dll_name"] == "fixture.dll" and ex["ordinal_base"] == 4, ex
    by = {e.get("name"): e for e in ex["entries"]}
    assert by["fwd_a"] == {"ordinal": 5, "name": "fwd_a", "forwarder": "dep.dep_a"}, by
    assert set(by["foo"]) == {"ordinal", "name", "rva"}
    noname = [e for e in ex["entries"] if "name" not in e]
    assert len(noname) == 1 and noname[0]["ordinal"] == 7 and noname[0]["rva"] > 0, noname
    v = f["version"]
    assert v["file_version"] == "14.40.33810.0" and v["product_version"] == "14.40.33810.1", v
    assert v["strings"] == {"FileVersion": "14.40.33810.0", "ProductVersion": "14.40.33810.1",
                            "ProductName": "torch-dll-check fixture", "CompanyName": "Fixture Corp",
                            "OriginalFilename": "fixture.dll", "FileDescription": None, "Comments": None}, v
    assert f["dependent_load_flags"] is None
    assert f["sections"][0]["name"] == ".text" and f["sections"][0]["raw_size"] > 0
    assert f["overlay_size"] > 0  # mingw leaves the COFF symbol table after the sections
assert x64["image_base"].startswith("0x")
assert delay["delay_imports"] == [{"dll": "dep.dll", "functions": [{"name": "dep_a", "hint": 0}, {"ordinal": 5}]}], delay["delay_imports"]
assert delay["imports"] == []
assert delay["dependent_load_flags"] == 2048
assert delay["version"] is None
assert delay["linker"] == "14.00"
PY

"$bin" pe --json --no-exports "$fx/x64/fixture.dll" >"$work/noexp.json"
check_cmd "--no-exports leaves the exports key out" python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))["files"][0]
assert "exports" not in f and f["imports"], f.keys()' "$work/noexp.json"

# ---- bad input ----
: >"$work/empty.dll"
echo "hello" >"$work/text.dll"
head -c 300 "$fx/x64/fixture.dll" >"$work/cut.dll"
check_status "a missing file exits 2" 2 "$bin" pe "$work/missing.dll"
err=$("$bin" pe "$work/missing.dll" 2>&1 >/dev/null)
check_eq "a missing file's message names it once" "torch-dll-check: cannot open $work/missing.dll: No such file or directory" "$err"
err=$("$bin" pe "$work/empty.dll" 2>&1 >/dev/null)
check_eq "an empty file's message" "torch-dll-check: $work/empty.dll: empty file (0 bytes)" "$err"
err=$("$bin" pe "$work/text.dll" 2>&1 >/dev/null)
check_eq "a text file's message" "torch-dll-check: $work/text.dll: not a PE file (no MZ signature)" "$err"
err=$("$bin" pe "$work/cut.dll" 2>&1 >/dev/null)
check_eq "a truncated DLL's message" "torch-dll-check: $work/cut.dll: truncated data directory 4 at 0x128" "$err"
check_status "a directory exits 2" 2 "$bin" pe "$work"
check_status "one bad file among good ones exits 2" 2 "$bin" pe --json "$fx/x64/fixture.dll" "$work/empty.dll"
"$bin" pe --json "$fx/x64/fixture.dll" "$work/empty.dll" "$work/text.dll" >"$work/mixed.json" 2>/dev/null
check_cmd "failed files carry only path and error in JSON" python3 -c '
import json, sys
a, b, c = json.load(open(sys.argv[1]))["files"]
assert a["error"] is None and a["machine"] == "x64"
assert b == {"path": sys.argv[2], "error": "empty file (0 bytes)"}, b
assert c == {"path": sys.argv[3], "error": "not a PE file (no MZ signature)"}, c
' "$work/mixed.json" "$work/empty.dll" "$work/text.dll"
check_status "no FILE exits 2" 2 "$bin" pe
check_status "--json alone exits 2" 2 "$bin" pe --json
check_status "an unknown option exits 2" 2 "$bin" pe --bogus "$fx/x64/fixture.dll"
check_status "--help exits 0" 0 "$bin" pe --help
check_status "-- ends options" 2 "$bin" pe -- --json

# ---- a 1 GiB file costs no memory ----
cp "$fx/x64/fixture.dll" "$work/big.dll"
truncate -s +1G "$work/big.dll"
check_cmd "1 GiB DLL: overlay counted, peak RSS within 1 MiB of a 9 KiB DLL's" python3 - "$bin" "$fx/x64/fixture.dll" "$work/big.dll" <<'PY'
import json, resource, subprocess, sys
bin, small, big = sys.argv[1:]
def rss(path):
    # A fresh interpreter per measurement: RUSAGE_CHILDREN keeps the maximum.
    code = ("import resource,subprocess,sys;"
            "r=subprocess.run([sys.argv[1],'pe','--json',sys.argv[2]],capture_output=True);"
            "assert r.returncode==0,r.stderr;"
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    return int(subprocess.run([sys.executable, "-c", code, bin, path], capture_output=True, text=True, check=True).stdout)
s = min(rss(small) for _ in range(3))
b = min(rss(big) for _ in range(3))
o = json.loads(subprocess.run([bin, "pe", "--json", big], capture_output=True, check=True).stdout)["files"][0]
o0 = json.loads(subprocess.run([bin, "pe", "--json", small], capture_output=True, check=True).stdout)["files"][0]
assert o["overlay_size"] == o0["overlay_size"] + (1 << 30), (o["overlay_size"], o0["overlay_size"])
print("rss small %d KiB, big %d KiB" % (s, b))
assert b - s <= 1024, (s, b)
PY

# ---- 150,000 exports list in linear time ----
python3 tests/lib/many_exports.py "$work/many.dll" 150000 65000
check_cmd "150,000 exports (65,000 named): all listed, under 2 s" python3 - "$bin" "$work/many.dll" <<'PY'
import json, subprocess, sys, time
t = time.monotonic()
r = subprocess.run([sys.argv[1], "pe", "--json", sys.argv[2]], capture_output=True, check=True)
dt = time.monotonic() - t
e = json.loads(r.stdout)["files"][0]["exports"]
assert e["dll_name"] == "many.dll" and len(e["entries"]) == 150000, len(e["entries"])
assert e["entries"][0] == {"ordinal": 1, "name": "export_000000", "rva": 0x100000}, e["entries"][0]
assert e["entries"][-1] == {"ordinal": 150000, "rva": 0x100000 + 149999}, e["entries"][-1]
print("%.2f s" % dt)
assert dt < 2.0, dt
PY
# ---- 4,000,000 export slots (the reader's cap) are streamed: memory does not grow with them ----
python3 tests/lib/many_exports.py "$work/huge.dll" 4000000 65536
# peak FILE ARGS...: the peak RSS in KiB of `$bin pe ARGS FILE`, best of two
peak() {
	local f=$1 _i r best=
	shift
	for _i in 1 2; do
		/usr/bin/time -f %M -o "$work/rss" "$bin" pe "$@" "$f" >/dev/null
		r=$(tail -1 "$work/rss")
		[ -z "$best" ] || [ "$r" -lt "$best" ] && best=$r
	done
	echo "$best"
}
for mode in --json text; do
	args=()
	[ "$mode" = --json ] && args=(--json)
	small=$(peak "$work/many.dll" "${args[@]}")
	huge=$(peak "$work/huge.dll" "${args[@]}")
	if [ $((huge - small)) -le 4096 ]; then
		ok "4,000,000 export slots, pe ${args[*]:-(text)}: streamed (peak RSS $huge KiB, $small KiB for 150,000)"
	else
		not_ok "4,000,000 export slots, pe ${args[*]:-(text)}: streamed (peak RSS $huge KiB, $small KiB for 150,000)"
	fi
done
n=$("$bin" pe --json "$work/huge.dll" | grep -o '{"ordinal":' | wc -l)
check_eq "...every one of them listed" 4000000 "$n"
tap_done
