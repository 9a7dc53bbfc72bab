#!/usr/bin/env bash
# shellcheck disable=SC2016  # jq programs in single quotes
# test_windows_version: the machine checked judged against the matrix row's
# min_windows (torch 2.4.0 and later: Windows 8, NT 6.2), on a tree holding the
# REAL torch 2.9.1 wheel's binaries and the real 14.44 redistributable, with
# the Windows version read (machine/osver.h) from
#   - a registry export of HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion:
#     Windows 7 (CurrentVersion "6.1", 7601) fails windows-too-old (127 on
#     kernel32.dll, the fix naming Windows 8) in text, JSON, SARIF and the
#     GitHub annotations; Windows 8 (6.2) and 8.1 (6.3) pass; Windows 10's
#     CurrentVersion "6.3" is not read when CurrentMajorVersionNumber says 10;
#   - else System32\kernel32.dll's version resource (the tree's Wine PE build
#     says 10.0.18362; a copy patched to say 6.1.7601 fails; one without a
#     version resource leaves the version unknown);
#   - hostile values: a REG_SZ where Windows writes a REG_DWORD, 0xffffffff,
#     a major without a minor, a build of 11 digits: not read, noted, never a
#     crash, never an OK taken from CurrentVersion's compatibility "6.3";
#   - a SOFTWARE hive in the tree (a mounted image), the same Windows 7;
#   - a Wine prefix's system.reg (Wine 8's default prefix says Windows 7):
#     a note, not an error (Wine's kernel32 exports CreateFile2 whatever it
#     reports; tests/lib/wine_registry.sh's real prefix);
#   - live, under Wine, torch-dll-check.exe (mingw): RtlGetVersion.
# Unknown is a windows-version-unknown note: never a pass, never an error.
TEST_NAME=check/windows-version
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
source "$TDC_REPO/tests/lib/fixtures.sh"
source "$TDC_REPO/tests/lib/wheels.sh"
source "$TDC_REPO/tests/lib/trees/wheels.sh"
set -u
W=$tmp
unset GITHUB_ACTIONS GITHUB_OUTPUT GITHUB_STEP_SUMMARY NO_COLOR

if ! whl=$(wheel_fetch torch 2.9.1 2>"$W/err") || ! py=$(wheel_tree "$W/t" "$whl" 2>"$W/err") ||
	! tree_redist "$W/t" 14.44.35112 2>"$W/err"; then
	skip "every case" "the torch 2.9.1 tree (PyPI/pip): $(tail -1 "$W/err")"
	tap_done
