# torch-dll-check — build, test, fuzz, bench.
#
#   make              build ./torch-dll-check (and ./torch-dll-check-git)
#   make test         build with -Werror, plus an ASan+UBSan build, and run the whole suite
#   make demo         the main job: check a generated Windows runner tree
#   make docs         regenerate docs/cli.md from the commands' option tables
#   make setup        install what building and testing need (Debian; root)
#   make fuzz         run the libFuzzer targets (clang); FUZZ_SECONDS=600 per target
#   make bench        speed and memory against other PE readers
#   make dist         release assets and SHA-256 sums in dist/
#   make win          cross-build torch-dll-check.exe with mingw-w64 (deps cross-built, cached)
#   make lint         shellcheck every script; action.yml and the example workflows against their schemas
#   make extensions-survey  which torch each torchvision/torchaudio win_amd64 wheel requires
#                     (not in CI; ~300 MB fetched) into matrix/evidence/extensions-win_amd64.txt
#   make wheels-survey  measure every torch win_amd64 wheel PyPI serves (not in CI; ~8 GB
#                     fetched) into matrix/evidence/torch-win_amd64.txt
#
# V=1 shows full commands. CFLAGS/LDFLAGS are yours; the project's flags live
# in TDC_CFLAGS. CI=true or DEVELOPER=1 turns warnings into errors.

# `make` alone builds the programs, whatever rule comes first below.
.DEFAULT_GOAL := all

CC ?= cc
PKG_CONFIG ?= pkg-config
CFLAGS ?= -O2 -g
LDFLAGS ?=

# libhivex reads regf registry hives (checker/machine/hive.c). It is optional:
# pkg-config finds it or not when the build starts (HIVEX=1 or HIVEX=0 chooses),
# and TDC_HIVEX is defined only when it is there; a build without it says, when
# given a hive, that hives are read by builds that have it (MSYS2 has no hivex
# package; Debian's is libhivex-dev). What each module is called in Debian and
# MSYS2: action/build-deps.txt (tests/action/test_build_deps.sh holds the two
# to this file).
ifeq ($(origin HIVEX),undefined)
HIVEX := $(shell $(PKG_CONFIG) --exists hivex && echo 1 || echo 0)
endif
OPTIONAL_PKGS = hivex
# zlib: a frozen app's archive inflated in memory (machine/pyiarchive.c), git's loose objects (git_history)
REQUIRED_PKGS = yaml-0.1 libcjson zlib
CORE_PKGS = $(REQUIRED_PKGS) $(if $(filter 1,$(HIVEX)),hivex)
HIVEX_DEFS = $(if $(filter 1,$(HIVEX)),-DTDC_HIVEX)
GIT_PKGS = libgit2

WARNINGS = -Wall -Wextra -Wshadow -Wformat=2 -Wundef -Wstrict-prototypes \
	   -Wmissing-prototypes -Wvla -Wno-unused-parameter
ifneq ($(filter true 1,$(CI) $(DEVELOPER)),)
WARNINGS += -Werror
endif

TDC_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(HIVEX_DEFS) $(WARNINGS) -MMD -MP \
	     -Ichecker -Ibuild/gen $(shell $(PKG_CONFIG) --cflags $(CORE_PKGS))
