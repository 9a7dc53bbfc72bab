#!/usr/bin/env bash
# demo.sh (`make demo`): what torch-dll-check finds on a Windows runner, in one command.
#
# Generates (once; cached in $TDC_CACHE, keyed by a hash of its inputs) a
# Windows machine as a folder standing for C:\ :
#   Windows\System32   real PE files nobody here wrote (Wine's PE builds of
#                      ntdll, kernel32, kernelbase, ucrtbase, msvcrt and its
#                      apisetschema.dll), plus MSVC-like VC++ runtime DLLs
#                      with version resources 14.40.33810.0 (vcruntime140,
#                      vcruntime140_1, msvcp140, vcomp140 and the rest of
#                      DEMO_REDIST_DLLS), as the redistributable puts them
#   runner.reg         a `reg export` file (UTF-16LE with BOM, CRLF, as reg.exe
#                      writes it) recording that redistributable, x64 and x86
#   C:\Python311       python.org-style Python 3.11 with torch 2.4.0+cpu whose
#                      fbgemm.dll imports libomp140.x86_64.dll, which nothing
#                      installs: the real pytorch#131662 failure
#   C:\hostedtoolcache\windows\Python\3.11.9\x64
#                      a second Python with a healthy torch 2.5.1+cpu
# C:\Python311 is tests/lib/trees/torch240.sh's tree, the one the action's
# tests check. The torch stand-ins are tests/lib/trees/torch_cases.sh's
# (small DLLs named and wired like torch's: fbgemm -> asmjit,
# libomp140/libiomp5md; torch_cpu -> c10, fbgemm, ...; _C.pyd ->
# torch_python -> python311.dll).
#
# Then runs `torch-dll-check check --root TREE --scan "C:\\" --registry
# runner.reg` and prints its report. Exit status: 0 when the check ran and
# found what it should (the check itself exits 1: torch 2.4.0 fails there),
# non-zero when something broke. Extra arguments go to `check` (e.g. --json).
set -u
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN=${TDC_BIN:-$REPO/torch-dll-check}
# shellcheck source=tests/lib/fixtures.sh
source "$REPO/tests/lib/fixtures.sh"
# shellcheck source=tests/lib/trees/loader.sh
source "$REPO/tests/lib/trees/loader.sh"
# shellcheck source=tests/lib/trees/torch240.sh
source "$REPO/tests/lib/trees/torch240.sh" # torch240_build, dist_info and torch_cases.sh's torch_tree

# reg_export FILE < text: writes text as reg.exe does (UTF-16LE, BOM, CRLF).
reg_export() {
	{
		printf '\xff\xfe'
		sed 's/$/\r/' | iconv -f UTF-8 -t UTF-16LE
	} >"$1"
}

# The DLLs the VC++ 2015-2022 x64 redistributable 14.40 installs in System32
# (vcamp140 and vccorlib140 aside: nothing torch loads imports them).
DEMO_REDIST_DLLS="vcruntime140.dll vcruntime140_1.dll vcruntime140_threads.dll msvcp140.dll msvcp140_1.dll
msvcp140_2.dll msvcp140_atomic_wait.dll msvcp140_codecvt_ids.dll concrt140.dll vcomp140.dll"

# runtime DIR VERSION NAME: an MSVC-like VC++ runtime DLL with a version resource.
runtime() {
	local dir=$1 ver=$2 name=$3
	local -a vs=(--version "$ver" --version-string "CompanyName=Microsoft Corporation"
		--version-string "ProductName=Microsoft(R) Visual Studio(R)")
	case $name in
	vcruntime140.dll)
		make_dll "$dir/$name" "${vs[@]}" --export memset --export __C_specific_handler \
			--export __std_type_info_destroy_list --import KERNEL32.dll:GetLastError ;;
	vcruntime140_1.dll)
		make_dll "$dir/$name" "${vs[@]}" --export __CxxFrameHandler4 --import VCRUNTIME140.dll:memset ;;
	msvcp140.dll)
		make_dll "$dir/$name" "${vs[@]}" --export '?_Xlength_error@std@@YAXPEBD@Z' --export _Thrd_yield \
			--export _Mtx_init --import VCRUNTIME140.dll:memset ;;
	# the rest of what the 14.40 redistributable puts in System32, each with
	# an export and an import of the real file's
	vcomp140.dll)
		make_dll "$dir/$name" "${vs[@]}" --export omp_get_max_threads --export _vcomp_fork \
			--import KERNEL32.dll:FormatMessageW ;;
	msvcp140_1.dll)
		make_dll "$dir/$name" "${vs[@]}" --export _Aligned_new_delete_resource --import VCRUNTIME140.dll:memset ;;
	msvcp140_2.dll)
		make_dll "$dir/$name" "${vs[@]}" --export __std_smf_assoc_laguerre --import VCRUNTIME140.dll:memcmp ;;
	msvcp140_atomic_wait.dll)
		make_dll "$dir/$name" "${vs[@]}" --export __std_atomic_compare_exchange_128 \
			--import VCRUNTIME140.dll:memset ;;
	msvcp140_codecvt_ids.dll)
		make_dll "$dir/$name" "${vs[@]}" --export "?id@?\$codecvt@_SDU_Mbstatet@@@std@@2V0locale@2@A" \
			--import VCRUNTIME140.dll:memcpy ;;
	concrt140.dll)
		make_dll "$dir/$name" "${vs[@]}" --export '?Alloc@Concurrency@@YAPEAX_K@Z' --import VCRUNTIME140.dll:memset ;;
	vcruntime140_threads.dll)
		make_dll "$dir/$name" "${vs[@]}" --export _cnd_timedwait64 --import KERNEL32.dll:GetLastError ;;
	*)
		echo "runtime: no recipe for $name" >&2
		return 1 ;;
	esac
}