fi
K32=$W/t/Windows/System32/kernel32.dll
# the tree's status without any Windows finding: the Python's own vcruntime140.dll (Wine's, no version)
# shadows the redistributable's, a warning of its own
OK=warn
cp "$K32" "$W/kernel32.wine.dll"
# k32 MAJOR MINOR BUILD: the tree's kernel32.dll with its VS_FIXEDFILEINFO saying that version (none: no resource)
k32() {
	python3 - "$W/kernel32.wine.dll" "$K32.tmp" "$@" <<'PYEOF'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
if sys.argv[3] == "none":
    k = "VS_VERSION_INFO".encode("utf-16-le")
    i = d.find(k); assert i > 0
    d[i:i + len(k)] = "XS_VERSION_INFO".encode("utf-16-le")
else:
    i = d.find(struct.pack("<I", 0xFEEF04BD)); assert i > 0
    ma, mi, b = (int(x) for x in sys.argv[3:6])
    struct.pack_into("<II", d, i + 8, ma << 16 | mi, b << 16)
open(sys.argv[2], "wb").write(d)
PYEOF
	mv "$K32.tmp" "$K32"
}
# reg FILE LINE...: a reg export: the x64 redistributable 14.44 and, when LINEs are given, the CurrentVersion key with them
reg() {
	local f=$1
	shift
	{
		printf 'Windows Registry Editor Version 5.00\r\n\r\n[HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes\\x64]\r\n"Installed"=dword:00000001\r\n"Version"="v14.44.35211.00"\r\n'
		if [ $# -gt 0 ]; then
			printf '\r\n[HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion]\r\n'
			printf '%s\r\n' "$@"
			# a subkey of it, never read: the key is kept without its subtree
			printf '\r\n[HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Fonts]\r\n"Arial (TrueType)"="arial.ttf"\r\n'
		fi
	} >"$W/$f.reg"
}
# run NAME ARGS...: check --json of the 2.9.1 install; NAME.json, NAME.rc
run() {
	local n=$1
	shift
	"$B" check --root "$W/t" --python "$py" --json "$@" >"$W/$n.json" 2>"$W/$n.err"
	echo $? >"$W/$n.rc"
}
# verdict NAME: "rc status | version source-kind wine | rule/severity/winerror/leaf of the Windows findings"
verdict() {
	printf '%s %s | %s\n' "$(cat "$W/$1.rc")" "$(jq -r '.status' "$W/$1.json")" "$(jq -r '
		(.machine.windows | "\(.version) \(.source // "none" | if test("^the registry") then "registry" elif test("^the version resource") then "kernel32" else . end) \(.wine)") + " | " +
		([.findings[] | select(.rule | test("^windows-")) | "\(.rule)/\(.severity)/\(.winerror)/\(.leaf)"] | join(" "))' "$W/$1.json")"
}

# ---- the registry ----
reg win7 '"CurrentVersion"="6.1"' '"CurrentBuildNumber"="7601"' '"CurrentBuild"="7601"' '"ProductName"="Windows 7 Professional"'
run win7 --registry "$W/win7.reg"
check_eq "Windows 7 (registry 6.1.7601), torch 2.9.1: windows-too-old, 127 on kernel32.dll, exit 1" \
	"1 fail | 6.1.7601 registry false | windows-too-old/error/127/kernel32.dll" "$(verdict win7)"
check_eq "its title, fix and message: what it needs, what the machine has, where read" yes \
	"$(jq -r '[.findings[] | select(.rule == "windows-too-old")][0] |
		(.title | test("^torch 2\\.9\\.1\\+cpu needs Windows 8 \\(NT 6\\.2\\) or newer \\(the matrix row [^ ]+ min_windows\\); this machine has Windows 7 \\(NT 6\\.1\\.7601\\)$")) and
		(.fix | startswith("run torch 2.9.1+cpu on Windows 8 (NT 6.2) or newer")) and
		(.message | test("CreateFile2") and test("HKLM\\\\SOFTWARE\\\\Microsoft\\\\Windows NT\\\\CurrentVersion") and test("WinError 127\\]"))
		| if . then "yes" else . end' "$W/win7.json")"
check_eq "JSON machine.windows: name and source" \
	"Windows 7 (NT 6.1.7601)|the registry (reg export $W/win7.reg), HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion" \
	"$(jq -r '.machine.windows | "\(.name)|\(.source)"' "$W/win7.json")"
"$B" check --root "$W/t" --python "$py" --registry "$W/win7.reg" >"$W/win7.txt" 2>&1
check_eq "text: the error, its fix" "2 1" \
	"$(grep -c 'needs Windows 8 (NT 6.2) or newer' "$W/win7.txt") $(grep -c 'fix: *run torch 2.9.1+cpu on Windows 8 (NT 6.2)' "$W/win7.txt")"
GITHUB_ACTIONS=true "$B" check --root "$W/t" --python "$py" --registry "$W/win7.reg" --format github \
	--sarif "$W/win7.sarif" >"$W/win7.gh" 2>&1
check_eq "annotations: one ::error titled windows-too-old" 1 "$(grep -c '^::error .*needs Windows 8 (NT 6.2) or newer' "$W/win7.gh")"
check_eq "SARIF: a windows-too-old result at level error" "windows-too-old error" \
	"$(jq -r '.runs[0].results[] | select(.ruleId == "windows-too-old") | "\(.ruleId) \(.level)"' "$W/win7.sarif")"

# inventory --write-profile of that machine: its build as check reads it (not "10.0.7601")
"$B" inventory --root "$W/t" --registry "$W/win7.reg" --write-profile "$W/w7.yml" --profile-name w7 >/dev/null 2>>"$W/wp.err"
check_eq "inventory --write-profile of the Windows 7 registry: build 6.1.7601" '    build: "6.1.7601"' "$(grep '^    build:' "$W/w7.yml")"

reg win8 '"CurrentVersion"="6.2"' '"CurrentBuildNumber"="9200"'
run win8 --registry "$W/win8.reg"
check_eq "Windows 8 (6.2.9200): passes, no Windows finding" "0 $OK | 6.2.9200 registry false | " "$(verdict win8)"
reg win81 '"CurrentVersion"="6.3"' '"CurrentBuildNumber"="9600"'
run win81 --registry "$W/win81.reg"
check_eq "Windows 8.1 (6.3, no CurrentMajorVersionNumber): passes" "0 $OK | 6.3.9600 registry false | " "$(verdict win81)"
reg win10 '"CurrentMajorVersionNumber"=dword:0000000a' '"CurrentMinorVersionNumber"=dword:00000000' \
	'"CurrentVersion"="6.3"' '"CurrentBuildNumber"="19045"'
run win10 --registry "$W/win10.reg"
check_eq "Windows 10 (the DWORDs; CurrentVersion's \"6.3\" not read): 10.0.19045, passes" \
	"0 $OK | 10.0.19045 registry false | " "$(verdict win10)"
check_eq "its name" "Windows 10 (NT 10.0.19045)" "$(jq -r '.machine.windows.name' "$W/win10.json")"

# ---- kernel32.dll's version resource ----
reg none
run k32wine --registry "$W/none.reg"
check_eq "no version in the registry: kernel32.dll's (Wine's PE build, 10.0.18362): passes" \
	"0 $OK | 10.0.18362 kernel32 false | " "$(verdict k32wine)"
k32 6 1 7601
run k32win7 --registry "$W/none.reg"
check_eq "kernel32.dll saying 6.1.7601: windows-too-old" "1 fail | 6.1.7601 kernel32 false | windows-too-old/error/127/kernel32.dll" \
	"$(verdict k32win7)"
k32 none
run unknown --registry "$W/none.reg"
check_eq "no registry value, kernel32.dll without a version resource: unknown, a note, exit 0" \
	"0 $OK | null none false | windows-version-unknown/note/null/null" "$(verdict unknown)"
check_eq "the note says unknown and why" yes \
	"$(jq -r '[.findings[] | select(.rule == "windows-version-unknown")][0] | (.title | test("Windows version is unknown: torch 2.9.1\\+cpu needs Windows 8 \\(NT 6.2\\) or newer, not judged")) and (.message | test("has no version resource"))
		| if . then "yes" else . end' "$W/unknown.json")"
"$B" check --root "$W/t" --python "$py" --registry "$W/none.reg" >"$W/unknown.txt" 2>&1
check_eq "text: the note" 1 "$(grep -c 'Windows version is unknown' "$W/unknown.txt")"
k32 65535 65535 65535
run k32huge --registry "$W/none.reg"
check_eq "kernel32.dll saying 65535.65535: not read, unknown" "0 $OK | null none false | windows-version-unknown/note/null/null" \
	"$(verdict k32huge)"
cp "$W/kernel32.wine.dll" "$K32.tmp" && mv "$K32.tmp" "$K32"

# ---- hostile values (kernel32.dll: Wine's 10.0.18362 again) ----
reg huge '"CurrentMajorVersionNumber"=dword:ffffffff' '"CurrentMinorVersionNumber"=dword:00000000' '"CurrentVersion"="6.1"'
run huge --registry "$W/huge.reg"
check_eq "CurrentMajorVersionNumber 0xffffffff: not read, CurrentVersion not taken instead; kernel32.dll" \
	"0 $OK | 10.0.18362 kernel32 false | |1" \
	"$(verdict huge)|$(jq '[.machine.windows.notes[] | select(test("4294967295 and CurrentMinorVersionNumber 0 are no Windows version"))] | length' "$W/huge.json")"
reg sz '"CurrentMajorVersionNumber"="10"' '"CurrentMinorVersionNumber"=dword:00000000' '"CurrentVersion"="6.1"'
run sz --registry "$W/sz.reg"
check_eq "a REG_SZ where the REG_DWORD goes: not read (noted)" "0 $OK | 10.0.18362 kernel32 false | |1" \
	"$(verdict sz)|$(jq '[.machine.windows.notes[] | select(test("CurrentMajorVersionNumber is not a REG_DWORD"))] | length' "$W/sz.json")"
reg nominor '"CurrentMajorVersionNumber"=dword:00000006' '"CurrentVersion"="6.1"'
run nominor --registry "$W/nominor.reg"
check_eq "a major without a minor: not read" "0 $OK | 10.0.18362 kernel32 false | " "$(verdict nominor)"
reg badbuild '"CurrentVersion"="6.1"' '"CurrentBuildNumber"="99999999999"' '"CurrentBuild"=dword:00001db1'
run badbuild --registry "$W/badbuild.reg"
check_eq "a build of 11 digits, CurrentBuild a DWORD: no build, 6.1 still judged" \
	"1 fail | 6.1 registry false | windows-too-old/error/127/kernel32.dll" "$(verdict badbuild)"
reg badver '"CurrentVersion"="6.1; rm -rf"'
run badver --registry "$W/badver.reg"
check_eq "a CurrentVersion that is no version: not read (quoted in the note)" "0 $OK | 10.0.18362 kernel32 false | |1" \
	"$(verdict badver)|$(jq '[.machine.windows.notes[] | select(test("CurrentVersion is \"6.1; rm -rf\", not a Windows version"))] | length' "$W/badver.json")"

