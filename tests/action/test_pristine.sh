#!/usr/bin/env bash
# test_pristine: the action's source build from nothing. A pristine Debian 12
# root made with mmdebstrap (only ca-certificates and git added, as a new
# user's machine; cached as a tarball in $TDC_CACHE keyed by its package
# list) is the runner: tests/action/sim_runner.py runs action.yml's steps
# inside it (SIM_CHROOT) exactly as they are written — action/setup.sh finds
# nothing pinned or cached and asks for the source build, action/build.sh
# --apt installs action/build-deps.txt's Debian column after apt-get update
# and builds both programs — and the built program checks the demo runner
# (`make demo`'s tree): torch 2.4.0's fbgemm.dll fails on the missing
# libomp140.x86_64.dll. The .debs apt fetched are kept in the cache for the
# next run (the package lists are not: every run starts as a fresh machine).
set -u
TEST_NAME=pristine
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"

if ! command -v mmdebstrap >/dev/null; then
	skip "pristine Debian root" "mmdebstrap is not installed (.ci/deps installs it)"
	tap_done
fi
if [ "$(id -u)" -ne 0 ]; then
	skip "pristine Debian root" "chroot needs root"
	tap_done
fi

SUITE=bookworm
INCLUDE=ca-certificates,git
key=$(printf '%s variant=apt include=%s %s\n' "$SUITE" "$INCLUDE" "$(mmdebstrap --version)" | sha256sum | cut -c1-16)
cache=$TDC_CACHE/pristine-root
tarball=$cache/$SUITE-$key.tar
mkdir -p "$cache/debs"
start=$SECONDS
if [ ! -f "$tarball" ] || [ ! -s "$tarball" ]; then
	if mmdebstrap --quiet --format=tar --variant=apt --include="$INCLUDE" "$SUITE" "$tarball.tmp.$$" >"$cache/mmdebstrap.log" 2>&1; then
		mv -f "$tarball.tmp.$$" "$tarball"
	else
		rm -f "$tarball.tmp.$$"
		not_ok "mmdebstrap could not make a $SUITE root"
		tail -20 "$cache/mmdebstrap.log" | sed 's/^/#   /'
		tap_done
	fi
	echo "# made the pristine root in $((SECONDS - start)) s (cold)"
fi

# nothing is mounted under $root: every step ran in its own mount namespace
root=$tmp/root
mkdir -p "$root"
tar -xf "$tarball" -C "$root"
mkdir -p "$root/proc" # mmdebstrap leaves /proc out of the tarball
cp /etc/resolv.conf "$root/etc/resolv.conf"
# The debs of earlier runs (apt verifies each against the fresh package lists).
cp "$cache/debs/"*.deb "$root/var/cache/apt/archives/" 2>/dev/null
if [ -x "$root/usr/bin/gcc" ] || [ -x "$root/usr/bin/make" ] || [ -e "$root/usr/include/hivex.h" ]; then
	not_ok "the root is not pristine (a compiler or make is there already)"
	tap_done
fi
ok "a pristine $SUITE root: no compiler, no make, no library headers ($((SECONDS - start)) s so far)"

# The action as `uses:` finds it, a workspace, the runner's folders; the demo tree.
work=$root/home/runner/work
act=$work/_actions/torch-dll-check/torch-dll-check/v1
mkdir -p "$act" "$work/ws" "$work/temp" "$work/toolcache" "$work/log"
cp -R action.yml action checker matrix Makefile "$act/"
# (not followed: demo.sh ends in its own main, which exits)
# shellcheck source=/dev/null
source tests/lib/demo.sh
if ! demo=$(demo_tree 2>"$tmp/demo.err") || [ ! -d "$demo/root" ]; then
	not_ok "cannot build the demo runner tree"
	sed 's/^/#   /' "$tmp/demo.err" | tail -20
	tap_done
fi
mkdir -p "$work/demo"
cp -R "$demo/root" "$work/demo/root"

