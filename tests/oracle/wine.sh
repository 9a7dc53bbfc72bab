#!/usr/bin/env bash
# wine.sh: the real Windows loader for the tests — Wine, in a private prefix.
#
# Source it for the functions, or run it:
#   tests/oracle/wine.sh prefix          create/reuse the prefix, print its path
#   tests/oracle/wine.sh oracle          build/reuse torchload_oracle.exe, print its path
#   tests/oracle/wine.sh run OUT ERR ARGS...
#                                        start the oracle (or any program) under Wine;
#                                        stdout to OUT, stderr (Wine's diagnostics
#                                        included) to ERR; server started and stopped
#
# The prefix lives in $TDC_CACHE/wine/prefix-<wine version>-<settings hash>:
# created headless once (unset DISPLAY; wineboot -i with mscoree and mshtml
# disabled, ≈6 s) and reused, so its system32 (532 real PE DLLs: vcruntime140,
# msvcp140, ucrtbase, apisetschema ...) is a stable, real System32 for the
# scenario trees. Nothing here touches ~/.wine or any other prefix.
#
# Rules learned the hard way (TESTBED.md): never pipe Wine's output into
# another process (its helper processes keep the pipe open and the reader
# hangs) — always redirect to files; keep one persistent wineserver for a
# batch of runs (`wineserver -p`, ≈0.4 s per run instead of ≈2.5 s) and stop
# it with `wineserver -k`, for our prefix only.
#
# Diagnostics: with WINEDEBUG=warn+module Wine reports imports it cannot
# resolve, which it binds to stubs instead of failing (Windows fails with 127
# or 182): "No implementation for <dll>.<name or ordinal> imported from
# L"<path>"" and "find_forwarded_export module not found for forward". The
# scenario tests read these from the stderr file (tests/scenarios/compare.py).

: "${TDC_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/torch-dll-check}"
WINE_SH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WINE_BOOT_OVERRIDES="mscoree,mshtml="

# wine_zpath PATH: a Linux path as the Windows program under Wine names it
# (drive Z: is the Linux root): /tmp/a b -> Z:\tmp\a b.
wine_zpath() { local p=$1; echo "Z:${p//\//\\}"; }

# wine_version: "wine-8.0" (or empty when Wine is not installed).
wine_version() {
	wine --version 2>/dev/null | head -1 | awk '{print $1}'
}

# wine_prefix_dir: where the prefix for this Wine version lives.
wine_prefix_dir() {
	local key
	key=$(printf '%s\n' "$(wine_version)" "$WINE_BOOT_OVERRIDES" "wineboot -i" | sha256sum | cut -c1-12)
	echo "$TDC_CACHE/wine/prefix-$(wine_version)-$key"
}

# A UTF-8 locale: Wine converts Windows paths to Unix file names (and Unix
# arguments to the command line) with the locale's code page; under LANG=C a
# non-ASCII path such as C:\Users\Jürgen cannot be opened at all.
_wine_env() {
	unset DISPLAY WAYLAND_DISPLAY
	export WINEPREFIX=$1
	export WINEARCH=win64
	export LC_ALL=C.UTF-8 LANG=C.UTF-8
}

# wine_prefix_ensure: creates the prefix if needed (atomically: built in a
# temporary directory, then renamed), prints its path. Returns 1 on failure.
wine_prefix_ensure() {
	local dir
	dir=$(wine_prefix_dir)
	if [ -f "$dir/.tdc-ready" ]; then
		echo "$dir"
		return 0
	fi
	command -v wine >/dev/null || { echo "wine.sh: wine is not installed" >&2; return 1; }
	mkdir -p "$(dirname "$dir")"
	local tmp
	tmp=$(mktemp -d "$dir.tmp.XXXXXX")
	(
		_wine_env "$tmp"
		WINEDEBUG=-all WINEDLLOVERRIDES=$WINE_BOOT_OVERRIDES wine wineboot -i >"$tmp/.boot.log" 2>&1
		wineserver -w
	) || { echo "wine.sh: wineboot failed (log: $tmp/.boot.log)" >&2; return 1; }
	if [ ! -f "$tmp/drive_c/windows/system32/kernel32.dll" ]; then
		echo "wine.sh: wineboot left no system32 (log: $tmp/.boot.log)" >&2
		return 1
	fi
	touch "$tmp/.tdc-ready"
	if ! mv -T "$tmp" "$dir" 2>/dev/null; then
		rm -rf "$tmp" # another run won the race; use its prefix
	fi
	echo "$dir"
}