# ---- a mounted image's SOFTWARE hive (regf, libhivex), found under --root ----
if ! command -v hivexregedit >/dev/null; then
	skip "a SOFTWARE hive" "hivexregedit is not installed (libwin-hivex-perl)"
else
	# every ancestor key first (hivexregedit makes a key only under an existing parent), then the values
	{
		printf 'Windows Registry Editor Version 5.00\r\n'
		for k in 'SOFTWARE\Microsoft' 'SOFTWARE\Microsoft\VisualStudio' 'SOFTWARE\Microsoft\VisualStudio\14.0' \
			'SOFTWARE\Microsoft\VisualStudio\14.0\VC' 'SOFTWARE\Microsoft\VisualStudio\14.0\VC\Runtimes' 'SOFTWARE\Microsoft\Windows NT'; do
			printf '\r\n[HKEY_LOCAL_MACHINE\\%s]\r\n' "$k"
		done
		tail -n +2 "$W/win7.reg"
	} >"$W/win7-hive.reg"
	mkdir -p "$W/t/Windows/System32/config"
	if python3 "$TDC_REPO/tests/inventory/empty_hive.py" "$W/SOFTWARE.tmp" SOFTWARE &&
		PERL_UNICODE=SDA hivexregedit --merge --prefix 'HKEY_LOCAL_MACHINE\SOFTWARE' "$W/SOFTWARE.tmp" "$W/win7-hive.reg" >"$W/merge.log" 2>&1; then
		mv "$W/SOFTWARE.tmp" "$W/t/Windows/System32/config/SOFTWARE"
		run hive
		if jq -e '.machine.registry | test("hive")' "$W/hive.json" >/dev/null 2>&1; then
			check_eq "the tree's own SOFTWARE hive saying 6.1.7601: windows-too-old" \
				"1 fail | 6.1.7601 registry false | windows-too-old/error/127/kernel32.dll" "$(verdict hive)"
		else
			skip "a SOFTWARE hive" "this build reads no hives: $(jq -r '.machine.registry' "$W/hive.json" 2>/dev/null)"
		fi
		rm -rf "$W/t/Windows/System32/config"
	else
		not_ok "could not build the SOFTWARE hive: $(tail -2 "$W/merge.log")"
	fi