t0=$SECONDS
env -u NO_COLOR SIM_CHROOT="$root" GITHUB_ACTIONS=true RUNNER_OS=Linux RUNNER_ARCH=X64 \
	RUNNER_TOOL_CACHE="$work/toolcache" RUNNER_TEMP="$work/temp" GITHUB_WORKSPACE="$work/ws" \
	GITHUB_STEP_SUMMARY="$work/summary.md" SIM_ACTIONS_CACHE="$tmp/actions-cache" \
	python3 tests/action/sim_runner.py "$act" "$work/log" scan="$work/demo/root" \
	torch-path='C:\Python311\Lib\site-packages\torch' version=source >"$tmp/result.json" 2>"$tmp/sim.err"
took=$((SECONDS - t0))
res() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($1)" "$tmp/result.json" 2>/dev/null; }
step() { cat "$work/log/$1.out" "$work/log/$1.err" 2>/dev/null; }
n_apt=$(res "[s['n'] for s in r['steps'] if s['name'] == 'Build torch-dll-check (apt)'][0]")
n_check=$(res "[s['n'] for s in r['steps'] if s['id'] == 'check'][0]")
echo "# the action in the pristine root: $took s (apt-get update + install + build + check)"

check_eq "setup asked for the apt source build" apt "$(sed -n 's/^build=//p' "$work/log/2.github_output" 2>/dev/null)"
if [ -n "$n_apt" ] && [ "$(res "r['steps'][$n_apt]['rc'] == 0 and not r['steps'][$n_apt]['skipped']")" = True ]; then
	ok "build.sh --apt built both programs from nothing"
else
	not_ok "the source build failed in the pristine root"
	{ step "${n_apt:-5}"; cat "$tmp/sim.err"; } | tail -30 | sed 's/^/#   /'
fi
if grep -q '^build: apt-get install .*libhivex-dev' "$work/log/${n_apt:-5}.out" 2>/dev/null; then
	ok "build.sh installed action/build-deps.txt's Debian column (libhivex-dev among it)"
else
	not_ok "build.sh did not say what it installed"
fi
exe=$(res "r['outputs']['path']")
if [ -n "$exe" ] && [ -x "$root$exe" ] && [ -x "$(dirname "$root$exe")/torch-dll-check-git" ]; then
	ok "output path names the built program, torch-dll-check-git beside it"
else
	not_ok "no built program at output path '$exe'"
fi
check_eq "output cache-hit false (nothing cached on a fresh machine)" false "$(res "r['outputs']['cache-hit']")"
check_eq "the check of the demo runner exits 1 (torch 2.4.0 fails)" 1 "$(res "r['rc']")"
check_eq "status output fail, one failure" "fail 1" "$(res "r['outputs']['status'] + ' ' + r['outputs']['failures']")"
if step "${n_check:-6}" | grep -q 'libomp140.x86_64.dll'; then
	ok "the annotation names the missing libomp140.x86_64.dll"
else
	not_ok "the check did not name libomp140.x86_64.dll"
	step "${n_check:-6}" | tail -20 | sed 's/^/#   /'
fi
# The program built with libhivex reads hives (hive.c was compiled with TDC_HIVEX).
if [ -x "$root$exe" ] && python3 tests/inventory/empty_hive.py "$work/SOFTWARE" SOFTWARE &&
	unshare --mount --pid --fork --mount-proc="$root/proc" chroot "$root" "$exe" inventory --registry=/home/runner/work/SOFTWARE \
		>"$tmp/hive.out" 2>&1; then
	ok "the source build reads a regf hive (libhivex found by pkg-config)"
else
	not_ok "the source build does not read a regf hive"
	sed 's/^/#   /' "$tmp/hive.out" | tail -5
fi

cp -n "$root/var/cache/apt/archives/"*.deb "$cache/debs/" 2>/dev/null
echo "# total $((SECONDS - start)) s"
tap_done
