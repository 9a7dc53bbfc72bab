# shellcheck shell=bash
# shellcheck disable=SC2034,SC2154  # WINE_REG_CACHE and WINE_REG_PFX are for the caller; $tmp is start.sh's
# wine_registry.sh: a Wine prefix whose registry holds what the offline
# registry readers are tested on: the VC++ runtime keys added by `wine reg
# add` (x64 14.40 in the 64-bit view, x86 14.38 in WOW6432Node, arm64
# inconsistent and marked not installed), non-ASCII names and data, and
# `wine reg export` files (UTF-16LE with a BOM) of the same keys. Sourced by
# tests/inventory/test_registry.sh and tests/check/test_policy.sh, which
# share the one prefix.
#
# The prefix is built once and cached in $TDC_CACHE, keyed by the Wine
# version and setup_prefix's steps. system.reg is written by wineserver
# when it exits: `wineserver -w` waits for that (it exits a few seconds
# after the last Wine process), so the file is complete afterwards.

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
# setup_prefix DIR: a fresh prefix with the keys the tests read.
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

# wine_registry_prefix: builds the prefix unless it is cached; sets
# WINE_REG_CACHE (its folder) and WINE_REG_PFX (the prefix; the build log
# is $WINE_REG_PFX.log). 0 when the prefix is ready, 1 when it could not be
# built. The cache is shared by tests running at once: a prefix is built in
# a temporary folder and renamed into place, complete, so no test reads a
# half-built one.
wine_registry_prefix() {
	local key t
	key=$( { wine --version 2>/dev/null; declare -f setup_prefix; echo "$RTKEY"; } | sha256sum | cut -c1-16)
	WINE_REG_CACHE=$TDC_CACHE/wine-registry/$key
	WINE_REG_PFX=$WINE_REG_CACHE/pfx
	[ -f "$WINE_REG_CACHE/done" ] && return 0
	mkdir -p "$TDC_CACHE/wine-registry"
	t=$(mktemp -d "$TDC_CACHE/wine-registry/.tmp.XXXXXX") || return 1
	if ! (setup_prefix "$t/pfx"); then
		WINE_REG_PFX=$t/pfx
		return 1
	fi
	touch "$t/done"
	# a folder without done is a build that never finished (renamed ones are complete)
	[ -f "$WINE_REG_CACHE/done" ] || rm -rf "$WINE_REG_CACHE"
	if mv -T "$t" "$WINE_REG_CACHE" 2>/dev/null || [ -f "$WINE_REG_CACHE/done" ]; then
		rm -rf "$t"
		return 0
	fi
	# the name could not be taken: this test uses its own copy, from its temporary folder
	mv -T "$t" "$tmp/wine-registry" || return 1
	WINE_REG_CACHE=$tmp/wine-registry
	WINE_REG_PFX=$WINE_REG_CACHE/pfx
}
