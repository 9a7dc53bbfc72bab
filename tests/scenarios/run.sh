#!/usr/bin/env bash
# run.sh RUN_DIR [SCENARIO...]: builds (or reuses) the scenario trees, runs the
# Wine oracle on each, and — when `torch-dll-check check` works — the checker
# too. Writes, per scenario, into RUN_DIR:
#   <s>.args          the oracle's arguments (UTF-8 response file)
#   <s>.oracle.jsonl  the oracle's JSON lines (Wine paths, drive T:)
#   <s>.wine.err      Wine's stderr: the oracle's markers + warn+module lines
#   <s>.check.json    the checker's report (if it ran), <s>.check.err
# and RUN_DIR/SCENARIO_DIR (the tree directory). tests/scenarios/compare.py
# reads them. Prints nothing on success; exit 1 when the setup failed.
#
# How a tree meets Wine: the prefix's drive T: (dosdevices/t:) is pointed at
# the scenario's root, so the tree's own folders (Python311, Users, Tools)
# are T:\..., while C:\windows\system32 stays the prefix's real one. The
# checker sees the same tree as C:\ with Windows\System32 hard links to that
# same folder's files, so both look at the same files; compare.py maps T: to C:.
# A lock keeps two runs from re-pointing T: under each other.
set -u
SCN_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SCN_SRC/../.." && pwd)
# shellcheck source=tests/oracle/wine.sh
source "$REPO/tests/oracle/wine.sh"
RUN=$1
shift
mkdir -p "$RUN"
RUN=$(cd "$RUN" && pwd)
TDC_BIN=${TDC_BIN:-$REPO/torch-dll-check}

D=$(bash "$SCN_SRC/build.sh") || exit 1
echo "$D" >"$RUN/SCENARIO_DIR"
PFX=$(wine_prefix_ensure) || exit 1
if [ $# -gt 0 ]; then
	LIST=("$@")
else
	mapfile -t LIST <"$D/SCENARIOS"
fi
# What was asked for: compare.py reports a requested scenario the oracle wrote
# nothing for as not run (a skip), instead of leaving it out unseen.
printf '%s\n' "${LIST[@]}" >"$RUN/REQUESTED"

# Does the checker's `check` exist yet? (branch `loader` brings it.)
have_check=0
if [ -x "$TDC_BIN" ] && "$TDC_BIN" check --help >/dev/null 2>&1; then
	have_check=1
fi
echo "$have_check" >"$RUN/HAVE_CHECK"

# to_wine WINPATH: C:\x → T:\x, except the real Windows folder.
# shellcheck disable=SC1003  # the backslashes are literal Windows paths
to_wine() {
	case $1 in
	'"'*'"') echo "\"$(to_wine "${1:1:${#1}-2}")\"" && return ;;
	esac
	case ${1,,} in
	'c:\windows' | 'c:\windows\'*) echo "$1" ;;
	[c]:*) echo "T:${1:2}" ;;
	*) echo "$1" ;;
	esac
}

# z_path HOSTPATH: the Wine path of a host file (drive Z: is /).
z_path() {
	local p=$1
	echo "Z:${p//\//\\}"
}