# MSVC C++ names demangled by LLVM (libLLVMDemangle.a of llvm-14-dev, static: the
# shared libLLVM would cost every start-up) through one C++ shim (checker/util/demangle.h).
# Optional: without llvm-config, its header or its archive the build has no demangler
# (reports show raw names), as the mingw cross-build.
CXX ?= c++
LLVM_CONFIG ?= llvm-config
LLVM_INCDIR := $(shell $(LLVM_CONFIG) --includedir 2>/dev/null)
LLVM_LIBDIR := $(shell $(LLVM_CONFIG) --libdir 2>/dev/null)
# DEMANGLE=0 builds without it whatever the machine has (the release assets:
# they link nothing but libc.so.6, and LLVM's C++ would bring libstdc++).
DEMANGLE ?= 1
ifneq ($(and $(filter 1,$(DEMANGLE)),$(wildcard $(LLVM_INCDIR)/llvm/Demangle/Demangle.h),$(wildcard $(LLVM_LIBDIR)/libLLVMDemangle.a)),)
DEMANGLE_CXXFLAGS = -std=c++17 -I$(LLVM_INCDIR) -Wall -Wextra $(if $(filter -Werror,$(WARNINGS)),-Werror)
# A copy of the archive whose allocations go through the shim's budget
# (demangle_llvm.cc: a short name can demangle to gigabytes).
DEMANGLE_AR = build/llvm/libLLVMDemangle-bounded.a
DEMANGLE_LIBS = $(DEMANGLE_AR) -lstdc++
TDC_CFLAGS += -DTDC_LLVM_DEMANGLE
CXX_SRCS = checker/util/demangle_llvm.cc
else
DEMANGLE_LIBS =
CXX_SRCS =
endif
CORE_LIBS = $(shell $(PKG_CONFIG) --libs $(CORE_PKGS))
ifneq ($(DEMANGLE_AR),)
$(DEMANGLE_AR): $(LLVM_LIBDIR)/libLLVMDemangle.a
	$(Q)mkdir -p $(@D)
	$(Q)objcopy --redefine-sym malloc=tdc_dm_malloc --redefine-sym realloc=tdc_dm_realloc \
		--redefine-sym free=tdc_dm_free --redefine-sym _Znwm=tdc_dm_new --redefine-sym _Znam=tdc_dm_new_array \
		--redefine-sym _ZdlPv=tdc_dm_delete --redefine-sym _ZdaPv=tdc_dm_delete_array $< $@.tmp && mv $@.tmp $@
endif
GIT_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(GIT_PKGS))
GIT_LIBS = $(shell $(PKG_CONFIG) --libs $(GIT_PKGS))

SAN_FLAGS = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

ifeq ($(V),1)
Q =
else
Q = @
endif

