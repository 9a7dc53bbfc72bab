# shellcheck shell=bash
# win_exe.sh: torch-dll-check.exe (Windows x64, mingw-w64) for running the live
# code paths (registry through the Win32 API, System32 through the OS) under Wine.
#
#   win_exe LOGDIR   print the path of a cached torch-dll-check.exe, building it
#                    when needed (logs of a failed build in LOGDIR); keyed by the
#                    checker's sources, the matrix, the compiler and the static
#                    libyaml/cJSON tests/lib/cross-build.sh builds once
: "${TDC_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/torch-dll-check}"
win_exe() {
	local out=$1 prefix key dir
	prefix=$(find "$TDC_CACHE/mingw-deps" -path '*/prefix/lib/libcjson.a' 2>/dev/null | head -1)
	if [ -z "$prefix" ]; then
		# builds the static libyaml/cJSON once (its own final link may fail: we link below),
		# under the checkout's lock on what cross-build.sh writes there (tests/lib/cross_exe.sh)
		mkdir -p "$TDC_REPO/build"
		flock "$TDC_REPO/build/.cross-build.lock" bash "$TDC_REPO/tests/lib/cross-build.sh" >"$out/xdeps.log" 2>&1
		prefix=$(find "$TDC_CACHE/mingw-deps" -path '*/prefix/lib/libcjson.a' 2>/dev/null | head -1)
	fi
	[ -n "$prefix" ] || return 1
	prefix=${prefix%/lib/libcjson.a}
	key=$( { find "$TDC_REPO/checker" -type f | LC_ALL=C sort | xargs cat; cat "$TDC_REPO/matrix/torch.yml";
		cat "$TDC_REPO/matrix/evidence/extensions-win_amd64.txt"; x86_64-w64-mingw32-gcc --version | head -1; echo "$prefix"; } |
		sha256sum | cut -c1-16)
	dir=$TDC_CACHE/inventory-win/$key
	if [ ! -f "$dir/torch-dll-check.exe" ]; then
		mkdir -p "$dir" || return 1
		# one build of a key at a time (tests side by side, other checkouts): they share $dir/tmp.exe
		(
			flock 8
			[ -f "$dir/torch-dll-check.exe" ] && exit 0
			{ sh "$TDC_REPO/checker/matrix/embed.sh" matrix_default_yaml "$TDC_REPO/matrix/torch.yml" &&
				sh "$TDC_REPO/checker/matrix/embed.sh" matrix_pairs_text \
					"$TDC_REPO/matrix/evidence/extensions-win_amd64.txt"; } >"$dir/matrix_embed.c" || exit 1
			# the embedded matrix's tree, parsed at build time by the native checker/matrix/embed_tree.c
			flock "$TDC_REPO/build/.need.lock" make -s -C "$TDC_REPO" build/gen/matrix_tree.c >"$out/xtree.log" 2>&1 &&
				cp "$TDC_REPO/build/gen/matrix_tree.c" "$dir/matrix_tree.c" || exit 1
			srcs=()
			while IFS= read -r f; do
				case "$f" in */checker/git/* | */checker/cli/git/* | */checker/matrix/embed_tree.c) ;; *) srcs+=("$f") ;; esac
			done < <(find "$TDC_REPO/checker" -name '*.c' | LC_ALL=C sort)
			x86_64-w64-mingw32-gcc -std=c11 -O1 -DYAML_DECLARE_STATIC -D__USE_MINGW_ANSI_STDIO=1 \
				-I"$TDC_REPO/checker" -I"$prefix/include" -I"$prefix/include/cjson" \
				-o "$dir/tmp.exe" "${srcs[@]}" "$dir/matrix_embed.c" "$dir/matrix_tree.c" \
				-L"$prefix/lib" -static -lcjson -lyaml -l:libz.a -lshell32 -ladvapi32 >"$out/xbuild.log" 2>&1 || exit 1
			mv "$dir/tmp.exe" "$dir/torch-dll-check.exe"
		) 8>"$dir.lock" || return 1
	fi
	echo "$dir/torch-dll-check.exe"
}