fi

# ---- a Wine prefix's registry (Wine 8's default: Windows 7) ----
# shellcheck source=tests/lib/wine_registry.sh
source "$TDC_REPO/tests/lib/wine_registry.sh"
if ! command -v wine >/dev/null; then
	skip "Wine's system.reg" "wine is not installed"
elif ! pfx=$(wine_registry_prefix 2>"$W/err"); then
	not_ok "the Wine prefix: $(tail -1 "$W/err")"
else
	want=$(awk -F'"' '/^\[Software\\\\Microsoft\\\\Windows NT\\\\CurrentVersion\]/ { k = 1; next } /^\[/ { k = 0 }
		k && $2 == "CurrentVersion" { v = $4 } k && $2 == "CurrentBuildNumber" { b = $4 } END { print v "." b }' "$pfx/system.reg")
	run wine --registry "$pfx/system.reg"
	if [ "$want" = 6.1.7601 ]; then
		check_eq "Wine's default prefix (system.reg says $want): a note, not an error (Wine's kernel32 has CreateFile2)" \
			"0 $OK | 6.1.7601 registry true | windows-too-old/note/null/kernel32.dll" "$(verdict wine)"
		check_eq "its fix: winecfg -v win10" 1 \
			"$(jq '[.findings[] | select(.rule == "windows-too-old") | select(.fix | test("winecfg -v win10"))] | length' "$W/wine.json")"
	else
		check_eq "Wine's prefix (system.reg says $want): read, marked Wine" "$want true" \
			"$(jq -r '.machine.windows | "\(.version) \(.wine)"' "$W/wine.json")"
	fi
fi

# ---- live: torch-dll-check.exe under Wine, RtlGetVersion ----
# shellcheck source=tests/lib/win_exe.sh
source "$TDC_REPO/tests/lib/win_exe.sh"
if ! command -v x86_64-w64-mingw32-gcc >/dev/null || ! command -v wine >/dev/null; then
	skip "live" "mingw-w64 or wine is not installed"
elif ! exe=$(win_exe "$W"); then
	not_ok "could not cross-build torch-dll-check.exe"
	tail -20 "$W/xbuild.log" "$W/xdeps.log" 2>/dev/null | sed 's/^/#   /'
else
	pydir=${py#C:\\}
	pydir=${pydir%\\python.exe}
	torch_win="Z:$(printf '%s' "$W/t/$pydir" | sed 's|/|\\|g')\\Lib\\site-packages\\torch"
	(
		unset DISPLAY
		export WINEPREFIX=$W/pfx WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
		{ wine wineboot -i && wineserver -w; } >"$W/boot.log" 2>&1
		for v in win7 win8; do
			wine winecfg -v "$v" >>"$W/boot.log" 2>&1
			wineserver -w
			wine "$exe" check --torch "$torch_win" --json >"$W/live-$v.json" 2>"$W/live-$v.err"
			echo $? >"$W/live-$v.rc"
		done
		wineserver -k >/dev/null 2>&1
	)
	for v in win7 win8; do
		if ! jq -e .machine.windows "$W/live-$v.json" >/dev/null 2>&1; then
			not_ok "live $v: no report ($(cat "$W/live-$v.rc")): $(tail -3 "$W/live-$v.err" | tr -d '\r')"
			continue
		fi
		want="6.1.7601 true Wine's RtlGetVersion (winecfg's Windows version)|windows-too-old/note"
		[ $v = win8 ] && want="6.2.9200 true Wine's RtlGetVersion (winecfg's Windows version)|"
		check_eq "live under Wine, winecfg -v $v: RtlGetVersion, marked Wine" "$want" \
			"$(jq -r '(.machine.windows | "\(.version) \(.wine) \(.source)") + "|" + ([.findings[] | select(.rule | test("^windows-")) | "\(.rule)/\(.severity)"] | join(" "))' "$W/live-$v.json")"
	done
fi
tap_done
