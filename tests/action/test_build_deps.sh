#!/usr/bin/env bash
# test_build_deps: what a source build needs is one table,
# action/build-deps.txt, and it is the Makefile's: every pkg-config module
# the Makefile asks for (`make print-pkgs`) has a row and every row's module
# is asked for; only an optional module (libhivex) may lack a package; the
# action's MSYS2 step and build.sh --apt install the table's columns, and
# .ci/deps installs the Debian one. Then the build without libhivex: a
# pkg-config that does not know hivex gives a program built without
# TDC_HIVEX, whose hive reader says that builds with libhivex read hives.
set -u
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
TEST_NAME=build-deps
table=action/build-deps.txt

rows() { awk '!/^#/ && NF' "$table"; }
pkgs=$(make -s --no-print-directory print-pkgs)
required=${pkgs%%|*}
optional=${pkgs#*|}
modules=$(rows | awk '$1 !~ /^tool:/ { print $1 }' | sort | tr '\n' ' ')
# shellcheck disable=SC2086 # lists of names
check_eq "the table's modules are the Makefile's (make print-pkgs)" \
	"$(printf '%s\n' $required $optional | sort | tr '\n' ' ')" "$modules"
check_eq "every row has a module, a Debian and an MSYS2 column" "" "$(rows | awk 'NF != 3 { print }')"
bad=""
for m in $required; do
	r=$(rows | awk -v m="$m" '$1 == m')
	case "$r" in *" -"* | *"	-"*) bad="$bad $m" ;; esac
done
check_eq "every required module has a Debian and an MSYS2 package" "" "$bad"
check_eq "the tools (compiler, make, pkg-config) have packages" "tool:cc tool:make tool:pkg-config" \
	"$(rows | awk '$1 ~ /^tool:/ && $2 != "-" && $3 != "-" { print $1 }' | sort | tr '\n' ' ' | sed 's/ $//')"

# The action installs exactly these columns.
check_cmd "action.yml's MSYS2 step installs the prep step's msys2-packages, not a list of its own" python3 - <<'PY'
import sys, yaml
a = yaml.safe_load(open("action.yml"))
s = [s for s in a["runs"]["steps"] if str(s.get("uses", "")).startswith("msys2/setup-msys2@")]
sys.exit(not (len(s) == 1 and s[0]["with"]["install"] == "${{ steps.prep.outputs.msys2-packages }}"))
PY
: >"$tmp/out"
(cd "$tmp" && GITHUB_OUTPUT="$tmp/out" RUNNER_OS=Linux RUNNER_TEMP="$tmp" bash "$OLDPWD/action/setup.sh") >/dev/null 2>&1
check_eq "setup.sh's msys2-packages output is the table's MSYS2 column" \
	"$(rows | awk '$3 != "-" { print $3 }' | tr '\n' ' ' | sed 's/ $//')" "$(sed -n 's/^msys2-packages=//p' "$tmp/out")"
if grep -q 'build-deps.txt' action/build.sh && ! grep -q 'libyaml-dev' action/build.sh; then
	ok "build.sh --apt installs the table's Debian column, not a list of its own"
else
	not_ok "build.sh has its own package list"
fi
missing=""
for p in $(rows | awk '$2 != "-" { print $2 }'); do
	grep -qw -- "$p" .ci/deps || missing="$missing $p"
done
check_eq ".ci/deps installs every Debian package of the table" "" "$missing"

# The build without libhivex, chosen by what pkg-config finds.
mkdir -p "$tmp/src" "$tmp/bin"
cp -R checker matrix Makefile "$tmp/src/"
cat >"$tmp/bin/pkg-config" <<'SH'
#!/bin/sh
# pkg-config on a machine without libhivex-dev: hivex is unknown.
for a in "$@"; do [ "$a" = hivex ] && exit 1; done
exec /usr/bin/pkg-config "$@"
SH
chmod +x "$tmp/bin/pkg-config"
if nice make -s -C "$tmp/src" -j2 PKG_CONFIG="$tmp/bin/pkg-config" torch-dll-check >"$tmp/make.log" 2>&1; then
	ok "without hivex known to pkg-config, the build succeeds"
	check_eq "...and links no libhivex" "" "$(objdump -p "$tmp/src/torch-dll-check" | awk '/NEEDED/ && /hivex/')"
	python3 tests/inventory/empty_hive.py "$tmp/SOFTWARE" SOFTWARE
	"$tmp/src/torch-dll-check" inventory --registry="$tmp/SOFTWARE" >"$tmp/hive.out" 2>"$tmp/hive.err"
	check_eq "a hive given to it: exit 2" 2 "$?"
	check_eq "...with the reason and that builds with libhivex read hives" \
		"torch-dll-check: inventory: $tmp/SOFTWARE: a regf hive: this build of torch-dll-check was made without libhivex and reads no hives; builds that have it read them (on Linux: install libhivex-dev and build from source, or the action's \`version: source\`); or give a \`reg export\` of the keys instead" \
		"$(head -1 "$tmp/hive.err")"
else
	not_ok "the build without hivex failed"
	tail -20 "$tmp/make.log" | sed 's/^/#   /'
fi
tap_done
