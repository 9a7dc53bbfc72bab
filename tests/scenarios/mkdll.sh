# mkdll.sh: build small PE DLLs with exactly the imports and exports a loader
# scenario needs (source it). Stand-ins for torch's DLLs: they never run any
# code (DllMain returns TRUE), but their import, export, delay-import and
# load-config tables are real, so both the Windows loader (Wine) and the
# checker see what they would see in a torch wheel.
#
#   mkdll OUT [options]
#     -n NAME           internal DLL name (LIBRARY; default: basename of OUT)
#     -m x64|x86        machine (default x64)
#     -e SYM            export a function SYM
#     -e SYM@N          ... with ordinal N;  -e SYM@N:NONAME  by ordinal only
#     -f SYM=DLL.TARGET a forwarder export (TARGET is a name or #N)
#     -i DLL:SYM,...    import SYMs from DLL by name
#     -o DLL:N,...      import ordinals N from DLL
#     -d DLL:SYM,...    delay-import SYMs from DLL (built with clang + lld-link:
#                       GNU ld does not fill the delay-import directory)
#     -L FLAGS          DependentLoadFlags in the load-config directory (lld)
#     -v A.B.C.D        a VS_VERSIONINFO resource with this FileVersion
#
# Built DLLs are cached by a hash of the arguments in $MKDLL_CACHE (a
# directory; set by the caller), so a DLL used by many scenarios is built once.
# No binary is ever committed: everything is generated here.

MKDLL_GCC64=x86_64-w64-mingw32-gcc
MKDLL_GCC32=i686-w64-mingw32-gcc

# mkdll_tools_version: what the cache key of built fixtures must include.
mkdll_tools_version() {
	{
		$MKDLL_GCC64 --version | head -1
		$MKDLL_GCC32 --version | head -1
		x86_64-w64-mingw32-ld --version | head -1
		clang --version | head -1
		lld-link --version | head -1
	} 2>&1
}

mkdll() {
	local out=$1
	shift
	local key
	key=$(printf '%s\n' "$(basename "$out")" "$@" | sha256sum | cut -c1-24)
	local cached="$MKDLL_CACHE/$key.dll"
	if [ ! -f "$cached" ]; then
		_mkdll_build "$cached.tmp" "$(basename "$out")" "$@" || return 1
		mv "$cached.tmp" "$cached"
	fi
	mkdir -p "$(dirname "$out")"
	cp "$cached" "$out"
}

