#!/usr/bin/env bash
# shellcheck disable=SC2016,SC2054  # assembly text single-quoted; linker flags hold commas
# fixtures.sh: generates real PE files (DLLs, EXEs) with exactly the imports,
# exports, delay imports, version resources and load-config flags a test asks
# for, built by the mingw-w64 and clang/lld cross tools, and cached.
#
# Why generated and not committed: a hook refuses committed binaries, and a
# fixture that the test builds itself says in its build line what it holds.
# Why cached: linking is quick, but a suite with hundreds of fixtures is not;
# results live in $TDC_CACHE/fixtures/<hash>/, where <hash> covers this script
# and the versions of every tool it runs, so a changed generator or compiler
# gets a fresh directory and CI can restore the cache between runs.
#
# Use from a test (source it; nothing runs on source):
#
#   source "$TDC_REPO/tests/lib/fixtures.sh"
#   make_dll OUT.dll [options]     build one DLL (options below); on failure
#                                  returns non-zero after the tool's error
#   make_exe OUT.exe [options]     the same, an .exe (console subsystem)
#   fx_build NAME FUNC [ARGS...]   run `FUNC DIR ARGS...` once into a cached
#                                  directory and print that directory. The key
#                                  covers this script, the tool versions,
#                                  `declare -f FUNC`, ARGS and $FX_KEY (set it
#                                  to a hash of any helper FUNC calls). Built in
#                                  a temporary directory and renamed into place,
#                                  so concurrent or interrupted runs never see
#                                  half a tree.
#   fx_dir                         print $TDC_CACHE/fixtures/<hash> (created)
#   fx_standard                    build once and print the standard set (below)
#
# Or run it:  bash tests/lib/fixtures.sh standard        # prints the directory
#             bash tests/lib/fixtures.sh make-dll OUT.dll [options]
#             bash tests/lib/fixtures.sh dir
#             bash tests/lib/fixtures.sh prune   # drop other versions' builds
#
# make_dll / make_exe options (all repeatable ones accumulate):
#   --machine x64|x86|arm64      default x64 (x86 = i686, PE32; arm64 through
#                                llvm: torch ships Windows arm64 wheels)
#   --toolchain gnu|llvm         gnu = mingw gcc + GNU ld (default);
#                                llvm = clang + lld-link, MSVC-style output.
#                                --delay-import* and --dependent-load-flags
#                                need llvm (GNU ld 2.40 leaves the delay-import
#                                directory empty and ignores _load_config_used):
#                                llvm is chosen for you then.
#   --name NAME                  the DLL's own name in its export directory
#                                (default: basename of OUT)
#   --def FILE                   exports from a .def file (its EXPORTS lines;
#                                a LIBRARY line is ignored)
#   --export 'LINE'              one .def EXPORTS line, e.g.
#                                  'foo'                     named export
#                                  'bar @5'                  named, ordinal 5
#                                  'hidden @7 NONAME'        ordinal-only
#                                  'fwd = NTDLL.RtlFoo'      forwarder
#                                  'fwd2 = "other.#5"'       forwarder by ordinal
#                                  'alias = foo'             second name, same code
#                                Every exported symbol that is not a forwarder
#                                is defined for you (a `ret` stub).
#   --import DLL:sym1,sym2       import by name (DLL spelled as it should
#                                appear in the file, letter case kept)
#   --import-ordinal DLL:5,6     import by ordinal
#   --delay-import DLL:sym,...   delay-load import by name (llvm)
#   --delay-import-ordinal DLL:N,...
#   --msvc                       add the imports of a small MSVC /MD DLL:
#                                KERNEL32.dll, VCRUNTIME140.dll,
#                                api-ms-win-crt-runtime-l1-1-0.dll,
#                                api-ms-win-crt-heap-l1-1-0.dll (and nothing
#                                else: no mingw runtime is ever linked)
#   --version A.B.C.D            VS_VERSIONINFO with FileVersion and
#                                ProductVersion A.B.C.D (fixed and strings)
#   --version-string KEY=VALUE   extra StringFileInfo value (CompanyName,
#                                ProductName, OriginalFilename, ...); a
#                                FileVersion or OriginalFilename given here
#                                replaces the default one
#   --dependent-load-flags N     load-config DependentLoadFlags = N (e.g.
#                                0x800). lld 14 has no /dependentloadflag (it
#                                came in LLVM 18), so we emit the
#                                `_load_config_used` structure ourselves and
#                                lld points the load-config directory at it,
#                                as it does for MSVC's CRT. (llvm toolchain)
#   --overlay SIZE               append SIZE bytes after the image (sparse,
#                                `truncate -s +SIZE`; K/M/G suffixes)
#   --size SIZE                  grow the file to SIZE bytes the same way
#                                (for trees "sized like" a real install)
#
# A symbol name may be imported from one DLL only per fixture (the import
# library symbols `__imp_NAME` would clash). Entry point: a stub returning
# TRUE (an .exe thus exits with status 1). Checked under Wine 8: an .exe
# importing --msvc, delay-import and DependentLoadFlags fixtures loads and
# exits 1; one importing a missing DLL exits 53 instead.
#
# The standard set (fx_standard) — one file per feature, named for it:
#   x64_basic.dll x86_basic.dll        named exports + KERNEL32 imports
#   x64_llvm.dll x86_llvm.dll          the same linked by lld-link
#   x64_ordinals.dll x86_ordinals.dll  ordinal-only and explicit-ordinal exports,
#                                      imports by ordinal (libiomp5md.dll)
#   x64_forwarders.dll x86_forwarders.dll  forwarders by name and by ordinal
#   x64_delay.dll x86_delay.dll        delay imports (by name and ordinal)
#   x64_version.dll x86_version.dll    VERSIONINFO 14.40.33810.0, Microsoft strings
#   x64_msvc.dll x86_msvc.dll          MSVC-like imports only (lld-link)
#   x64_msvc_gnu.dll                   the same through GNU ld
#   x64_dlf.dll x86_dlf.dll            DependentLoadFlags 0x800 (lld)
#   arm64_msvc.dll                     arm64 (lld): MSVC-like imports, delay import,
#                                      NONAME export, forwarder, version, DependentLoadFlags
#   x64_many_exports.dll               5000 named exports
#   x64_mixed_case.dll                 import names in odd letter case
#   x64_app.exe                        an .exe importing x64_basic.dll
#   small_10k.dll                      a DLL grown to exactly 10 KiB
#   huge_1g.dll                        a small DLL + 1 GiB sparse overlay
#   MANIFEST                           one line per file: name, what it holds

