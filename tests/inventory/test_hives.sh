#!/usr/bin/env bash
# test_hives.sh: regf hives (Windows\System32\config\SOFTWARE and SYSTEM)
# read through libhivex, against the same content as a `reg export` file.
#
# Fixtures are built here without Windows: tests/inventory/empty_hive.py
# writes a minimal empty hive, and Debian's hivexregedit (libwin-hivex-perl)
# merges a .reg file into it. The .reg files hold the layouts the inventory
# reads: VC++ runtimes in both views (x86 under WOW6432Node, as its installer
# writes it), PEP 514 Python installs, a CUDA toolkit, every value type, a
# value too big for one cell; SYSTEM holds two control sets and
# Select\Current = 2, and the export equivalent spells ControlSet002 as
# CurrentControlSet, as `reg export` of a running machine does.
#
# Checks: every key of the fixtures compared value by value (hive vs export,
# both views); `inventory --json` the same from both; --root of a disk tree
# finds the hives by itself; --registry replaces a root's own registry
# without reading it; dirty hives, pending transaction logs and logs given as
# hives are clear errors; every truncation and 2000 random byte flips of
# each hive give a clean error under ASan (tests/fuzz/mutate.c).
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
TEST_NAME=inventory-hives
set -u

bin=$B
mutate=build/asan/tests/fuzz/mutate_hive
py=/usr/bin/python3
here=tests/inventory
if ! command -v hivexregedit >/dev/null || ! command -v hivexsh >/dev/null; then
	skip "regf hive fixtures" "hivexregedit/hivexsh are not installed (apt-get install libwin-hivex-perl libhivex-bin)"
	tap_done
fi

# with_parents IN OUT: a .reg with every ancestor key listed, as reg export
# writes it (hivexregedit creates a key only under an existing parent).
with_parents() {
	"$py" - "$1" >"$2" <<'PY'
import re, sys
seen, out = set(), []
for line in open(sys.argv[1], encoding="utf-8").read().splitlines():
    m = re.match(r"^\[(HKEY_LOCAL_MACHINE\\[^\]]*)\]$", line)
    if m:
        parts = m.group(1).split("\\")
        for i in range(3, len(parts)):
            p = "\\".join(parts[:i])
            if p.lower() not in seen:
                seen.add(p.lower())
                out += ["[%s]" % p, ""]
        seen.add(m.group(1).lower())
    out.append(line)
print("\r\n".join(out))
PY
}

# make_hive REG HIVE MOUNT: HIVE = the empty hive + REG merged under HKLM\MOUNT.
make_hive() {
	"$py" "$here/empty_hive.py" "$2.tmp" "$3" &&
		PERL_UNICODE=SDA hivexregedit --merge --prefix "HKEY_LOCAL_MACHINE\\$3" "$2.tmp" "$1" >"$tmp/merge.log" 2>&1 &&
		mv "$2.tmp" "$2"
}

big=$("$py" -c 'print(",\\\n  ".join(",".join("%02x" % ((i * 25 + j) % 256) for j in range(25)) for i in range(800)))')
cat >"$tmp/software.in" <<EOF
Windows Registry Editor Version 5.00

[HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes\\x64]
"Installed"=dword:00000001
"Major"=dword:0000000e
"Minor"=dword:00000028
"Bld"=dword:000083f2
"Rbld"=dword:00000000
"Version"="v14.40.33810.00"

[HKEY_LOCAL_MACHINE\\SOFTWARE\\WOW6432Node\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes\\x86]
"Installed"=dword:00000001
"Major"=dword:0000000e
"Minor"=dword:00000026
"Bld"=dword:0000816a
"Rbld"=dword:00000000
"Version"="v14.38.33130.00"

[HKEY_LOCAL_MACHINE\\SOFTWARE\\WOW6432Node\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes\\arm64]
"Installed"=dword:00000000
"Version"="v14.29.30133.00"

[HKEY_LOCAL_MACHINE\\SOFTWARE\\Python\\PythonCore\\3.11]
"DisplayName"="Python 3.11 (64-bit)"
"SysVersion"="3.11"

