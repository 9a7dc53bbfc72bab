# wine_registry.sh: a Wine prefix whose registry holds the VC++ runtime keys
# the registry tests read (x64 14.40 consistent; x86 14.38 in the 32-bit
# view; arm64 inconsistent and not installed; a non-ASCII value), with
# `reg export` files of them beside it. Source it:
#
#   pfx=$(wine_registry_prefix) || ...   the prefix's folder (system.reg,
#                                        export64.reg, export-wow.reg,
#                                        export-reg32.reg, export-test.reg,
#                                        export-software.reg, drive_c)
#
# Built once into $TDC_CACHE/wine-registry/<key>, where <key> covers the Wine
# version and setup_prefix's steps, in a temporary folder renamed into place
# (the cache is shared by tests/inventory/test_registry.sh,
# tests/check/test_policy.sh and tests/action/test_action_gate.sh). system.reg
# is written by wineserver when it exits: `wineserver -w` waits for that (it
# exits a few seconds after the last Wine process), so the file is complete
# afterwards.
# shellcheck shell=bash

RTKEY='HKLM\SOFTWARE\Microsoft\VisualStudio\14.0\VC\Runtimes'
# wine_try LOG CMD...: wine CMD, retried. A Wine 8 process started while
# wineboot's own setup is still running in the new prefix can die with
# "could not load kernel32.dll, status c0000135" (seen here): setup_prefix
# waits for wineboot with `wineserver -w`; the retry is a second guard.
wine_try() {
	local log=$1 n
	shift
	for n in 1 2 3; do
		wine "$@" >>"$log" 2>&1 && return 0
		echo "(attempt $n of: wine $*)" >>"$log"
		sleep 1
	done
	return 1
}
# setup_prefix DIR: a fresh prefix with the keys this test reads.
setup_prefix() {
	local pfx=$1 log=$1.log
	unset DISPLAY
	export WINEPREFIX=$pfx WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" LC_ALL=C.UTF-8
	wine wineboot -i >"$log" 2>&1 || return 1
	# wineboot returns before the prefix's setup processes end: wait for them
	wineserver -w >>"$log" 2>&1
	# x64: consistent, in the 64-bit view
	wine_try "$log" reg add "$RTKEY\\x64" /v Version /t REG_SZ /d v14.40.33810.00 /f || return 1
	for kv in Major=14 Minor=40 Bld=33810 Rbld=0 Installed=1; do
		wine_try "$log" reg add "$RTKEY\\x64" /v "${kv%%=*}" /t REG_DWORD /d "${kv#*=}" /f || return 1
	done
	# x86: in the 32-bit view (WOW6432Node), as the 32-bit installer writes it
	wine_try "$log" reg add "$RTKEY\\x86" /v Version /t REG_SZ /d v14.38.33130.00 /f /reg:32 || return 1
	for kv in Major=14 Minor=38 Bld=33130 Rbld=0 Installed=1; do
		wine_try "$log" reg add "$RTKEY\\x86" /v "${kv%%=*}" /t REG_DWORD /d "${kv#*=}" /f /reg:32 || return 1
	done
	# arm64: inconsistent (Version vs Bld) and marked not installed
	wine_try "$log" reg add "$RTKEY\\arm64" /v Version /t REG_SZ /d v14.40.33810.00 /f || return 1
	for kv in Major=14 Minor=40 Bld=33130 Installed=0; do
		wine_try "$log" reg add "$RTKEY\\arm64" /v "${kv%%=*}" /t REG_DWORD /d "${kv#*=}" /f || return 1
	done
	# non-ASCII names and data: Wine writes them as \x escapes (a surrogate pair for U+1F600)
	wine_try "$log" reg add 'HKLM\SOFTWARE\tdc-test' /v 'Nämé' /t REG_SZ /d 'q"é😀\x' /f || return 1
	wine_try "$log" reg add 'HKLM\SOFTWARE\tdc-test' /v Multi /t REG_MULTI_SZ /d 'a\0b' /f || return 1
	# exports (reg.exe writes UTF-16LE with a BOM)
	wine_try "$log" reg export 'HKLM\SOFTWARE\Microsoft\VisualStudio\14.0' "$pfx/export64.reg" /y || return 1
	wine_try "$log" reg export 'HKLM\SOFTWARE\WOW6432Node\Microsoft\VisualStudio\14.0' "$pfx/export-wow.reg" /y || return 1
	wine_try "$log" reg export 'HKLM\SOFTWARE\Microsoft\VisualStudio\14.0' "$pfx/export-reg32.reg" /y /reg:32 || return 1
	wine_try "$log" reg export 'HKLM\SOFTWARE\tdc-test' "$pfx/export-test.reg" /y || return 1
	wine_try "$log" reg export 'HKLM\SOFTWARE' "$pfx/export-software.reg" /y || return 1
	# flush: wineserver writes system.reg when it exits
	wineserver -w >>"$log" 2>&1
	grep -q 'VC\\\\Runtimes\\\\arm64' "$pfx/system.reg"
}

# wine_registry_prefix: prints the cached prefix's folder, building it when
# there is none; on failure, returns 1 with the end of the setup's log on
# stderr.
wine_registry_prefix() {
	local key cache t
	if ! command -v wine >/dev/null || ! command -v wineserver >/dev/null; then
		echo "wine is not installed (see .ci/deps)" >&2
		return 1
	fi
	key=$( { wine --version 2>/dev/null; declare -f setup_prefix; echo "$RTKEY"; } | sha256sum | cut -c1-16)
	cache=$TDC_CACHE/wine-registry/$key
	if [ ! -f "$cache/done" ]; then
		mkdir -p "$TDC_CACHE/wine-registry"
		t=$(mktemp -d "$TDC_CACHE/wine-registry/.tmp.XXXXXX") || return 1
		if ! (setup_prefix "$t/pfx"); then
			tail -20 "$t/pfx.log" >&2
			rm -rf "$t"
			return 1
		fi
		touch "$t/done"
		if ! mv -T "$t" "$cache" 2>/dev/null && [ ! -f "$cache/done" ]; then
			# a half-built prefix of another run holds the name: use ours where it is
			echo "$t/pfx"
			return 0
		fi
		rm -rf "$t"
	fi
	echo "$cache/pfx"
}
