# shellcheck shell=bash
# loader.sh: the Windows trees the loader tests check (source it).
#
# loader_base DIR: a minimal C:\ with a real System32: Wine's PE builds of
# ntdll, kernelbase, kernel32, msvcrt, ucrtbase, the VC++ runtimes and its
# apisetschema.dll (schema v6), i.e. files nobody here wrote. An x86 SysWOW64
# holds a stand-in kernel32.dll for 32-bit processes.
# shellcheck disable=SC2034

WINE_PE=/usr/lib/x86_64-linux-gnu/wine/x86_64-windows

loader_base() {
	local d=$1 f
	mkdir -p "$d/Windows/System32" "$d/Windows/SysWOW64"
	# Hard links (copies across file systems), as trees/wheels.sh makes them:
	# ~24 MB a tree, in every cached tree built on this one. Nothing may
	# write into these files: a tree that changes one replaces it (rm, or
	# make_dll's mv), never writes through it.
	for f in ntdll kernelbase kernel32 msvcrt ucrtbase vcruntime140 vcruntime140_1 msvcp140 apisetschema; do
		cp -l "$WINE_PE/$f.dll" "$d/Windows/System32/" 2>/dev/null || cp "$WINE_PE/$f.dll" "$d/Windows/System32/" ||
			return 1
	done
	make_dll "$d/Windows/SysWOW64/kernel32.dll" --machine x86 --export GetLastError
}

# The per-rule cases under C:\c\<case>\ (see test_deps.sh for what each asserts).
loader_cases() {
	local d=$1 c
	loader_base "$d" || return 1
	c=$d/c
	mkdir -p "$c"/{ok,chain,sym,fwd,arch/x64dir,bad,cyc,other,pre,pathdir,pth,dl,dlf,case,kd,api} \
		"$c"/dld/{sub,top} "$c/Jörg ünï"
	# healthy: own dir + KnownDLL + API set
	make_dll "$c/ok/mid.dll" --export m --import KERNEL32.dll:GetLastError
	make_dll "$c/ok/top.dll" --export t --import mid.dll:m \
		--import api-ms-win-crt-runtime-l1-1-0.dll:_initterm
	# four-level chain, leaf missing
	make_dll "$c/chain/l3.dll" --export f3 --import l4.dll:f4
	make_dll "$c/chain/l2.dll" --export f2 --import l3.dll:f3
	make_dll "$c/chain/l1.dll" --export f1 --import l2.dll:f2
	# a name the DLL lacks (127) / an ordinal it lacks (182) / an ordinal it has
	make_dll "$c/sym/has.dll" --export present_fn
	make_dll "$c/sym/noname.dll" --export x --import has.dll:absent_fn
	make_dll "$c/sym/ordl.dll" --export 'f @5'
	make_dll "$c/sym/noord.dll" --export x --import-ordinal ordl.dll:7
	make_dll "$c/sym/okord.dll" --export x --import-ordinal ordl.dll:5
	# forwarders
	make_dll "$c/fwd/tgt.dll" --export g
	make_dll "$c/fwd/fw_missing.dll" --export 'f = gone.f'
	make_dll "$c/fwd/fw_ok.dll" --export 'f = tgt.g'
	make_dll "$c/fwd/fw_nofunc.dll" --export 'f = tgt.nothere'
	make_dll "$c/fwd/fw_apiset.dll" --export 'f = api-ms-win-crt-runtime-l1-1-0._initterm'
	make_dll "$c/fwd/fw_loop.dll" --export 'f = fw_loop.f'
	make_dll "$c/fwd/u_missing.dll" --export x --import fw_missing.dll:f
	make_dll "$c/fwd/u_ok.dll" --export x --import fw_ok.dll:f
	make_dll "$c/fwd/u_nofunc.dll" --export x --import fw_nofunc.dll:f
	make_dll "$c/fwd/u_apiset.dll" --export x --import fw_apiset.dll:f
	make_dll "$c/fwd/u_loop.dll" --export x --import fw_loop.dll:f
	# machines
	make_dll "$c/arch/x86.dll" --machine x86 --export f
	make_dll "$c/arch/dep.dll" --machine x86 --export f
	make_dll "$c/arch/top64.dll" --export x --import dep.dll:f
	make_dll "$c/arch/x64dir/dep.dll" --export f
	make_dll "$c/arch/t32.dll" --machine x86 --export x --import KERNEL32.dll:GetLastError
	# bad files
	: >"$c/bad/empty.dll"
	echo "not a PE file" >"$c/bad/text.dll"
	: >"$c/bad/hollow.dll"
	make_dll "$c/bad/uses_hollow.dll" --export x --import hollow.dll:f
	# an import cycle
	make_dll "$c/cyc/cyc_b.dll" --export b --import cyc_a.dll:a
	make_dll "$c/cyc/cyc_a.dll" --export a --import cyc_b.dll:b
	# the loaded-module list
	make_dll "$c/other/shared.dll" --export s
	make_dll "$c/other/wrap.dll" --export w --import shared.dll:s --import absent.dll:z
	make_dll "$c/pre/p_top.dll" --export x --import shared.dll:s
	# PATH
	make_dll "$c/pathdir/onpath.dll" --export p
	make_dll "$c/pth/pth.dll" --export x --import onpath.dll:p
	# delay imports
	make_dll "$c/dl/dl.dll" --export x --delay-import nodelay.dll:f
	make_dll "$c/dl/hasdl.dll" --export other
	make_dll "$c/dl/dl_sym.dll" --export x --delay-import hasdl.dll:missing_sym
	# DependentLoadFlags 0x800: own-dir imports are no longer found
	make_dll "$c/dlf/sib.dll" --export s
	make_dll "$c/dlf/dlf.dll" --export x --import sib.dll:s --dependent-load-flags 0x800
	make_dll "$c/dlf/nodlf.dll" --export x --import sib.dll:s
	# letter case
	make_dll "$c/case/mixed.dll" --export m
	make_dll "$c/case/case.dll" --export x --import MiXeD.DLL:m
	# KnownDLLs win over a (broken) copy next to the DLL
	: >"$c/kd/kernel32.dll"
	make_dll "$c/kd/kd.dll" --export x --import kernel32.dll:GetLastError
	# a contract the schema does not know is searched as a file
	make_dll "$c/api/api-ms-win-nonexistent-l1-1-0.dll" --export q
	make_dll "$c/api/uses.dll" --export x --import api-ms-win-nonexistent-l1-1-0.dll:q
	# DLL_LOAD_DIR below the first level (the switch)
	make_dll "$c/dld/sub/deep3.dll" --export d3
	make_dll "$c/dld/sub/deep2.dll" --export d2 --import deep3.dll:d3
	: >"$c/dld/top/deep3.dll"
	make_dll "$c/dld/top/deep1.dll" --export d1 --import deep2.dll:d2
	# non-ASCII directory
	make_dll "$c/Jörg ünï/nx.dll" --export n --import nx2.dll:n2
	make_dll "$c/Jörg ünï/nx2.dll" --export n2
}