# The library is one folder per layer, listed lowest first in checker/LAYERS;
# the command-line layer is checker/cli/ (the commands, and the main of the
# program). The folders that need libgit2, checker/git/ and checker/cli/git/,
# make up torch-dll-check-git alone, so that the commands that never touch git
# do not pay libgit2's start-up cost.
LAYERS = $(shell sed -e '/^\#/d' -e '/^$$/d' checker/LAYERS)
GIT_LAYERS = git cli/git
GIT_SRCS = $(foreach l,$(GIT_LAYERS),$(sort $(wildcard checker/$(l)/*.c)))
MAIN_SRCS = checker/cli/main.c
# the build-time generator of the matrix's tree (its own main; build/gen/embed_tree)
EMBED_TREE_SRCS = checker/matrix/embed_tree.c
LIB_SRCS = $(filter-out $(MAIN_SRCS) $(EMBED_TREE_SRCS),$(foreach l,$(filter-out $(GIT_LAYERS),$(LAYERS)),$(sort $(wildcard checker/$(l)/*.c))))
GEN_SRCS = build/gen/matrix_embed.c build/gen/matrix_tree.c

UNIT_SRCS = $(wildcard tests/unit/test_*.c)
FUZZ_SRCS = $(wildcard tests/fuzz/fuzz_*.c)

# Object lists per build flavour: rel (release) and asan (sanitizers).
objs = $(patsubst %.c,build/$(1)/%.o,$(2))

REL_LIB = build/rel/libtdc.a
ASAN_LIB = build/asan/libtdc.a
$(REL_LIB) $(ASAN_LIB): | $(DEMANGLE_AR)

.PHONY: all test unit-build demo docs setup fuzz bench dist win clean lint wheels-survey print-pkgs extensions-survey
all: torch-dll-check torch-dll-check-git

# the default matrix and the measured extension/torch pairs (checker/matrix/pairs.h), compiled in
PAIRS_EVIDENCE = matrix/evidence/extensions-win_amd64.txt
build/gen/matrix_embed.c: matrix/torch.yml $(PAIRS_EVIDENCE) checker/matrix/embed.sh
	@mkdir -p $(dir $@)
	$(Q){ sh checker/matrix/embed.sh matrix_default_yaml $< && \
	      sh checker/matrix/embed.sh matrix_pairs_text $(PAIRS_EVIDENCE); } > $@.tmp && mv $@.tmp $@

# the default matrix's tree, parsed at build time (checker/matrix/embed_tree.c,
# a program of its own, in neither library) with the program's own reader: the
# objects it needs are the release build's
EMBED_TREE_OBJS = $(call objs,rel,$(EMBED_TREE_SRCS) $(addprefix checker/util/,yamltree.c strbuf.c text.c utf.c))
build/gen/embed_tree: $(EMBED_TREE_OBJS)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(shell $(PKG_CONFIG) --libs yaml-0.1)
build/gen/matrix_tree.c: matrix/torch.yml build/gen/embed_tree
	$(Q)build/gen/embed_tree $< matrix_default_tree > $@.tmp && mv $@.tmp $@

build/rel/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(TDC_CFLAGS) $(if $(filter $(GIT_SRCS),$<),$(GIT_CFLAGS)) $(CFLAGS) -c -o $@ $<

build/asan/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC ASAN $<")
	$(Q)$(CC) $(TDC_CFLAGS) $(if $(filter $(GIT_SRCS) $(GIT_UNIT_SRCS),$<),$(GIT_CFLAGS)) -Itests/unit $(SAN_FLAGS) -c -o $@ $<

build/rel/%.o: %.cc
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CXX     $<")
	$(Q)$(CXX) $(DEMANGLE_CXXFLAGS) -MMD -MP $(CFLAGS) -c -o $@ $<

build/asan/%.o: %.cc
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CXX ASAN $<")
	$(Q)$(CXX) $(DEMANGLE_CXXFLAGS) -MMD -MP $(SAN_FLAGS) -c -o $@ $<

# hive.c compiles differently with and without libhivex: rebuilt when HIVEX changes.
HIVEX_STAMP = build/hivex-$(HIVEX).stamp
$(HIVEX_STAMP):
	@mkdir -p build && rm -f build/hivex-*.stamp && touch $@
build/rel/checker/machine/hive.o build/asan/checker/machine/hive.o: $(HIVEX_STAMP)

$(REL_LIB): $(call objs,rel,$(LIB_SRCS) $(GEN_SRCS)) $(patsubst %.cc,build/rel/%.o,$(CXX_SRCS))
	$(Q)rm -f $@ && $(AR) rcsD $@ $^

$(ASAN_LIB): $(call objs,asan,$(LIB_SRCS) $(GEN_SRCS)) $(patsubst %.cc,build/asan/%.o,$(CXX_SRCS))
	$(Q)rm -f $@ && $(AR) rcsD $@ $^

torch-dll-check: $(call objs,rel,$(MAIN_SRCS)) $(REL_LIB)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(CORE_LIBS) $(DEMANGLE_LIBS)

torch-dll-check-git: $(call objs,rel,$(GIT_SRCS)) $(REL_LIB)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(CORE_LIBS) $(DEMANGLE_LIBS) $(GIT_LIBS)

build/asan/torch-dll-check: $(call objs,asan,$(MAIN_SRCS)) $(ASAN_LIB)
	$(Q)$(CC) $(SAN_FLAGS) -o $@ $^ $(CORE_LIBS) $(DEMANGLE_LIBS)

build/asan/torch-dll-check-git: $(call objs,asan,$(GIT_SRCS)) $(ASAN_LIB)
	$(Q)$(CC) $(SAN_FLAGS) -o $@ $^ $(CORE_LIBS) $(DEMANGLE_LIBS) $(GIT_LIBS)

# Unit tests link the sanitizer build of the library; those of the git layer
# (tests/unit/test_git_*.c) link it too, and libgit2.
build/asan/tests/unit/%: build/asan/tests/unit/%.o $(ASAN_LIB)
	$(Q)$(CC) $(SAN_FLAGS) -o $@ $^ $(CORE_LIBS) $(DEMANGLE_LIBS)

GIT_UNIT_SRCS = $(wildcard tests/unit/test_git_*.c)
build/asan/tests/unit/test_git_%: build/asan/tests/unit/test_git_%.o $(call objs,asan,$(wildcard checker/git/*.c)) $(ASAN_LIB)
	$(Q)$(CC) $(SAN_FLAGS) -o $@ $^ $(CORE_LIBS) $(GIT_LIBS)

# Fuzz corpora are replayed by `make test` through a standalone driver.
build/asan/tests/fuzz/replay_%: build/asan/tests/fuzz/fuzz_%.o build/asan/tests/fuzz/replay.o $(ASAN_LIB)
	$(Q)$(CC) $(SAN_FLAGS) -o $@ $^ $(CORE_LIBS) $(DEMANGLE_LIBS)

# fuzz_loose reads git objects with checker/git/git_loose.c, which needs zlib only (not libgit2).
build/asan/tests/fuzz/replay_loose: build/asan/tests/fuzz/fuzz_loose.o build/asan/tests/fuzz/replay.o \
		build/asan/checker/git/git_loose.o $(ASAN_LIB)
	$(Q)$(CC) $(SAN_FLAGS) -o $@ $^ $(CORE_LIBS) $(shell $(PKG_CONFIG) --libs zlib)

# A fuzz target fed every truncation and random byte flips of a fixture (tests/fuzz/mutate.c).
build/asan/tests/fuzz/mutate_%: build/asan/tests/fuzz/fuzz_%.o build/asan/tests/fuzz/mutate.o $(ASAN_LIB)
	$(Q)$(CC) $(SAN_FLAGS) -o $@ $^ $(CORE_LIBS) $(DEMANGLE_LIBS)

# Prints all a registry file holds, for key-by-key comparisons (tests/inventory/test_hives.sh).
build/asan/tests/inventory/regdump: build/asan/tests/inventory/regdump.o $(ASAN_LIB)
	$(Q)$(CC) $(SAN_FLAGS) -o $@ $^ $(CORE_LIBS) $(DEMANGLE_LIBS)

UNIT_BINS = $(patsubst tests/unit/%.c,build/asan/tests/unit/%,$(UNIT_SRCS))
REPLAY_BINS = $(patsubst tests/fuzz/fuzz_%.c,build/asan/tests/fuzz/replay_%,$(FUZZ_SRCS))

unit-build: $(UNIT_BINS) $(REPLAY_BINS) build/asan/tests/fuzz/mutate_hive build/asan/tests/inventory/regdump build/asan/torch-dll-check build/asan/torch-dll-check-git

# The suite: strict warnings for both builds, then tests/run prints "N passed, N failed, N skipped".
test:
	$(Q)$(MAKE) --no-print-directory DEVELOPER=1 all unit-build
	$(Q)bash tests/run

demo: all
	$(Q)bash tests/lib/demo.sh

docs: torch-dll-check
	$(Q)./torch-dll-check --help-markdown > docs/cli.md.tmp && mv docs/cli.md.tmp docs/cli.md

setup:
	$(Q)bash .ci/deps

# The pkg-config modules the build uses: required ones, then the optional ones
# after a '|' (tests/action/test_build_deps.sh compares action/build-deps.txt).
print-pkgs:
	@echo $(REQUIRED_PKGS) $(GIT_PKGS) '|' $(OPTIONAL_PKGS)

FUZZ_SECONDS ?= 60
fuzz:
	$(Q)bash tests/fuzz/run.sh $(FUZZ_SECONDS)

bench: all
	$(Q)bash bench/run.sh

dist:
	$(Q)bash action/dist.sh

win:
	$(Q)bash tests/lib/cross-build.sh

# shellcheck on every script, action.yml and the example workflows against their schemas
lint:
	$(Q)bash tests/run action/test_action_lint

clean:
	rm -rf build dist torch-dll-check torch-dll-check-git torch-dll-check.exe torch-dll-check-git.exe

# The unit tests' and replay drivers' objects are intermediate (pattern rules):
# keep them. Only these: a bare `.SECONDARY:` would also stop a header that
# was moved or deleted (an empty rule from -MP) from rebuilding what used it.
.SECONDARY: $(patsubst %.c,build/asan/%.o,$(UNIT_SRCS) $(FUZZ_SRCS) tests/fuzz/replay.c)

-include $(shell find build -name '*.d' 2>/dev/null)

# Which torch each torchvision/torchaudio win_amd64 wheel requires (tests/wheels/survey_ext.sh; not in CI).
extensions-survey:
	bash tests/wheels/survey_ext.sh > $(PAIRS_EVIDENCE).tmp
	mv $(PAIRS_EVIDENCE).tmp $(PAIRS_EVIDENCE)

# The matrix's evidence: one line per torch win_amd64 wheel (tests/wheels/survey.sh).
wheels-survey: torch-dll-check
	WHEELS_SURVEY_DROP=1 bash tests/wheels/survey.sh > matrix/evidence/torch-win_amd64.txt.tmp
	mv matrix/evidence/torch-win_amd64.txt.tmp matrix/evidence/torch-win_amd64.txt