[HKEY_LOCAL_MACHINE\\SOFTWARE\\Python\\PythonCore\\3.11\\InstallPath]
@="C:\\\\Program Files\\\\Python311\\\\"
"ExecutablePath"="C:\\\\Program Files\\\\Python311\\\\python.exe"

[HKEY_LOCAL_MACHINE\\SOFTWARE\\WOW6432Node\\Python\\PythonCore\\3.9-32\\InstallPath]
@="C:\\\\Program Files (x86)\\\\Python39-32\\\\"

[HKEY_LOCAL_MACHINE\\SOFTWARE\\NVIDIA Corporation\\GPU Computing Toolkit\\CUDA\\v12.4]
"InstallDir"="C:\\\\Program Files\\\\NVIDIA GPU Computing Toolkit\\\\CUDA\\\\v12.4"
"Types"=hex(7):63,00,75,00,64,00,61,00,00,00,6e,00,76,00,63,00,63,00,00,00,00,00
"Path"=hex(2):25,00,43,00,55,00,44,00,41,00,5f,00,50,00,41,00,54,00,48,00,25,00,00,00
"Stamp"=hex(b):00,80,3e,d5,de,b1,9d,01
"Owner"="Jürgen €"
"Blob"=hex:$big

[HKEY_LOCAL_MACHINE\\SOFTWARE\\Classes\\.py]
@="Python.File"
EOF
cat >"$tmp/system.in" <<'EOF'
Windows Registry Editor Version 5.00

[HKEY_LOCAL_MACHINE\SYSTEM\Select]
"Current"=dword:00000002
"Default"=dword:00000002
"LastKnownGood"=dword:00000001

[HKEY_LOCAL_MACHINE\SYSTEM\ControlSet001\Control\Session Manager\KnownDLLs]
"kernel32"="kernel32.dll"

[HKEY_LOCAL_MACHINE\SYSTEM\ControlSet002\Control\Session Manager\KnownDLLs]
"kernel32"="kernel32.dll"
"ucrtbase"="ucrtbase.dll"
"_wow64cpu"="wow64cpu.dll"

[HKEY_LOCAL_MACHINE\SYSTEM\ControlSet002\Control\Session Manager\Environment]
"Path"=hex(2):25,00,53,00,79,00,73,00,74,00,65,00,6d,00,52,00,6f,00,6f,00,74,00,25,00,00,00
"NUMBER_OF_PROCESSORS"="2"
EOF
with_parents "$tmp/software.in" "$tmp/software.reg"
with_parents "$tmp/system.in" "$tmp/system-hive.reg"
# the export of a running machine: ControlSet002 also as CurrentControlSet
with_parents <(cat "$tmp/system.in"; sed -n '/ControlSet002/,/^$/p' "$tmp/system.in" | sed 's/ControlSet002/CurrentControlSet/') "$tmp/system-export.reg"
disk=$tmp/disk
mkdir -p "$disk/Windows/System32/config"
if make_hive "$tmp/software.reg" "$disk/Windows/System32/config/SOFTWARE" SOFTWARE &&
	make_hive "$tmp/system-hive.reg" "$disk/Windows/System32/config/SYSTEM" SYSTEM; then
	ok "hives built with hivexregedit from an empty hive"
else
	not_ok "hives built with hivexregedit from an empty hive"
	sed 's/^/#   /' "$tmp/merge.log"
	tap_done
fi
SW=$disk/Windows/System32/config/SOFTWARE
SY=$disk/Windows/System32/config/SYSTEM