# Sourced or run: only define functions when sourced.

: "${TDC_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/torch-dll-check}"
export TDC_CACHE

FX_SCRIPT=$(readlink -f "${BASH_SOURCE[0]}")

fx_die() {
	echo "fixtures: $*" >&2
	return 1
}

# fx_hash: the generator version: this script + every tool's version line.
fx_hash() {
	if [ -z "${FX_HASH:-}" ]; then
		FX_HASH=$({
			cat "$FX_SCRIPT"
			local t
			for t in x86_64-w64-mingw32-gcc i686-w64-mingw32-gcc x86_64-w64-mingw32-ld \
				 x86_64-w64-mingw32-dlltool x86_64-w64-mingw32-windres clang lld-link \
				 llvm-dlltool; do
				echo "$t: $("$t" --version 2>&1 | head -1)"
			done
		} | sha256sum | cut -c1-16)
		# Not exported: a child may source another version of this script.
	fi
	echo "$FX_HASH"
}

fx_dir() {
	local d
	d="$TDC_CACHE/fixtures/$(fx_hash)"
	mkdir -p "$d" && echo "$d"
}

# fx_build NAME FUNC [ARGS...]: see the header.
fx_build() {
	local name=$1 fn=$2
	shift 2
	local key base dir tmp
	key=$({ fx_hash; declare -f "$fn"; printf '%s\n' "$@"; echo "${FX_KEY:-}"; } |
	      sha256sum | cut -c1-12)
	base=$(fx_dir) || return 1
	dir="$base/$name-$key"
	if [ -f "$dir/.done" ]; then
		echo "$dir"
		return 0
	fi
	tmp=$(mktemp -d "$base/.tmp.$name.XXXXXX") || return 1
	if ! "$fn" "$tmp" "$@" >"$tmp/.build.log" 2>&1; then
		echo "fixtures: building $name failed:" >&2
		tail -30 "$tmp/.build.log" >&2
		rm -rf "$tmp"
		return 1
	fi
	touch "$tmp/.done"
	# Someone else may have finished first: theirs is as good as ours.
	if ! mv -T "$tmp" "$dir" 2>/dev/null; then
		rm -rf "$tmp"
		[ -f "$dir/.done" ] || fx_die "could not place $dir" || return 1
	fi
	echo "$dir"
}