demo_build() {
	local d=$1 r=$1/root sys tc
	# torch 2.4.0+cpu at C:\Python311: fbgemm.dll -> libomp140.x86_64.dll (absent)
	torch240_build "$r" || return 1
	# torch 2.5.1+cpu in the runner's tool cache: healthy
	torch_tree "$d/t2" healthy || return 1
	tc=$r/hostedtoolcache/windows/Python/3.11.9
	mkdir -p "$tc"
	mv "$d/t2/Python311" "$tc/x64"
	rm -rf "$d/t2"
	printf "__version__ = '2.5.1+cpu'\ncuda = None\n" >"$tc/x64/Lib/site-packages/torch/version.py"
	dist_info "$tc/x64/Lib/site-packages" 2.5.1+cpu
	# the VC++ 2015-2022 redistributable 14.40 in System32 (x64) and SysWOW64 (x86)
	sys=$r/Windows/System32
	local dll
	for dll in $DEMO_REDIST_DLLS; do
		runtime "$sys" 14.40.33810.0 "$dll" || return 1
	done
	# python.org ships vcruntime140.dll next to python.exe (it wins over System32's)
	runtime "$r/Python311" 14.40.33810.0 vcruntime140.dll &&
		runtime "$tc/x64" 14.40.33810.0 vcruntime140.dll || return 1
	local key='HKEY_LOCAL_MACHINE\SOFTWARE\WOW6432Node\Microsoft\VisualStudio\14.0\VC\Runtimes'
	reg_export "$d/runner.reg" <<EOF
Windows Registry Editor Version 5.00

[$key]

[$key\\x64]
"Installed"=dword:00000001
"Version"="v14.40.33810.00"
"Major"=dword:0000000e
"Minor"=dword:00000028
"Bld"=dword:00008412
"Rbld"=dword:00000000

[$key\\x86]
"Installed"=dword:00000001
"Version"="v14.40.33810.00"
"Major"=dword:0000000e
"Minor"=dword:00000028
"Bld"=dword:00008412
"Rbld"=dword:00000000

EOF
}

# demo_tree: build (or reuse) the runner tree, print its directory (root/ and runner.reg).
demo_tree() {
	local FX_KEY
	FX_KEY=$(cat "$REPO/tests/lib/demo.sh" "$REPO/tests/lib/trees/loader.sh" "$REPO/tests/lib/trees/torch_cases.sh" \
		"$REPO/tests/lib/trees/torch240.sh" "$REPO/tests/lib/record.py" |
		sha256sum | cut -c1-12)
	export FX_KEY
	fx_build demo demo_build
}

# Sourced (tests/check/test_policy.sh): only the functions.
[ "${BASH_SOURCE[0]}" = "$0" ] || return 0

[ -x "$BIN" ] || { echo "demo: $BIN is not built (run make)" >&2; exit 2; }
start=$SECONDS
dir=$(demo_tree) || { echo "demo: building the runner tree failed" >&2; exit 2; }

cat <<EOF
A Windows runner, generated in $dir/root (it stands for C:\\):
  C:\\Python311                                   torch 2.4.0+cpu (its fbgemm.dll imports libomp140.x86_64.dll)
  C:\\hostedtoolcache\\windows\\Python\\3.11.9\\x64   torch 2.5.1+cpu
  VC++ 2015-2022 redistributable 14.40 (x64, x86) in $dir/runner.reg

\$ torch-dll-check check --root $dir/root --scan 'C:\\' --registry $dir/runner.reg

EOF
out=$("$BIN" check --root "$dir/root" --scan "C:\\" --registry "$dir/runner.reg" "$@")
rc=$?
printf '%s\n' "$out"
echo
echo "(exit status $rc; $((SECONDS - start)) s)"

# What the demo must show; anything else means the demo (or the checker) broke.
fail=0
# the report wraps its lines to the terminal's width: compare with runs of
# spaces and line breaks made one space, in the report and in the expectation
flat=$(tr -s ' \n' '  ' <<<"$out")
expect() {
	if ! grep -qF -- "$(tr -s ' \n' '  ' <<<"$1")" <<<"$flat"; then
		echo "demo: expected the report to contain: $1" >&2
		fail=1
	fi
}
if [ "$rc" -ne 1 ]; then
	echo "demo: expected exit status 1 (torch 2.4.0 fails), got $rc" >&2
	exit 1
fi
case " $* " in
*" --json"* | *" --format"*) ;;
*)
	expect "FAIL 1 of 2 torch installs will not load: fbgemm.dll cannot load: libomp140.x86_64.dll is missing"
	expect "the VC++ redistributable does not install it"
	expect "PASS torch 2.5.1+cpu"
	;;
esac
exit $fail
