#!/usr/bin/env bash
# fixtures.sh: builds the PE reader's own small fixture DLLs into the cache and
# prints the directory that holds them. Self-contained (the corpus helper owns
# the general generator). Keyed by a hash of this script and the tool
# versions, so CI rebuilds only when either changes.
#
#   x64/fixture.dll, x86/fixture.dll   mingw-w64: imports by name and by
#       ordinal (dep.dll via a .def import library, KERNEL32), exports incl. a
#       forwarder (fwd_a = dep.dep_a) and an ordinal-only export (@7 NONAME),
#       a windres VERSIONINFO (14.40.33810.0)
#   x64/dep.dll, x86/dep.dll           the provider (dep_a, ordinal-only dep_b @5)
#   x64/delay.dll                      clang + lld-link: a real delay-import
#       directory for dep.dll and a load config with DependentLoadFlags 0x800
#   x64/tiny.dll, x86/tiny.dll         stripped, < 4 KiB (fuzz seeds)
#   x64/small.dll, x86/small.dll       fixture.dll stripped (fuzz seeds)
set -eu
: "${TDC_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/torch-dll-check}"
key=$( {
	cat "$0"
	x86_64-w64-mingw32-gcc --version | head -1
	i686-w64-mingw32-gcc --version | head -1
	clang --version | head -1
	lld-link --version 2>/dev/null | head -1
} | sha256sum | cut -c1-16)
out=$TDC_CACHE/pe-fixtures/$key
if [ -f "$out/done" ]; then
	echo "$out"
	exit 0
fi
tmp=$(mktemp -d "$TDC_CACHE/pe-fixtures.tmp.XXXXXX" 2>/dev/null || { mkdir -p "$TDC_CACHE"; mktemp -d "$TDC_CACHE/pe-fixtures.tmp.XXXXXX"; })
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

cat >dep.def <<'DEF'
LIBRARY dep.dll
EXPORTS
  dep_a
  dep_b @5 NONAME
DEF
cat >dep.c <<'C'
int dep_a(void) { return 1; }
int dep_b(void) { return 2; }
int DllEntry(void *h, unsigned r, void *p) { (void)h; (void)r; (void)p; return 1; }
C
cat >fixture.def <<'DEF'
LIBRARY fixture.dll
EXPORTS
  foo
  zeta
  bar @7 NONAME
  fwd_a = dep.dep_a
DEF
cat >fixture.c <<'C'
__declspec(dllimport) int dep_a(void);
__declspec(dllimport) int dep_b(void);
__declspec(dllimport) unsigned long __stdcall GetTickCount(void);
int foo(void) { return dep_a() + dep_b(); }
int zeta(void) { return (int)GetTickCount(); }
int bar(void) { return 7; }
int DllEntry(void *h, unsigned r, void *p) { (void)h; (void)r; (void)p; return 1; }
C
cat >ver.rc <<'RC'
1 VERSIONINFO
FILEVERSION 14,40,33810,0
PRODUCTVERSION 14,40,33810,1
BEGIN
  BLOCK "StringFileInfo"
  BEGIN
    BLOCK "040904b0"
    BEGIN
      VALUE "CompanyName", "Fixture Corp"
      VALUE "FileVersion", "14.40.33810.0"
      VALUE "ProductName", "torch-dll-check fixture"
      VALUE "ProductVersion", "14.40.33810.1"
      VALUE "OriginalFilename", "fixture.dll"
    END
  END
  BLOCK "VarFileInfo"
  BEGIN
    VALUE "Translation", 0x409, 1200
  END
END
RC
cat >tiny.c <<'C'
__declspec(dllimport) int dep_a(void);
__declspec(dllexport) int tiny(void) { return dep_a(); }
int DllEntry(void *h, unsigned r, void *p) { (void)h; (void)r; (void)p; return 1; }
C

for arch in x64 x86; do
	if [ $arch = x64 ]; then t=x86_64-w64-mingw32; m=i386:x86-64; e=DllEntry; else t=i686-w64-mingw32; m=i386; e=_DllEntry; fi
	mkdir -p $arch
	ldflags=(-shared -nostdlib "-Wl,-e,$e" "-Wl,--enable-stdcall-fixup")
	$t-dlltool -m $m -d dep.def -l $arch/libdep.a
	# i386 stdcall names carry @N in the import library, not in the DLL (-k).
	printf 'LIBRARY KERNEL32.dll\nEXPORTS\n  GetTickCount%s\n' "$([ $arch = x86 ] && echo @0)" >kernel32.def
	$t-dlltool -m $m -k -d kernel32.def -l $arch/libk32.a
	$t-gcc -O1 -c dep.c -o $arch/dep.o
	"$t-gcc" "${ldflags[@]}" -o $arch/dep.dll $arch/dep.o dep.def
	$t-windres -O coff -o $arch/ver.o ver.rc
	$t-gcc -O1 -c fixture.c -o $arch/fixture.o
	"$t-gcc" "${ldflags[@]}" -o $arch/fixture.dll $arch/fixture.o $arch/ver.o fixture.def $arch/libdep.a $arch/libk32.a
	$t-gcc -O1 -fno-asynchronous-unwind-tables -c tiny.c -o $arch/tiny.o
	"$t-gcc" "${ldflags[@]}" -s -Wl,--disable-reloc-section -o $arch/tiny.dll $arch/tiny.o $arch/libdep.a
	# small.dll: fixture.dll's imports, exports and version info in < 4 KiB.
	$t-gcc -O1 -fno-asynchronous-unwind-tables -c fixture.c -o $arch/small.o
	"$t-gcc" "${ldflags[@]}" -s -Wl,--disable-reloc-section -o $arch/small.dll $arch/small.o $arch/ver.o fixture.def $arch/libdep.a $arch/libk32.a
	rm -f $arch/*.o $arch/*.a
done

# Delay imports and a load config: GNU ld fills neither directory, lld-link does.
cat >delay.c <<'C'
__declspec(dllimport) int dep_a(void);
__declspec(dllimport) int dep_b(void);
__declspec(dllexport) int use(void) { return dep_a() + dep_b(); }
/* A stub helper: the fixture is read, never run. */
void *__delayLoadHelper2(const void *d, void **slot) { (void)d; return *slot; }
/* IMAGE_LOAD_CONFIG_DIRECTORY64 up to DependentLoadFlags (offset 0x4e). */
struct lc { unsigned size; unsigned char pad[0x4e - 4]; unsigned short dependent_load_flags; unsigned char rest[0x100 - 0x50]; };
const struct lc _load_config_used = { sizeof(struct lc), {0}, 0x800, {0} };
int DllEntry(void *h, unsigned r, void *p) { (void)h; (void)r; (void)p; return 1; }
C
llvm-dlltool -m i386:x86-64 -d dep.def -l dep.lib
clang --target=x86_64-pc-windows-msvc -O1 -c delay.c -o delay.obj
lld-link /nologo /dll /nodefaultlib /entry:DllEntry /out:x64/delay.dll delay.obj dep.lib /delayload:dep.dll >/dev/null
rm -f dep.lib delay.obj x64/delay.lib x64/*.lib x86/*.lib

mkdir -p "$TDC_CACHE/pe-fixtures" "$tmp/result"
mv x64 x86 "$tmp/result/"
touch "$tmp/result/done"
# One rename publishes the whole set: a reader sees all of it or none, and a
# concurrent build of the same key simply loses the race (its copy is dropped).
[ -f "$out/done" ] || rm -rf "$out" # a half set left by an interrupted older run
mv -T "$tmp/result" "$out" 2>/dev/null || [ -f "$out/done" ]
echo "$out"