_mkdll_build() {
	local out=$1 base=$2
	shift 2
	local name=$base machine=x64 depflags= version=
	local -a exports=() forwards=() imports=() ordimports=() delays=()
	local OPTIND=1 opt
	while getopts "n:m:e:f:i:o:d:L:v:" opt; do
		case $opt in
		n) name=$OPTARG ;;
		m) machine=$OPTARG ;;
		e) exports+=("$OPTARG") ;;
		f) forwards+=("$OPTARG") ;;
		i) imports+=("$OPTARG") ;;
		o) ordimports+=("$OPTARG") ;;
		d) delays+=("$OPTARG") ;;
		L) depflags=$OPTARG ;;
		v) version=$OPTARG ;;
		*) echo "mkdll: bad option" >&2; return 1 ;;
		esac
	done
	local w
	w=$(mktemp -d "${TMPDIR:-/tmp}/mkdll.XXXXXX")
	local use_lld=0
	[ ${#delays[@]} -gt 0 ] || [ -n "$depflags" ] && use_lld=1

	# The C source: one exported function per -e, one function that calls
	# every import (so the linker keeps them), and DllMain.
	local c=$w/dll.c def=$w/exports.def
	{
		echo "int __stdcall DllMain(void *h, unsigned reason, void *reserved);"
		echo "int __stdcall DllMain(void *h, unsigned reason, void *reserved) { (void)h; (void)reason; (void)reserved; return 1; }"
	} >"$c"
	echo "LIBRARY \"$name\"" >"$def"
	echo "EXPORTS" >>"$def"
	local e sym ord i=0
	for e in "${exports[@]}"; do
		sym=${e%%@*}
		echo "int $sym(void); int $sym(void) { return $((++i)); }" >>"$c"
		if [[ $e == *@* ]]; then
			ord=${e#*@}
			if [[ $ord == *:NONAME ]]; then
				echo "  $sym @${ord%:NONAME} NONAME" >>"$def"
			else
				echo "  $sym @$ord" >>"$def"
			fi
		else
			echo "  $sym" >>"$def"
		fi
	done
	for e in "${forwards[@]}"; do
		echo "  ${e%%=*} = ${e#*=}" >>"$def"
	done

	# Import libraries: one per imported DLL, from a .def naming the symbols.
	local -A libsyms=() libords=() dlsyms=()
	local spec dll syms s
	for spec in "${imports[@]}"; do
		dll=${spec%%:*}
		libsyms[$dll]+="${spec#*:},"
	done
	for spec in "${ordimports[@]}"; do
		dll=${spec%%:*}
		libords[$dll]+="${spec#*:},"
	done
	for spec in "${delays[@]}"; do
		dll=${spec%%:*}
		dlsyms[$dll]+="${spec#*:},"
	done
	local -a libs=() calls=() delayopts=()
	local n=0 ldef
	for dll in "${!libsyms[@]}" "${!libords[@]}" "${!dlsyms[@]}"; do
		ldef=$w/imp$n.def
		[ -f "$w/done.$dll" ] && continue
		: >"$w/done.$dll"
		{
			echo "LIBRARY \"$dll\""
			echo "EXPORTS"
			IFS=, read -ra syms <<<"${libsyms[$dll]:-}${dlsyms[$dll]:-}"
			for s in "${syms[@]}"; do
				[ -n "$s" ] && echo "  $s" && calls+=("$s")
			done
			IFS=, read -ra syms <<<"${libords[$dll]:-}"
			for s in "${syms[@]}"; do
				[ -n "$s" ] && echo "  tdc_ord_$s @$s NONAME" && calls+=("tdc_ord_$s")
			done
		} >"$ldef"
		if [ $use_lld = 1 ]; then
			llvm-dlltool -m "$([ "$machine" = x86 ] && echo i386 || echo i386:x86-64)" \
				-d "$ldef" -l "$w/imp$n.lib" || return 1
			libs+=("$w/imp$n.lib")
		else
			"$([ "$machine" = x86 ] && echo i686 || echo x86_64)-w64-mingw32-dlltool" \
				-d "$ldef" -l "$w/imp$n.a" || return 1
			libs+=("$w/imp$n.a")
		fi
		[ -n "${dlsyms[$dll]:-}" ] && delayopts+=("/delayload:$dll")
		n=$((n + 1))
	done
	if [ ${#calls[@]} -gt 0 ]; then
		for s in "${calls[@]}"; do echo "int $s(void);" >>"$c"; done
		{
			echo "int tdc_use_imports(void);"
			echo "int tdc_use_imports(void) { int r = 0;"
			for s in "${calls[@]}"; do echo "  r += $s();"; done
			echo "  return r; }"
		} >>"$c"
	fi
	if [ ${#delays[@]} -gt 0 ]; then
		# lld-link wants the helper the MSVC delay-load thunks call; it never runs.
		echo "void *__delayLoadHelper2(const void *d, void **f); void *__delayLoadHelper2(const void *d, void **f) { (void)d; return *f; }" >>"$c"
	fi
	if [ -n "$depflags" ]; then
		# IMAGE_LOAD_CONFIG_DIRECTORY64 up to GuardFlags; DependentLoadFlags at 0x4e.
		cat >>"$c" <<-EOF
		struct tdc_load_config {
			unsigned Size, TimeDateStamp; unsigned short Major, Minor;
			unsigned GlobalFlagsClear, GlobalFlagsSet, CriticalSectionDefaultTimeout;
			unsigned long long DeCommitFreeBlockThreshold, DeCommitTotalFreeThreshold,
				LockPrefixTable, MaximumAllocationSize, VirtualMemoryThreshold, ProcessAffinityMask;
			unsigned ProcessHeapFlags; unsigned short CSDVersion, DependentLoadFlags;
			unsigned long long EditList, SecurityCookie, SEHandlerTable, SEHandlerCount,
				GuardCFCheckFunctionPointer, GuardCFDispatchFunctionPointer,
				GuardCFFunctionTable, GuardCFFunctionCount;
			unsigned GuardFlags;
		};
		const struct tdc_load_config _load_config_used = {
			.Size = sizeof(struct tdc_load_config), .DependentLoadFlags = $depflags };
		EOF
	fi
	local res=
	if [ -n "$version" ]; then
		local v1 v2 v3 v4
		IFS=. read -r v1 v2 v3 v4 <<<"$version"
		cat >"$w/ver.rc" <<-EOF
		1 VERSIONINFO
		FILEVERSION $v1,$v2,$v3,${v4:-0}
		PRODUCTVERSION $v1,$v2,$v3,${v4:-0}
		BEGIN
		  BLOCK "StringFileInfo"
		  BEGIN
		    BLOCK "040904B0"
		    BEGIN
		      VALUE "FileVersion", "$version"
		      VALUE "OriginalFilename", "$name"
		    END
		  END
		  BLOCK "VarFileInfo"
		  BEGIN
		    VALUE "Translation", 0x409, 1200
		  END
		END
		EOF
		if [ $use_lld = 1 ]; then
			llvm-rc -fo "$w/ver.res" "$w/ver.rc" >/dev/null || return 1
		else
			"$([ "$machine" = x86 ] && echo i686 || echo x86_64)-w64-mingw32-windres" \
				-i "$w/ver.rc" -o "$w/ver.o" || return 1
		fi
	fi

	if [ $use_lld = 1 ]; then
		local target=x86_64-pc-windows-msvc lm=x64
		[ "$machine" = x86 ] && target=i686-pc-windows-msvc lm=x86
		clang --target=$target -O1 -fno-builtin -c "$c" -o "$w/dll.obj" || return 1
		[ -n "$version" ] && res=$w/ver.res
		lld-link /nologo /dll /nodefaultlib /entry:$([ "$machine" = x86 ] && echo _DllMain@12 || echo DllMain) /machine:$lm /def:"$def" \
			/out:"$out" "$w/dll.obj" ${res:+"$res"} "${libs[@]}" "${delayopts[@]}" >"$w/link.log" 2>&1 ||
			{ cat "$w/link.log" >&2; return 1; }
	else
		local gcc=$MKDLL_GCC64 entry=DllMain
		[ "$machine" = x86 ] && gcc=$MKDLL_GCC32 entry=_DllMain@12
		[ -n "$version" ] && res=$w/ver.o
		$gcc -shared -nostdlib -fno-builtin -O1 -o "$out" "$c" "$def" ${res:+"$res"} "${libs[@]}" \
			-Wl,-e,$entry -Wl,--no-insert-timestamp || return 1
	fi
	rm -rf "$w"
}