# fx_size_bytes 1G -> 1073741824 (K, M, G; plain bytes otherwise)
fx_size_bytes() {
	local s=$1 n
	case $s in
	*K | *k) n=$((${s%?} * 1024)) ;;
	*M | *m) n=$((${s%?} * 1024 * 1024)) ;;
	*G | *g) n=$((${s%?} * 1024 * 1024 * 1024)) ;;
	*) n=$s ;;
	esac
	echo "$n"
}

# fx_add_imports KIND DLL:a,b — records imports in the FX_IMP_* tables.
fx_add_imports() {
	local kind=$1 spec=$2 dll syms s key i found=
	dll=${spec%%:*}
	syms=${spec#*:}
	[ "$dll" != "$spec" ] && [ -n "$dll" ] && [ -n "$syms" ] ||
		fx_die "bad import spec '$spec' (want DLL:sym1,sym2)" || return 1
	# One import library per (delay?, DLL name as written).
	key="$([ "${kind#delay}" != "$kind" ] && echo D || echo S)|$dll"
	for i in "${!FX_IMP_KEYS[@]}"; do
		[ "${FX_IMP_KEYS[$i]}" = "$key" ] && found=$i
	done
	if [ -z "$found" ]; then
		found=${#FX_IMP_KEYS[@]}
		FX_IMP_KEYS+=("$key")
		FX_IMP_SYMS+=("")
	fi
	IFS=, read -r -a s <<<"$syms"
	for i in "${s[@]}"; do
		[ -n "$i" ] || continue
		# The same symbol twice (say --msvc and --import both name memset) is
		# one import.
		case $'\n'"${FX_IMP_SYMS[found]}" in
		*$'\n'"$i"$'\n'* | *$'\n'"tdc_ord_${dll//[^A-Za-z0-9]/_}_$i @$i NONAME"$'\n'*) continue ;;
		esac
		case $kind in
		*ordinal)
			[[ $i =~ ^[0-9]+$ ]] || fx_die "bad ordinal '$i' in '$spec'" || return 1
			FX_IMP_SYMS[found]+="tdc_ord_${dll//[^A-Za-z0-9]/_}_$i @$i NONAME"$'\n'
			;;
		*) FX_IMP_SYMS[found]+="$i"$'\n' ;;
		esac
	done
}

fx_msvc_imports() {
	local k32="IsDebuggerPresent,IsProcessorFeaturePresent,QueryPerformanceCounter,GetCurrentProcessId,GetCurrentThreadId,GetSystemTimeAsFileTime,InitializeSListHead,DisableThreadLibraryCalls,UnhandledExceptionFilter,SetUnhandledExceptionFilter,GetCurrentProcess,TerminateProcess"
	local vcr="memset,__std_type_info_destroy_list"
	if [ "$FX_MACHINE" != x86 ]; then
		k32+=",RtlCaptureContext,RtlLookupFunctionEntry,RtlVirtualUnwind"
		vcr+=",__C_specific_handler"
	else
		vcr+=",_except_handler4_common"
	fi
	fx_add_imports import "KERNEL32.dll:$k32" &&
	fx_add_imports import "VCRUNTIME140.dll:$vcr" &&
	fx_add_imports import "api-ms-win-crt-runtime-l1-1-0.dll:_initterm,_initterm_e,_seh_filter_dll,_configure_narrow_argv,_initialize_narrow_environment,_initialize_onexit_table,_execute_onexit_table,_cexit" &&
	fx_add_imports import "api-ms-win-crt-heap-l1-1-0.dll:free,malloc"
}

