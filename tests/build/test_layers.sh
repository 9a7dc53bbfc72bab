#!/usr/bin/env bash
# test_layers: checker/'s folders are the layers of checker/LAYERS, every
# include is folder-qualified and runs down the order, no module or folder
# includes itself back through another, no two files use each other's
# symbols through any circle (nm of the objects `make` left in build/rel),
# the README's layer table names every module of each folder (all four in
# tests/build/layers.py) and lists the same folders in the same order, and
# the Makefile builds every source of every layer (nothing left in a folder
# it skips).
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
TEST_NAME=layers
cd "$TDC_REPO" || exit 1
python3 tests/build/layers.py checker --readme=README.md --objects=build/rel || TAP_FAILED=1

want=$(sed -e '/^#/d' -e '/^$/d' checker/LAYERS | tr '\n' ' ')
# The README's table: rows "| `util/` | ..." between "### Layers" and the next heading.
# shellcheck disable=SC2016 # backquotes are the Markdown's, not a command
got=$(awk '/^### Layers/{on=1; next} /^#/{on=0} on && /^\| `[a-z/]+\/`/ {print}' README.md |
	sed -E 's/^\| `([a-z/]+)\/`.*/\1/' | tr '\n' ' ')
check_eq "the README's layer table is checker/LAYERS, in order" "$want" "$got"

# Every .c under checker/ is built into one of the two programs (or is the
# build-time generator of the matrix's tree).
built=$(make -s --no-print-directory -f Makefile -f - print-srcs <<'MK' | tr ' ' '\n' | sed '/^$/d' | sort
print-srcs:
	@echo $(LIB_SRCS) $(MAIN_SRCS) $(GIT_SRCS) $(EMBED_TREE_SRCS)
MK
)
all=$(find checker -name '*.c' | sort)
check_eq "the Makefile builds every source of checker/ (from the layer folders)" "$all" "$built"

# The symbol-level check itself, on a made-up tree whose two files of one
# module use each other (as matrix.c and matrix_proc.c once did): it must
# fail, naming both files and the symbols each uses of the other.
mkdir -p "$tmp/t/checker/a" "$tmp/t/obj/checker/a"
echo a >"$tmp/t/checker/LAYERS"
printf '#ifndef A_H\n#define A_H\nint a_one(void);\nint a_two(void);\n#endif\n' >"$tmp/t/checker/a/a.h"
printf '#include "a/a.h"\nint a_one(void) { return 1; }\nint a_three(void) { return a_two(); }\n' >"$tmp/t/checker/a/a.c"
printf '#include "a/a.h"\nint a_two(void) { return a_one() + 1; }\n' >"$tmp/t/checker/a/a_more.c"
for f in a a_more; do
	"${CC:-cc}" -c -I"$tmp/t/checker" -o "$tmp/t/obj/checker/a/$f.o" "$tmp/t/checker/a/$f.c" || not_ok "cannot compile $f.c"
done
out=$(python3 tests/build/layers.py "$tmp/t/checker" --objects="$tmp/t/obj"); st=$?
check_eq "a circle between two files of one module fails the symbol-level check" 1 "$st"
check_eq "and is named with its files and symbols" "#   circle between a/a.c, a/a_more.c:
#     a/a.c uses a/a_more.c's a_two
#     a/a_more.c uses a/a.c's a_one" "$(printf '%s\n' "$out" | grep '^#  ')"
tap_done
