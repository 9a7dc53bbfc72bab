#!/usr/bin/env bash
# action/build.sh [--apt]: builds torch-dll-check from this action's source
# into $TDC_EXE (the tool-cache path action/setup.sh chose).
#
# What the build needs is one table, action/build-deps.txt: its Debian
# column is what --apt installs, its MSYS2 column what the action's
# msys2/setup-msys2 step installs. libhivex is optional (MSYS2 has none):
# the Makefile uses it when pkg-config finds it.
#
# Windows: runs inside the MSYS2 UCRT64 shell (`shell: msys2 {0}`) after
# msys2/setup-msys2 installed the MSYS2 column.
# The UCRT64 DLLs the program links (libyaml, cjson, ...) are copied next to
# the .exe, so it runs from Git Bash without MSYS2 on PATH.
# Linux (--apt): installs the Debian/Ubuntu column with apt-get (sudo when
# not root), after `apt-get update`: a fresh machine has no package lists.
#
# The source is copied to a temporary folder first: the action's own folder
# stays as checked out.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "$here/.." && pwd)
exe=${TDC_EXE:?TDC_EXE: where to put the binary (set by action/setup.sh)}
case "$exe" in [A-Za-z]:[\\/]*) command -v cygpath >/dev/null && exe=$(cygpath -u "$exe") ;; esac

if [ "${1:-}" = "--apt" ]; then
	SUDO=
	[ "$(id -u)" -eq 0 ] || SUDO=sudo
	$SUDO apt-get update -qq
	mapfile -t pkgs < <(awk '!/^#/ && NF == 3 && $2 != "-" { print $2 }' "$here/build-deps.txt")
	echo "build: apt-get install ${pkgs[*]}"
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -R "$src/checker" "$src/matrix" "$src/Makefile" "$work/"
# Both programs: torch-dll-check-git (libgit2) serves pins, audit, history and fleet.
make -C "$work" -j2 torch-dll-check torch-dll-check-git
mkdir -p "$(dirname "$exe")"
if [ -f "$work/torch-dll-check.exe" ]; then
	cp "$work/torch-dll-check.exe" "$exe"
	cp "$work/torch-dll-check-git.exe" "$(dirname "$exe")/"
	# The UCRT64 DLLs they need, next to them (the loader looks in the .exe's folder first).
	ldd "$work/torch-dll-check.exe" "$work/torch-dll-check-git.exe" | awk '$3 ~ /\/ucrt64\// { print $3 }' |
		sort -u | while read -r dll; do
			cp "$dll" "$(dirname "$exe")/"
		done
else
	cp "$work/torch-dll-check" "$exe"
	cp "$work/torch-dll-check-git" "$(dirname "$exe")/"
fi
"$exe" --version
