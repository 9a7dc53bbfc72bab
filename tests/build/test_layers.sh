#!/usr/bin/env bash
# test_layers: checker/'s folders are the layers of checker/LAYERS, every
# include is folder-qualified and runs down the order, no module or folder
# includes itself back through another (tests/build/layers.py), the README's
# layer table lists the same folders in the same order, and the Makefile
# builds every source of every layer (nothing left in a folder it skips).
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
TEST_NAME=layers
python3 tests/build/layers.py checker || TAP_FAILED=1

want=$(sed -e '/^#/d' -e '/^$/d' checker/LAYERS | tr '\n' ' ')
# The README's table: rows "| `util/` | ..." between "### Layers" and the next heading.
# shellcheck disable=SC2016 # backquotes are the Markdown's, not a command
got=$(awk '/^### Layers/{on=1; next} /^#/{on=0} on && /^\| `[a-z/]+\/`/ {print}' README.md |
	sed -E 's/^\| `([a-z/]+)\/`.*/\1/' | tr '\n' ' ')
check_eq "the README's layer table is checker/LAYERS, in order" "$want" "$got"

# Every .c under checker/ is built into one of the two programs.
built=$(make -s --no-print-directory -f Makefile -f - print-srcs <<'MK' | tr ' ' '\n' | sed '/^$/d' | sort
print-srcs:
	@echo $(LIB_SRCS) $(MAIN_SRCS) $(GIT_SRCS)
MK
)
all=$(find checker -name '*.c' | sort)
check_eq "the Makefile builds every source of checker/ (from the layer folders)" "$all" "$built"
tap_done