# Wine's builtin DLLs (PE side) and Windows 10/11's KnownDLLs (as loader_setup.c's built-in list).
WINE_BUILTINS=$(dirname "$(readlink -f "$(command -v wine)")")/../lib/x86_64-linux-gnu/wine/x86_64-windows
[ -d "$WINE_BUILTINS" ] || WINE_BUILTINS=/usr/lib/x86_64-linux-gnu/wine/x86_64-windows
KNOWN_DLLS="advapi32.dll clbcatq.dll combase.dll comdlg32.dll coml2.dll difxapi.dll gdi32.dll gdiplus.dll
imagehlp.dll imm32.dll kernel32.dll msctf.dll msvcrt.dll normaliz.dll nsi.dll ole32.dll oleaut32.dll psapi.dll
rpcrt4.dll sechost.dll setupapi.dll shcore.dll shell32.dll shlwapi.dll user32.dll wldap32.dll wow64.dll
wow64win.dll ws2_32.dll ntdll.dll kernelbase.dll"
KNOWN_DLLS=${KNOWN_DLLS//$'\n'/ } # one line

wine_lock "$PFX"
# Older versions of this script (still in other worktrees) locked this file:
# hold it too, so that no two runs re-point drive T: at once.
exec 8>"$PFX/.tdc-scenarios.lock"
flock 8
wine_start "$PFX"
for s in "${LIST[@]}"; do
	# shellcheck disable=SC1090
	source "$D/$s/meta"
	ln -sfn "$D/$s/root" "$PFX/dosdevices/t:"
	for f in "${WINDIR_FILES[@]}"; do
		cp "$D/$s/root/Windows/$f" "$PFX/drive_c/windows/$f"
	done
	{
		echo torch
		echo --out
		z_path "$RUN/$s.oracle.jsonl"
		echo --torch-dir
		to_wine "$TORCH"
		for p in "${DLL_PATHS[@]}"; do echo --dll-path; to_wine "$p"; done
		for p in "${PYDS[@]}"; do echo --pyd; to_wine "$p"; done
	} >"$RUN/$s.args"
	winepath=
	for p in "${PATH_ADD[@]}"; do winepath+="${winepath:+;}$(to_wine "$p")"; done
	ovr=$WINE_BOOT_OVERRIDES
	for o in "${WINE_OVR[@]}"; do ovr+=";$o"; done
	# Wine prefers its builtin to a DLL file of the same name (msvcp140,
	# dbghelp, ws2_32, ...: any name it has a builtin for), yet reports the
	# file's path. The scenario means the file: load it (n,b) — except
	# KnownDLLs, which Windows takes from System32 whatever the folder holds,
	# as Wine's builtin stands for. compare.py checks that every name
	# overridden here is listed in WINE_VS_WINDOWS (W6).
	: >"$RUN/$s.native"
	while IFS= read -r f; do
		n=$(basename "$f")
		n=${n,,}
		[ -f "$WINE_BUILTINS/$n" ] || continue
		case " $KNOWN_DLLS " in *" $n "*) continue ;; esac
		grep -qxF "$n" "$RUN/$s.native" && continue
		echo "$n" >>"$RUN/$s.native"
		ovr+=";${n%.dll}=n,b"
	done < <(find "$D/$s/root" -path "$D/$s/root/Windows" -prune -o -type f -iname '*.dll' -print)
	rm -f "$RUN/$s.oracle.jsonl"
	(
		cd "$D/$s/root" || exit 1
		if [ -n "$winepath" ]; then export WINEPATH=$winepath; else unset WINEPATH; fi
		WINEDLLOVERRIDES=$ovr WINEDEBUG=warn+module \
			wine_run "$PFX" "$RUN/$s.wine.out" "$RUN/$s.wine.err" \
			"$(to_wine "$PYDIR\\python.exe")" "@$(z_path "$RUN/$s.args")"
	)
	for f in "${WINDIR_FILES[@]}"; do
		rm -f "$PFX/drive_c/windows/$f"
	done
	if [ $have_check = 1 ]; then
		# The checker gets the PATH the oracle's process started with (first
		# oracle line), in C: terms, plus the scenario's environment.
		cpath=$(python3 -c 'import json,sys
for l in open(sys.argv[1], encoding="utf-8"):
    o = json.loads(l)
    if o.get("event") == "env":
        print(o["PATH"].replace("T:\\", "C:\\").replace("t:\\", "C:\\")); break' "$RUN/$s.oracle.jsonl" 2>/dev/null)
		envs=(--env "PATH=$cpath")
		for e in "${CHECK_ENV[@]}"; do envs+=(--env "$e"); done
		"$TDC_BIN" check --root "$D/$s/root" --python "${CHECK_PYTHON[0]}" "${envs[@]}" \
			--json >"$RUN/$s.check.json" 2>"$RUN/$s.check.err"
		echo $? >"$RUN/$s.check.rc"
	fi
done
rm -f "$PFX/dosdevices/t:"
wine_stop "$PFX"
exit 0