# --- key by key: the hive and the export give the same values --------------
compare_keys() { # compare_keys HIVE EXPORT KEYS_FILE: prints "keys values diffs"
	local hive=$1 exp=$2 k v a b nk=0 nv=0 nd=0
	while IFS= read -r k; do
		for v in 64 32; do
			a=$("$bin" inventory --registry "$hive" --query "$k" --view "$v" 2>&1)
			b=$("$bin" inventory --registry "$exp" --query "$k" --view "$v" 2>&1)
			a=${a//"$hive"/FILE}
			b=${b//"$exp"/FILE}
			a=${a//regf hive/SRC}
			b=${b//reg export/SRC}
			nk=$((nk + 1))
			nv=$((nv + $(printf '%s' "$b" | grep -c '^[^ ]* REG_')))
			if [ "$a" != "$b" ]; then
				nd=$((nd + 1))
				echo "#   $k (view $v): hive <<$a>> export <<$b>>" >&2
			fi
		done
	done <"$3"
	echo "$nk $nv $nd"
}
keys_of() { sed -n 's/^\[HKEY_LOCAL_MACHINE\\\(.*\)\]\r\?$/\1/p' "$1"; }
keys_of "$tmp/software.reg" | grep -v '^SOFTWARE\\Classes' >"$tmp/sw.keys"
keys_of "$tmp/system-export.reg" | grep -i 'CurrentControlSet\\Control\\Session Manager\|ControlSet002\|Select' >"$tmp/sys.keys"
read -r nk nv nd <<<"$(compare_keys "$SW" "$tmp/software.reg" "$tmp/sw.keys")"
check_eq "SOFTWARE hive = export, key by key in both views ($nk lookups, $nv values)" 0 "$nd"
[ "$nv" -gt 30 ] || not_ok "SOFTWARE comparison saw only $nv values"
read -r nk nv nd <<<"$(compare_keys "$SY" "$tmp/system-export.reg" "$tmp/sys.keys")"
check_eq "SYSTEM hive = export (CurrentControlSet = ControlSet002) ($nk lookups, $nv values)" 0 "$nd"
check_eq "KnownDLLs through CurrentControlSet come from Select\\Current's control set" \
	"_wow64cpu REG_SZ wow64cpu.dll" \
	"$("$bin" inventory --registry "$SY" --query 'SYSTEM\CurrentControlSet\Control\Session Manager\KnownDLLs' | grep wow64)"
check_eq "a value too big for one cell (20000 bytes) reads whole" 60000 \
	"$("$bin" inventory --registry "$SW" --query 'SOFTWARE\NVIDIA Corporation\GPU Computing Toolkit\CUDA\v12.4' | sed -n 's/^Blob REG_BINARY //p' | wc -c)"

# --- a real registry: Wine's whole HKLM (its system.reg) as two hives ---------
# regdump (tests/inventory/regdump.c) writes each top key of the system.reg as
# a regedit file of raw hex(N) values, hivexregedit makes a hive of it, and
# regdump lists every key and value of both: the lists must be the same.
regdump=build/asan/tests/inventory/regdump
if need "$regdump" && source "$here/../oracle/wine.sh" && wp=$(wine_prefix_ensure) && [ -f "$wp/system.reg" ]; then
	# a copy: the shared prefix's wineserver may rewrite its system.reg while we read
	cp "$wp/system.reg" "$tmp/wine-system.reg"
	"$regdump" "$tmp/wine-system.reg" | sed 's/^\[Software\([]\\]\)/[SOFTWARE\1/; s/^\[System\([]\\]\)/[SYSTEM\1/' >"$tmp/wine-text.txt"
	for top in SOFTWARE SYSTEM; do
		mkdir -p "$tmp/wine/$top"
		hv=$tmp/wine/$top/$top
		if "$regdump" --reg "$top" "$tmp/wine-system.reg" >"$tmp/wine/$top.reg" &&
			make_hive "$tmp/wine/$top.reg" "$hv" "$top" && "$regdump" "$hv" >"$tmp/wine/$top.txt"; then
			awk -v t="$top" '/^\[/ { keep = index($0, "[" t "]") == 1 || index($0, "[" t "\\") == 1 } keep' \
				"$tmp/wine-text.txt" >"$tmp/wine/$top.want"
			nk=$(grep -c '^\[' "$tmp/wine/$top.want")
			nv=$(grep -c '^  ' "$tmp/wine/$top.want")
			if [ "$nk" -gt 100 ] && diff "$tmp/wine/$top.want" "$tmp/wine/$top.txt" >"$tmp/wine/$top.diff"; then
				ok "Wine's real HKLM\\$top: the hive and system.reg hold the same $nk keys and $nv values"
			else
				not_ok "Wine's real HKLM\\$top: the hive and system.reg hold the same keys and values ($nk keys)"
				head -20 "$tmp/wine/$top.diff" | sed 's/^/#   /'
			fi
		else
			not_ok "Wine's real HKLM\\$top as a hive (regdump or hivexregedit failed)"
			sed 's/^/#   /' "$tmp/merge.log" | head -10
		fi
	done
else
	skip "Wine's real HKLM as hives" "no Wine prefix (tests/oracle/wine.sh) or $regdump could not be built"
fi

# --- the inventory: the same answers from the hive, the export, the disk -----
inv() { "$bin" inventory --json "$@" 2>&1 | jq -S '.inventory.redistributables' 2>&1; }
a=$(inv --registry "$SW")
b=$(inv --registry "$tmp/software.reg")
check_eq "inventory --json: hive and export agree" "$b" "$a"
if grep -q '14.40.33810' <<<"$a" && grep -q '14.38.33130' <<<"$a"; then
	ok "the hive's runtimes: x64 in the 64-bit view, x86 in WOW6432Node"
else
	not_ok "the hive's runtimes: x64 in the 64-bit view, x86 in WOW6432Node"
	echo "$a" | head -20 | sed 's/^/#   /'
fi
out=$("$bin" inventory --root "$disk" 2>&1)
rc=$?
if [ $rc -eq 0 ] && grep -q "regf hive .*SOFTWARE + regf hive .*SYSTEM under --root" <<<"$out" &&
	grep -q '14.40.33810' <<<"$out"; then
	ok "--root of a Windows disk finds Windows/System32/config/SOFTWARE and SYSTEM by itself"
else
	not_ok "--root of a Windows disk finds Windows/System32/config/SOFTWARE and SYSTEM by itself (status $rc)"
	echo "$out" | head -10 | sed 's/^/#   /'
fi
# case-insensitively, as a disk mounted with ntfs-3g or copied from Windows spells it
mkdir -p "$tmp/disk2/WINDOWS/system32/Config"
cp "$SW" "$tmp/disk2/WINDOWS/system32/Config/software"
check_cmd "--root finds windows/system32/config/software in any case" \
	sh -c "'$bin' inventory --root '$tmp/disk2' | grep -q 14.40.33810"

# --- --registry replaces the root's own registry, which is then not read ----
mkdir -p "$tmp/prefix/drive_c"
printf 'WINE REGISTRY Version 2\n[broken\n' >"$tmp/prefix/system.reg"
check_status "a Wine prefix's unreadable system.reg is an error by itself" 2 \
	"$bin" inventory --root "$tmp/prefix/drive_c"
check_cmd "--registry replaces the prefix's system.reg (which is not even read)" \
	sh -c "'$bin' inventory --root '$tmp/prefix/drive_c' --registry '$SW' | grep -q 'registry: regf hive'"

# --- dirty hives, transaction logs ------------------------------------------
# edit_base HIVE OUT SEQ1 SEQ2 TYPE [BADSUM]: a copy with its base block changed
edit_base() {
	"$py" - "$@" <<'PY'
import struct, sys
src, out, s1, s2, typ = sys.argv[1:6]
bad = len(sys.argv) > 6
d = bytearray(open(src, "rb").read())
struct.pack_into("<III", d, 4, int(s1), int(s2), struct.unpack_from("<I", d, 12)[0])
struct.pack_into("<I", d, 28, int(typ))
x = 0
for (v,) in struct.iter_unpack("<I", bytes(d[:508])):
    x ^= v
x = {0: 1, 0xFFFFFFFF: 0xFFFFFFFE}.get(x, x)
struct.pack_into("<I", d, 508, x ^ (0x55 if bad else 0))
open(out, "wb").write(d)
PY
}
mkdir -p "$tmp/dirty"
edit_base "$SW" "$tmp/dirty/SOFTWARE" 3 2 0
out=$("$bin" inventory --registry "$tmp/dirty/SOFTWARE" 2>&1)
rc=$?
check_eq "a dirty hive is an input error" 2 "$rc"
check_eq "... saying why and that no log holds its changes" \
	"torch-dll-check: inventory: $tmp/dirty/SOFTWARE: dirty hive (its sequence numbers 3 and 2 differ): Windows had not written its last changes back into the file when the image was taken; no transaction log (.LOG1, .LOG2) lies next to it, so they are lost. Reading the file alone would give a half-written registry: boot the image once and shut it down cleanly, then check again" \
	"$out"
# a new-format log (type 6) with two entries, one already applied (sequence 2) and one pending (3)
"$py" - "$tmp/dirty/SOFTWARE.LOG1" <<'PY'
import struct, sys
base = bytearray(512)
struct.pack_into("<4sIII", base, 0, b"regf", 3, 3, 0)
struct.pack_into("<I", base, 28, 6)
def entry(seq):
    e = bytearray(512)
    struct.pack_into("<4sIIIII", e, 0, b"HvLE", 512, 0, seq, 4096, 0)
    return bytes(e)
open(sys.argv[1], "wb").write(bytes(base) + entry(2) + entry(3))
PY
: >"$tmp/dirty/SOFTWARE.LOG2"
out=$("$bin" inventory --registry "$tmp/dirty/SOFTWARE" 2>&1)
if grep -qF "they wait in the transaction logs, replayed at the next boot: SOFTWARE.LOG1 (1 pending log entry), SOFTWARE.LOG2 (empty)" <<<"$out"; then
	ok "pending transaction logs are named with their pending entries"
else
	not_ok "pending transaction logs are named with their pending entries"
	echo "#   $out"
fi
edit_base "$SW" "$tmp/dirty/badsum" 2 2 0 bad
check_cmd "a wrong base block checksum makes a hive dirty" \
	sh -c "'$bin' inventory --registry '$tmp/dirty/badsum' 2>&1 | grep -q 'dirty hive (its base block checksum is 0x'"
edit_base "$SW" "$tmp/dirty/SOFTWARE.LOG" 2 2 6
check_cmd "a transaction log given as the hive is refused" \
	sh -c "'$bin' inventory --registry '$tmp/dirty/SOFTWARE.LOG' 2>&1 | grep -q 'not a primary hive: give the hive itself'"
cp "$SW" "$tmp/dirty/clean-with-logs"
cp "$tmp/dirty/SOFTWARE.LOG1" "$tmp/dirty/clean-with-logs.LOG1"
check_cmd "a clean hive's logs are ignored, as Windows ignores them" \
	sh -c "'$bin' inventory --registry '$tmp/dirty/clean-with-logs' | grep -q 14.40.33810"
head -c 6000 "$SW" >"$tmp/dirty/SOFTWARE.cut"
check_eq "a truncated hive: exit 2 naming the file" \
	"torch-dll-check: inventory: $tmp/dirty/SOFTWARE.cut: truncated or corrupt regf hive: the base block says $(($(stat -c %s "$SW") - 4096)) bytes of hive bins, the file has 1904 after the base block" \
	"$("$bin" inventory --registry "$tmp/dirty/SOFTWARE.cut" 2>&1)"

# --- every truncation and random byte flips under ASan ----------------------
if need "$mutate"; then
	mt=${TMPDIR:-/tmp}
	[ -d /dev/shm ] && [ -w /dev/shm ] && mt=/dev/shm # thousands of small files: memory, not disk
	for h in "$SW" "$SY"; do
		if out=$(TMPDIR=$mt "$mutate" "$h" 2000 2>&1); then
			ok "$(basename "$h"): $(tail -1 <<<"$out" | sed "s|$h|the fixture|") — clean errors under ASan"
		else
			not_ok "$(basename "$h"): truncations and byte flips under ASan"
			echo "$out" | tail -30 | sed 's/^/#   /'
		fi
	done
else
	skip "truncations and byte flips under ASan" "$mutate could not be built (make $mutate)"
fi
tap_done