# oracle_build: cross-compiles torchload_oracle.exe (kernel32 only, no C
# runtime) into the cache, keyed by its source and the compiler; prints the path.
oracle_build() {
	local src=$WINE_SH_DIR/torchload_oracle.c key out
	key=$( { cat "$src"; x86_64-w64-mingw32-gcc --version | head -1; } | sha256sum | cut -c1-12)
	out=$TDC_CACHE/oracle/$key/torchload_oracle.exe
	if [ ! -f "$out" ]; then
		mkdir -p "$(dirname "$out")"
		x86_64-w64-mingw32-gcc -std=c11 -O2 -Wall -Wextra -Werror -ffreestanding -fno-builtin \
			-nostdlib -e oracle_start -Wl,--subsystem,console -Wl,--no-insert-timestamp \
			-o "$out.tmp.$$" "$src" -lkernel32 -lgcc || return 1
		mv "$out.tmp.$$" "$out"
	fi
	echo "$out"
}

# wine_lock PREFIX: holds the prefix for this shell until it exits (fd 9).
# Test runs in several worktrees share the prefix; one's `wineserver -k`
# must not end another's programs, nor may two re-point drive T: at once.
wine_lock() {
	exec 9>"$1/.tdc.lock"
	flock 9
}

# wine_start PREFIX: a persistent wineserver for a batch of runs. It exits
# by itself 60 s after the last Wine process if wine_stop is never reached.
wine_start() {
	(
		_wine_env "$1"
		wineserver -p60
	)
}

# wine_stop PREFIX: stops our prefix's wineserver (and its processes) only.
wine_stop() {
	(
		_wine_env "$1"
		wineserver -k 2>/dev/null
		wineserver -w 2>/dev/null
	)
	return 0
}

# wine_run PREFIX OUT ERR PROGRAM ARGS...: runs a Windows program. The caller
# sets WINEDEBUG / WINEDLLOVERRIDES / WINEPATH in the environment as needed
# (defaults: WINEDEBUG=warn+module, the boot overrides). Returns the
# program's exit status.
# A process Wine could not start at all (its shared user data page could not
# be mapped at the fixed address: "failed to map the shared user data",
# seen now and then on a loaded machine) ran none of the program: it is run
# again, at most twice, so that a start-up failure of Wine is not read as a
# scenario that wrote no output.
wine_run() {
	local prefix=$1 out=$2 err=$3 try rc
	shift 3
	for try in 1 2 3; do
		(
			_wine_env "$prefix"
			export WINEDEBUG=${WINEDEBUG-warn+module}
			export WINEDLLOVERRIDES=${WINEDLLOVERRIDES-$WINE_BOOT_OVERRIDES}
			exec wine "$@" >"$out" 2>"$err" </dev/null
		)
		rc=$?
		grep -q 'failed to map the shared user data' "$err" 2>/dev/null || break
		[ "$try" = 3 ] || sleep 1
	done
	return "$rc"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -u
	case ${1:-} in
	prefix) wine_prefix_ensure ;;
	oracle) oracle_build ;;
	run)
		shift
		[ $# -ge 3 ] || { echo "usage: wine.sh run OUT ERR PROGRAM ARGS..." >&2; exit 2; }
		p=$(wine_prefix_ensure) || exit 1
		wine_start "$p"
		wine_run "$p" "$@"
		rc=$?
		wine_stop "$p"
		exit $rc
		;;
	*)
		echo "usage: wine.sh prefix | oracle | run OUT ERR PROGRAM ARGS..." >&2
		exit 2
		;;
	esac
fi