# fx_rc_escape: a string literal for an .rc file.
fx_rc_escape() {
	local str=${1//\"/\"\"}
	printf '"%s"' "$str"
}

make_dll() { fx_make dll "$@"; }
make_exe() { fx_make exe "$@"; }

# fx_make KIND OUT [options]: builds in a scratch directory, always removed.
fx_make() {
	local w rc
	w=$(mktemp -d "${TMPDIR:-/tmp}/tdc-fx.XXXXXX") || return 1
	fx_make_in "$w" "$@"
	rc=$?
	rm -rf "$w"
	return $rc
}

fx_make_in() {
	local w=$1 kind=$2 out=$3
	shift 3
	[ -n "$out" ] || fx_die "make_$kind: no output file" || return 1
	local FX_MACHINE=x64 toolchain='' name='' version='' dlf='' overlay='' size='' msvc=''
	local -a FX_IMP_KEYS=() FX_IMP_SYMS=() exports=() vstrings=()
	local need_llvm=
	while [ $# -gt 0 ]; do
		case $1 in
		--msvc) ;;
		--*)
			[ $# -ge 2 ] || { fx_die "make_$kind: $1 needs a value"; return 1; } ;;
		esac
		case $1 in
		--machine) FX_MACHINE=$2; shift ;;
		--toolchain) toolchain=$2; shift ;;
		--name) name=$2; shift ;;
		--def)
			[ -f "$2" ] || fx_die "no such .def: $2" || return 1
			local line in_exports=
			while IFS= read -r line || [ -n "$line" ]; do
				line=${line%%;*}
				[[ $line =~ ^[[:space:]]*$ ]] && continue
				if [[ $line =~ ^[[:space:]]*EXPORTS[[:space:]]*$ ]]; then
					in_exports=1
					continue
				fi
				[[ $line =~ ^[[:space:]]*(LIBRARY|NAME)[[:space:]] ]] && continue
				[ -n "$in_exports" ] && exports+=("$line")
			done <"$2"
			shift
			;;
		--export) exports+=("$2"); shift ;;
		--import) fx_add_imports import "$2" || return 1; shift ;;
		--import-ordinal) fx_add_imports ordinal "$2" || return 1; shift ;;
		--delay-import) fx_add_imports delay "$2" || return 1; need_llvm=1; shift ;;
		--delay-import-ordinal) fx_add_imports delay-ordinal "$2" || return 1; need_llvm=1; shift ;;
		--msvc) msvc=1 ;;
		--version) version=$2; shift ;;
		--version-string) vstrings+=("$2"); shift ;;
		--dependent-load-flags) dlf=$2; need_llvm=1; shift ;;
		--overlay) overlay=$2; shift ;;
		--size) size=$2; shift ;;
		*) fx_die "make_$kind: unknown option '$1'"; return 1 ;;
		esac
		shift
	done
	case $FX_MACHINE in
	x64 | x86) ;;
	arm64) need_llvm=1 ;; # no aarch64 mingw-w64 in Debian 12
	*) fx_die "--machine must be x64, x86 or arm64, not '$FX_MACHINE'"; return 1 ;;
	esac
	if [ -z "$toolchain" ]; then
		toolchain=gnu
		[ -n "$need_llvm" ] && toolchain=llvm
	fi
	[ "$toolchain" = gnu ] && [ -n "$need_llvm" ] &&
		{ fx_die "delay imports, DependentLoadFlags and arm64 need --toolchain llvm (GNU ld 2.40 fills neither directory; Debian has no aarch64 mingw)"; return 1; }
	[ -n "$msvc" ] && { fx_msvc_imports || return 1; }
	[ -n "$name" ] || name=$(basename "$out")

	local p64='' ptr=.long arm=''
	[ "$FX_MACHINE" = x64 ] && { p64=1; ptr=.quad; }
	[ "$FX_MACHINE" = arm64 ] && { p64=1; ptr=.xword; arm=1; }

	# The object: entry stub, export stubs, references that pull in each
	# import, the delay-load helper stub, the load-config structure.
	{
		echo '	.text'
		echo '	.globl "tdc_entry"'
		echo '	.globl "_tdc_entry@12"'
		echo '	.globl "_tdc_entry"'
		echo '"tdc_entry":'
		echo '"_tdc_entry@12":'
		echo '"_tdc_entry":'
		if [ -n "$arm" ]; then
			echo '	mov w0, #1'
			echo '	ret'
		else
			echo '	movl $1, %eax'
			if [ -n "$p64" ] || [ "$kind" = exe ]; then echo '	ret'; else echo '	ret $12'; fi
		fi
		if [ -n "$need_llvm" ]; then
			if [ -n "$arm" ]; then
				echo '	.globl "__delayLoadHelper2"'
				echo '"__delayLoadHelper2":'
				echo '	mov x0, #0'
				echo '	ret'
			elif [ -n "$p64" ]; then
				echo '	.globl "__delayLoadHelper2"'
				echo '"__delayLoadHelper2":'
				echo '	xorl %eax, %eax'
				echo '	ret'
			else
				echo '	.globl "___delayLoadHelper2@8"'
				echo '"___delayLoadHelper2@8":'
				echo '	xorl %eax, %eax'
				echo '	ret $8'
			fi
		fi
		local e tok target us=
		local -A defined=()
		[ -n "$p64" ] || us=_
		for e in "${exports[@]}"; do
			# The symbol to define: the name, or the alias target; none for a forwarder.
			read -r tok _ <<<"$e"
			tok=${tok//\"/}
			if [[ $e == *=* ]]; then
				target=${e#*=}
				read -r target _ <<<"$target"
				target=${target//\"/}
				[[ $target == *.* ]] && continue
				tok=$target
			fi
			[ -n "${defined[$tok]:-}" ] && continue
			defined[$tok]=1
			[ "${tok:0:1}" = "?" ] || tok="$us$tok"
			printf '\t.globl "%s"\n"%s":\n\tret\n' "$tok" "$tok"
		done
		echo '	.data'
		echo '	.p2align 3'
		local i sym
		for i in "${!FX_IMP_KEYS[@]}"; do
			while IFS= read -r sym; do
				[ -n "$sym" ] || continue
				read -r sym _ <<<"$sym"
				[ "${sym:0:1}" = "?" ] || sym="$us$sym"
				printf '\t%s "__imp_%s"\n' "$ptr" "$sym"
			done <<<"${FX_IMP_SYMS[$i]}"
		done
		echo "	$ptr 0"
		if [ -n "$dlf" ]; then
			# IMAGE_LOAD_CONFIG_DIRECTORY{64,32}: DependentLoadFlags is the
			# WORD at 0x4E (PE32+) or 0x36 (PE32); Size covers up to
			# SecurityCookie, left 0 (no /GS cookie to check).
			echo '	.section .rdata,"dr"'
			echo '	.p2align 3'
			if [ -n "$p64" ]; then
				echo '	.globl "_load_config_used"'
				echo '"_load_config_used":'
				echo '	.long 0x60'
				echo '	.fill 0x4a, 1, 0'
				echo "	.short $dlf"
				echo '	.fill 0x10, 1, 0'
				# Zeros after the structure: llvm-readobj reads a full-size
				# load config whatever Size says and fails at a section end.
				echo '	.fill 0x100, 1, 0'
			else
				echo '	.globl "__load_config_used"'
				echo '"__load_config_used":'
				echo '	.long 0x40'
				echo '	.fill 0x32, 1, 0'
				echo "	.short $dlf"
				echo '	.fill 0x8, 1, 0'
				echo '	.fill 0x100, 1, 0'
			fi
		fi
	} >"$w/obj.s"

	# Exports .def for the module itself.
	if [ ${#exports[@]} -gt 0 ]; then
		{
			[ "$kind" = dll ] && echo "LIBRARY \"$name\"" || echo "NAME \"$name\""
			echo "EXPORTS"
			printf '%s\n' "${exports[@]}"
		} >"$w/exports.def"
	fi

	# Version resource.
	if [ -n "$version" ]; then
		[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$ ]] ||
			{ fx_die "--version wants A.B.C.D, not '$version'"; return 1; }
		local kv
		{
			echo "1 VERSIONINFO"
			echo "FILEVERSION ${version//./,}"
			echo "PRODUCTVERSION ${version//./,}"
			echo "FILEFLAGSMASK 0x3f"
			echo "FILEFLAGS 0x0"
			echo "FILEOS 0x40004"
			[ "$kind" = dll ] && echo "FILETYPE 0x2" || echo "FILETYPE 0x1"
			echo "FILESUBTYPE 0x0"
			echo "BEGIN"
			echo "  BLOCK \"StringFileInfo\""
			echo "  BEGIN"
			echo "    BLOCK \"040904B0\""
			echo "    BEGIN"
			# a --version-string of the same key replaces these (a resource whose string and
			# fixed versions disagree, as a tampered or lying file has)
			[[ " ${vstrings[*]} " == *" FileVersion="* ]] || echo "      VALUE \"FileVersion\", \"$version\""
			echo "      VALUE \"ProductVersion\", \"$version\""
			[[ " ${vstrings[*]} " == *" OriginalFilename="* ]] ||
				echo "      VALUE \"OriginalFilename\", $(fx_rc_escape "$name")"
			for kv in "${vstrings[@]}"; do
				echo "      VALUE $(fx_rc_escape "${kv%%=*}"), $(fx_rc_escape "${kv#*=}")"
			done
			echo "    END"
			echo "  END"
			echo "  BLOCK \"VarFileInfo\""
			echo "  BEGIN"
			echo "    VALUE \"Translation\", 0x409, 1200"
			echo "  END"
			echo "END"
		} >"$w/version.rc"
	fi

	local -a objs=() libs=() delay=()
	local imp_dll imp_kind
	if [ "$toolchain" = gnu ]; then
		local pfx=x86_64-w64-mingw32 fmt=pe-x86-64
		[ -n "$p64" ] || { pfx=i686-w64-mingw32; fmt=pe-i386; }
		"$pfx-gcc" -c -o "$w/obj.o" "$w/obj.s" || return 1
		objs+=("$w/obj.o")
		if [ -n "$version" ]; then
			"$pfx-windres" -c 65001 -F "$fmt" -O coff -i "$w/version.rc" -o "$w/version.o" || return 1
			objs+=("$w/version.o")
		fi
		for i in "${!FX_IMP_KEYS[@]}"; do
			imp_dll=${FX_IMP_KEYS[$i]#*|}
			printf 'LIBRARY "%s"\nEXPORTS\n%s' "$imp_dll" "${FX_IMP_SYMS[$i]}" >"$w/imp$i.def"
			"$pfx-dlltool" -d "$w/imp$i.def" -l "$w/imp$i.a" || return 1
			libs+=("$w/imp$i.a")
		done
		local -a ldflags=(-nostdlib -Wl,--exclude-all-symbols -Wl,--no-insert-timestamp)
		if [ "$kind" = dll ]; then
			ldflags+=(-shared)
			[ -n "$p64" ] && ldflags+=(-Wl,-e,tdc_entry) || ldflags+=(-Wl,-e,_tdc_entry@12)
		else
			ldflags+=(-Wl,--subsystem,console)
			[ -n "$p64" ] && ldflags+=(-Wl,-e,tdc_entry) || ldflags+=(-Wl,-e,_tdc_entry)
		fi
		[ -f "$w/exports.def" ] && objs+=("$w/exports.def")
		"$pfx-gcc" "${ldflags[@]}" -o "$w/out.$kind" "${objs[@]}" "${libs[@]}" || return 1
	else
		local target=x86_64-pc-windows-msvc m=i386:x86-64 lm=x64
		[ -n "$p64" ] || { target=i686-pc-windows-msvc; m=i386; lm=x86; }
		[ -n "$arm" ] && { target=aarch64-pc-windows-msvc; m=arm64; lm=arm64; }
		clang --target="$target" -c -o "$w/obj.obj" "$w/obj.s" || return 1
		objs+=("$w/obj.obj")
		if [ -n "$version" ]; then
			x86_64-w64-mingw32-windres -c 65001 -O res -i "$w/version.rc" -o "$w/version.res" || return 1
			objs+=("$w/version.res")
		fi
		for i in "${!FX_IMP_KEYS[@]}"; do
			imp_kind=${FX_IMP_KEYS[$i]%%|*}
			imp_dll=${FX_IMP_KEYS[$i]#*|}
			printf 'LIBRARY "%s"\nEXPORTS\n%s' "$imp_dll" "${FX_IMP_SYMS[$i]}" >"$w/imp$i.def"
			llvm-dlltool -m "$m" -d "$w/imp$i.def" -l "$w/imp$i.lib" || return 1
			libs+=("$w/imp$i.lib")
			[ "$imp_kind" = D ] && delay+=("/delayload:$imp_dll")
		done
		local -a ldflags=(/nologo /nodefaultlib /machine:"$lm" /entry:tdc_entry /timestamp:0)
		[ -n "$p64" ] || ldflags+=(/safeseh:no)
		if [ "$kind" = dll ]; then ldflags+=(/dll); else ldflags+=(/subsystem:console); fi
		[ -f "$w/exports.def" ] && ldflags+=("/def:$w/exports.def")
		# lld-link names the export directory after its output file.
		lld-link "${ldflags[@]}" "/out:$w/$name" "${objs[@]}" "${libs[@]}" "${delay[@]}" || return 1
		mv "$w/$name" "$w/out.$kind"
	fi

	if [ -n "$overlay" ]; then
		truncate -s "+$(fx_size_bytes "$overlay")" "$w/out.$kind" || return 1
	fi
	if [ -n "$size" ]; then
		local want have
		want=$(fx_size_bytes "$size")
		have=$(stat -c %s "$w/out.$kind")
		[ "$have" -le "$want" ] || { fx_die "$out is already $have bytes, more than --size $size"; return 1; }
		truncate -s "$want" "$w/out.$kind" || return 1
	fi
	mkdir -p "$(dirname "$out")" && mv -f "$w/out.$kind" "$out"
}

# The standard fixture set: see the header for what each file is.
fx_standard_build() {
	local d=$1 m k32="KERNEL32.dll:GetProcAddress,LoadLibraryW,GetModuleHandleW"
	: >"$d/MANIFEST"
	note() { echo "$1 $2" >>"$d/MANIFEST"; }
	for m in x64 x86; do
		make_dll "$d/${m}_basic.dll" --machine $m --export foo --export bar --export baz \
			--import "$k32" || return 1
		note ${m}_basic.dll "GNU ld; exports foo bar baz; imports KERNEL32 by name"
		make_dll "$d/${m}_llvm.dll" --machine $m --toolchain llvm --export foo --export bar \
			--import "$k32" --import "USER32.dll:MessageBoxW" || return 1
		note ${m}_llvm.dll "lld-link; exports foo bar; imports KERNEL32, USER32"
		make_dll "$d/${m}_ordinals.dll" --machine $m --export 'named @3' --export 'hidden @5 NONAME' \
			--export 'hidden2 @9 NONAME' --export plain --import-ordinal "libiomp5md.dll:5,200,1027" \
			--import "libiomp5md.dll:omp_get_max_threads" || return 1
		note ${m}_ordinals.dll "ordinal-only exports @5 @9, named @3; imports libiomp5md by ordinal 5 200 1027 and by name"
		make_dll "$d/${m}_forwarders.dll" --machine $m --export real \
			--export 'HeapAlloc = NTDLL.RtlAllocateHeap' --export 'fwd_ord = "other.#5"' \
			--export 'GetLastError = kernelbase.GetLastError' --export 'alias = real' || return 1
		note ${m}_forwarders.dll "forwarders to NTDLL.RtlAllocateHeap, other.#5, kernelbase.GetLastError; alias"
		make_dll "$d/${m}_delay.dll" --machine $m --export foo --import "$k32" \
			--delay-import "DirectML.dll:DMLCreateDevice,DMLCreateDevice1" \
			--delay-import-ordinal "d3d12.dll:101" --delay-import "node.exe:napi_create_string_utf8" || return 1
		note ${m}_delay.dll "lld-link; delay imports DirectML by name, d3d12 by ordinal 101, node.exe"
		make_dll "$d/${m}_version.dll" --machine $m --export foo --version 14.40.33810.0 \
			--version-string "CompanyName=Microsoft Corporation" \
			--version-string "ProductName=Microsoft® Visual Studio®" \
			--version-string "FileDescription=Microsoft® C Runtime Library" || return 1
		note ${m}_version.dll "VERSIONINFO 14.40.33810.0 with Microsoft strings"
		make_dll "$d/${m}_msvc.dll" --machine $m --toolchain llvm --msvc --export PyInit_thing \
			--import "MSVCP140.dll:_Mtx_init_in_situ,_Thrd_yield" || return 1
		note ${m}_msvc.dll "lld-link; MSVC-like imports only (KERNEL32, VCRUNTIME140, api-ms-win-crt-*, MSVCP140)"
		make_dll "$d/${m}_dlf.dll" --machine $m --toolchain llvm --export foo --import "$k32" \
			--dependent-load-flags 0x800 || return 1
		note ${m}_dlf.dll "lld-link; DependentLoadFlags 0x800"
	done
	make_dll "$d/arm64_msvc.dll" --machine arm64 --msvc --export PyInit_thing --export 'hidden @7 NONAME' \
		--export 'fwd = NTDLL.RtlAllocateHeap' --import "MSVCP140.dll:_Mtx_init_in_situ" \
		--delay-import "nvcuda.dll:cuInit" --version 14.40.33810.0 --dependent-load-flags 0x800 || return 1
	note arm64_msvc.dll "lld-link arm64; MSVC-like imports, ordinal-only export, forwarder, delay import, version, DependentLoadFlags"
	make_dll "$d/x64_msvc_gnu.dll" --msvc --export PyInit_thing \
		--import "VCRUNTIME140_1.dll:__CxxFrameHandler4" || return 1
	note x64_msvc_gnu.dll "GNU ld; MSVC-like imports only, plus VCRUNTIME140_1"
	local i
	for i in $(seq 1 5000); do echo "torch_fn_$i"; done >"$d/many.def.tmp"
	(echo EXPORTS; cat "$d/many.def.tmp") >"$d/many.def"
	rm -f "$d/many.def.tmp"
	make_dll "$d/x64_many_exports.dll" --def "$d/many.def" --import "$k32" || return 1
	rm -f "$d/many.def"
	note x64_many_exports.dll "5000 named exports"
	make_dll "$d/x64_mixed_case.dll" --export foo --import "kernel32.DLL:GetProcAddress" \
		--import "Api-MS-Win-CRT-Runtime-L1-1-0.dll:_initterm" --import "LibOMP140.X86_64.dll:omp_get_max_threads" || return 1
	note x64_mixed_case.dll "import DLL names in odd letter case"
	make_exe "$d/x64_app.exe" --import "x64_basic.dll:foo,bar" --import "$k32" || return 1
	note x64_app.exe "console .exe importing x64_basic.dll"
	make_dll "$d/small_10k.dll" --export foo --import "$k32" --size 10K || return 1
	note small_10k.dll "a DLL of exactly 10 KiB"
	make_dll "$d/huge_1g.dll" --export foo --import "$k32" --version 2.5.1.0 --overlay 1G || return 1
	note huge_1g.dll "small DLL + 1 GiB sparse overlay; VERSIONINFO 2.5.1.0"
}

fx_standard() { fx_build standard fx_standard_build; }

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -u
	case ${1:-} in
	standard) fx_standard ;;
	dir) fx_dir ;;
	prune)
		# Other generator versions' builds (an older script or compiler).
		keep=$(fx_hash)
		for old in "$TDC_CACHE"/fixtures/*/; do
			[ "$(basename "$old")" = "$keep" ] || { echo "removing $old"; rm -rf "$old"; }
		done
		;;
	make-dll) shift; make_dll "$@" ;;
	make-exe) shift; make_exe "$@" ;;
	*)
		echo "usage: $0 standard | dir | prune | make-dll OUT [options] | make-exe OUT [options]" >&2
		exit 2
		;;
	esac
fi
