# kvtest: make | make test | make test-servers | make test-repo | make bench | make install PREFIX=... | make uninstall
#         make deb | make clean
#         make core | make static | make CC=aarch64-linux-gnu-gcc core | make arm64-test
CC      ?= cc
PREFIX  ?= /usr/local
SCALE   ?= full

# Each compiler's objects live apart: make CC=clang, a cross compiler or
# musl-gcc never reuses or clobbers the default compiler's objects (and
# make clean, which would take the one-minute SQLite object with it, is
# never needed to switch). The default compiler keeps build/ and ./kvtest.
CC_TAG := $(subst /,_,$(notdir $(firstword $(CC))))
ifneq ($(filter cc gcc,$(CC_TAG)),)
OBJ := build
BIN := kvtest
else
OBJ := build/cc-$(CC_TAG)
BIN := $(OBJ)/kvtest
endif

# Our code: strict C11. _GNU_SOURCE for what the shortener's libraries and
# epoll need; the blob commands themselves need only POSIX.1-2008 (the core
# build below is compiled without it).
# libpq's header lives in its own directory (Debian: /usr/include/postgresql).
PG_CFLAGS  := $(shell pkg-config --cflags libpq 2>/dev/null || echo -I/usr/include/postgresql)
# RocksDB's version is only in a C++ header; its C API is what we compile against.
ROCKSDB_VERSION := $(shell sed -n 's/^\#define ROCKSDB_\(MAJOR\|MINOR\|PATCH\) //p' \
                     /usr/include/rocksdb/version.h 2>/dev/null | paste -sd.)
# RocksDB and libpq are opened when a store of theirs is first used, not
# linked (src/base/dynlib.h says why): by the file name the build would have
# linked against, its SONAME.
soname = $(shell objdump -p "$$($(CC) -print-file-name=$(1))" 2>/dev/null | sed -n 's/^ *SONAME *//p')
ROCKSDB_SONAME := $(call soname,librocksdb.so)
LIBPQ_SONAME   := $(call soname,libpq.so)
CFLAGS_OURS = -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I. -Isrc $(PG_CFLAGS) -MMD -MP \
              -DKVTEST_ROCKSDB_VERSION='"$(ROCKSDB_VERSION)"' \
              $(if $(ROCKSDB_SONAME),-DKVTEST_ROCKSDB_SONAME='"$(ROCKSDB_SONAME)"') \
              $(if $(LIBPQ_SONAME),-DKVTEST_LIBPQ_SONAME='"$(LIBPQ_SONAME)"')
OPT         = -O2 -g
LIBS        = -lhiredis -luriparser -lh2o-evloop -lhttp_parser -lnghttp2 -lssl -lcrypto -lcjson -lcsv -llmdb -lpthread -lm

# The core (make core): init, stat, export, run, space, sweep with nothing
# but a C11 compiler, libc and SQLite. POSIX.1-2008 only; base/os.c alone
# opts into each platform's extensions, and KVTEST_OS_FALLBACK (the
# "fallback" build, tested by make test) forces its portable branches.
# base/json_core.c stands in for libcjson (JSON output only).
CFLAGS_CORE = -std=c11 -D_POSIX_C_SOURCE=200809L -DKVTEST_CORE -Wall -Wextra -Werror \
              -I. -Isrc -MMD -MP
LIBS_CORE   = -lpthread -lm

# SQLite compile-time options (see docs/building.md, "SQLite build"):
#  THREADSAFE=1         concurrent readers and the service use one
#                       connection per thread (serialized mode not needed)
#  DQS=0                double-quoted strings are identifiers, not literals
#  OMIT_LOAD_EXTENSION  no dlopen: nothing of ours loads extensions
#  ENABLE_DBSTAT_VTAB   dbstat gives payload bytes and page utilisation
#                       for "kvtest stat" space accounting
# Direct overflow reads (which the article relied on) are on by default
# in 3.52.0, so they need no flag.
SQLITE_FLAGS = -O2 -DSQLITE_THREADSAFE=1 -DSQLITE_DQS=0 \
               -DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_ENABLE_DBSTAT_VTAB

SANITIZE = -fsanitize=address,undefined -fno-sanitize-recover=undefined \
           -fno-omit-frame-pointer
# The sanitizer build of kvtest is started thousands of times by make test.
# With GCC's sanitizer runtimes linked in rather than loaded, each start
# takes about a tenth less CPU (fewer pages to map and relocate; page faults
# are dear on a virtual machine). Clang links them so already and has no
# such flags.
SANITIZE_LINK := $(if $(shell $(CC) -v 2>&1 | grep '^gcc version'),-static-libasan -static-libubsan)

# Every .c below src/, at any depth: a new module or folder needs no edit here.
ALL_SRCS  := $(sort $(shell find src -name '*.c'))
SRCS      := $(filter-out src/base/json_core.c,$(ALL_SRCS))
# The core leaves out what needs the Debian libraries: the shortener, the
# HTTP load engine, compare and history (they parse JSON), and the LMDB and RocksDB
# stores with the table of open stores they share (stores/kv/store_kv.c
# then says they are left out).
CORE_SRCS := kvtest.c $(filter-out src/shortener/% src/load/% src/commands/compare/% src/commands/history/% \
               src/stores/kv/store_lmdb% src/stores/kv/store_rocksdb% src/stores/kv/store_kv_open.c \
               src/base/dynlib.c,$(ALL_SRCS))
# kvtest.c (main) and every module of the full build.
FULL_SRCS := kvtest.c $(SRCS)
# One cmocka binary per tests/unit/**/test_*.c, its path mirrored under tests/.
TESTS := $(patsubst tests/unit/%.c,$(OBJ)/asan/tests/%,$(sort $(shell find tests/unit -name 'test_*.c'))) \
         $(OBJ)/asan/tests/base/test_os_fallback \
         $(OBJ)/asan/tests/base/test_csv_core

.PHONY: all test test-servers test-repo bench install uninstall deb clean deps asan unit fuzz failnth mutants mutants-auto core static arm64-test
all: $(BIN) build/ratioci

# The amalgamation takes about a minute: compiled once per compiler, shared
# by every build of that compiler.
$(OBJ)/sqlite3.o: sqlite3.c sqlite3.h
	@mkdir -p $(@D)
	$(CC) $(SQLITE_FLAGS) -c sqlite3.c -o $@

# The variants of kvtest, one line each in the table below. A variant
# compiles its sources with its own flags into objects of its own,
# $(OBJ)/NAME/ (so that no object is ever linked into a build with other
# flags), and links them with SQLite's object into its binary:
#   $(call variant,NAME,BINARY,SOURCES,COMPILE FLAGS,LINK FLAGS,LIBRARIES)
# makes  $(OBJ)/NAME/%.o: %.c  $(CC) COMPILE FLAGS -c $< -o $@
#   and  BINARY: the objects of $(SOURCES), $(OBJ)/sqlite3.o
#              $(CC) LINK FLAGS -o $@ $^ LIBRARIES
# and sets NAME_CFLAGS (what the unit tests reuse) and NAME_OBJS. SOURCES
# is the name of a list; flags are written $$(VAR), so that they are read
# when a recipe runs, as a plain rule's are (make OPT=-O0 works). Spaces
# around an argument are dropped: the table is aligned.
define VARIANT
$(1)_CFLAGS = $(4)
$(1)_OBJS   = $$(patsubst %.c,$$(OBJ)/$(1)/%.o,$$($(3)))
$$(OBJ)/$(1)/%.o: %.c
	@mkdir -p $$(@D)
	$$(CC) $$($(1)_CFLAGS) -I$$(OBJ)/$(1) -c $$< -o $$@
$$(OBJ)/$(1)/src/measure/provenance.o: $$(OBJ)/$(1)/provenance_build.h
$$(OBJ)/$(1)/provenance_build.h: FORCE
	@bash scripts/dev/provenance.sh $$@ $(1) '$$(call build_flags,$$($(1)_CFLAGS))'
$(call LINK,$(2),$(1),$(5),$(6))
endef
# What a binary says it was built with (src/measure/provenance.h): the
# flags that change its code, not include paths or warnings. The header is
# remade on every build and rewritten only when it changes (the commit,
# the work tree's state or the flags), so only then is anything rebuilt.
build_flags = $(filter -O% -g% -f% -m% -std=% -DKVTEST_CORE -DKVTEST_OS_FALLBACK -DKVTEST_INJECT,$(1))
.PHONY: FORCE
# LINK,BINARY,NAME,LINK FLAGS,LIBRARIES: one more binary of a variant's
# objects (make static links the core's).
define LINK
$(1): $$($(2)_OBJS) $$(OBJ)/sqlite3.o
	$$(CC) $(3) -o $$@ $$^ $(4)
endef
variant = $(eval $(call VARIANT,$(strip $(1)),$(strip $(2)),$(strip $(3)),$(strip $(4)),$(strip $(5)),$(strip $(6))))

# rel       the release build: ./kvtest, or $(OBJ)/kvtest with another CC
# asan      AddressSanitizer + UBSan, what every suite of make test runs
# core      make core: the blob commands over libc and SQLite alone
#           (CFLAGS_CORE, CORE_SRCS above)
# fallback  the core with KVTEST_OS_FALLBACK: base/os.c's portable
#           branches, tested on this machine by make test
# inject    the CI performance check's test build (make inject): the
#           release flags plus -DKVTEST_INJECT, which compiles in
#           measure/inject.c's deliberate slowdown of one path
#           (KVTEST_INJECT=PATH:ns:N or PATH:iter:N) for
#           scripts/ci/ci-perf-validate.sh. Never the release binary.
#              NAME      BINARY                  SOURCES    COMPILE FLAGS                                  LINK FLAGS                      LIBRARIES
$(call variant,rel,      $(BIN),                 FULL_SRCS, $$(CFLAGS_OURS) $$(OPT),                        $$(OPT),                        $$(LIBS))
$(call variant,asan,     $(OBJ)/asan/kvtest,     FULL_SRCS, $$(CFLAGS_OURS) -O1 -g $$(SANITIZE),            $$(SANITIZE) $$(SANITIZE_LINK), $$(LIBS))
$(call variant,core,     $(OBJ)/core/kvtest,     CORE_SRCS, $$(CFLAGS_CORE) $$(OPT),                        $$(OPT),                        $$(LIBS_CORE))
$(call variant,fallback, $(OBJ)/fallback/kvtest, CORE_SRCS, $$(CFLAGS_CORE) -DKVTEST_OS_FALLBACK $$(OPT),   $$(OPT),                        $$(LIBS_CORE))
$(call variant,inject,   $(OBJ)/inject/kvtest,   FULL_SRCS, $$(CFLAGS_OURS) -DKVTEST_INJECT $$(OPT),        $$(OPT),                        $$(LIBS))

ifneq ($(BIN),kvtest)
.PHONY: kvtest
kvtest: $(BIN)
endif
.PHONY: inject
inject: $(OBJ)/inject/kvtest
asan: $(OBJ)/asan/kvtest
unit: $(TESTS)

# A unit test links the sanitizer build's modules (all but kvtest.c's
# main). Its own object is kept apart from its link: a fault in one
# source file (make mutants, mutants-auto) recompiles that file and
# relinks, not every test that links it.
ASAN_MODS = $(filter-out $(OBJ)/asan/kvtest.o,$(asan_OBJS))
$(OBJ)/asan/tests/%.o: tests/unit/%.c
	@mkdir -p $(@D)
	$(CC) $(asan_CFLAGS) -c $< -o $@
.PRECIOUS: $(OBJ)/asan/tests/%.o

$(OBJ)/asan/tests/%: $(OBJ)/asan/tests/%.o $(ASAN_MODS) $(OBJ)/sqlite3.o
	$(CC) $(SANITIZE) -o $@ $(filter %.o,$^) $(LIBS) -lcmocka

# base/os's portable branches, tested on this machine.
$(OBJ)/asan/tests/base/test_os_fallback: tests/unit/base/test_os.c src/base/os.c src/base/os.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_CORE) -DKVTEST_OS_FALLBACK -O1 -g $(SANITIZE) -o $@ $(filter %.c,$^) -lcmocka

# base/csv over the core build's JSON stand-in (json_core.c) instead of libcjson.
$(OBJ)/asan/tests/base/test_csv_core: tests/unit/base/test_csv.c src/base/csv.c src/base/json_core.c \
		src/base/csv.h src/base/json.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_CORE) -O1 -g $(SANITIZE) -o $@ $(filter %.c,$^) -lm -lcmocka

# Build lines. C that a script needs (scripts/tools/NAME.c) and the fuzz
# targets (tests/fuzz/fuzz_NAME.c) say on their first line what they are
# built from, so that a new one, or a new source of one, needs no edit
# here:
#   /* build: WORDS */              a tool: build/NAME
#   /* build: WORDS; run: FLAGS */  a fuzz target: build/fuzz/fuzz_NAME,
#                                   which make fuzz runs with FLAGS
# WORDS, in the order they are linked:
#   src/DIR/FILE.c    one of our sources (a tool links its release object)
#   src/DIR/          every .c file of that folder, not below it, but
#                     base/json_core.c (the core's stand-in for libcjson)
#   build/sqlite3.o   SQLite's object: a tool's compiler's own,
#                     $(OBJ)/sqlite3.o; the default compiler's for a fuzz
#                     target
#   @kvtest           what kvtest links but kvtest.c: every module,
#                     SQLite and $(LIBS)
#   -lNAME            a library, given last
#   -FLAG             another flag, given before -o (with -shared a tool
#                     is build/NAME.so)
# A file whose first line is not a build line, or whose line holds a word
# of another kind, is refused in one line when its target is built (not
# when the Makefile is read: one broken fuzz target stops no make test).
# tests/cli/repo/buildlines.bats checks every file has its line.
build_line = $(shell sed -n '1s|^/\* \(build:[^;]*\).*\*/ *$$|\1|p' $(1))
build_run  = $(shell sed -n '1s|^/\* build:[^;]*; *run:\(.*\)\*/ *$$|\1|p' $(1))
build_expand = $(foreach w,$(patsubst @kvtest,$(SRCS) build/sqlite3.o $(LIBS),$(1)), \
                 $(if $(filter %/,$(w)),$(filter-out src/base/json_core.c,$(wildcard $(w)*.c)),$(w)))
# READ_BUILD,KIND,NAME,FILE sets KIND_SRCS_NAME, KIND_OBJS_NAME,
# KIND_FLAGS_NAME and KIND_LIBS_NAME from FILE's build line, and
# KIND_BAD_NAME to what is wrong with it, if anything.
define READ_BUILD
$(1)_LINE_$(2)  := $$(call build_line,$(3))
$(1)_WORDS_$(2) := $$(call build_expand,$$(filter-out build:,$$($(1)_LINE_$(2))))
$(1)_SRCS_$(2)  := $$(filter %.c,$$($(1)_WORDS_$(2)))
$(1)_OBJS_$(2)  := $$(filter %.o,$$($(1)_WORDS_$(2)))
$(1)_LIBS_$(2)  := $$(filter -l%,$$($(1)_WORDS_$(2)))
$(1)_FLAGS_$(2) := $$(filter-out -l%,$$(filter -%,$$($(1)_WORDS_$(2))))
$(1)_BAD_$(2)   := $$(strip $$(if $$(filter build:,$$($(1)_LINE_$(2))), \
                     $$(if $$(filter-out %.c %.o -%,$$($(1)_WORDS_$(2))), \
                       its build line names $$(filter-out %.c %.o -%,$$($(1)_WORDS_$(2))): neither a source nor an object nor a flag), \
                     its first line is not its build line /* build: SOURCES... -lLIBS... */))
endef
# REFUSE,TARGET,FILE,WHY: TARGET fails, saying why, when it is built
# (phony: a binary left from before the line went is refused too).
define REFUSE
.PHONY: $(1)
$(1):
	$$(error $(2): $(strip $(3)) (the Makefile's "Build lines" say how to write one))
endef

# The tools. ratioci: the report's 95% intervals; failnth.so: an
# LD_PRELOAD library that fails the Nth malloc, write, fsync or open;
# fixedcap: an HTTP server of known capacity; lookuploop and inserts:
# SQLite's own lookup and insert rates for the shortener (each file's
# header says what for and who runs it).
TOOLS := $(patsubst scripts/tools/%.c,%,$(sort $(wildcard scripts/tools/*.c)))
tool_binary = build/$(1)$(if $(filter -shared,$(TOOL_FLAGS_$(1))),.so)
define TOOL
$(call tool_binary,$(1)): scripts/tools/$(1).c $$(patsubst %.c,$$(OBJ)/rel/%.o,$$(TOOL_SRCS_$(1))) \
		$$(patsubst build/%,$$(OBJ)/%,$$(TOOL_OBJS_$(1)))
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS_OURS) $$(OPT) $$(strip $$(TOOL_FLAGS_$(1)) -o) $$@ $$(filter %.c %.o,$$^) $$(TOOL_LIBS_$(1))
endef
$(foreach t,$(TOOLS),$(eval $(call READ_BUILD,TOOL,$(t),scripts/tools/$(t).c)) \
  $(eval $(if $(TOOL_BAD_$(t)),$(call REFUSE,$(call tool_binary,$(t)),scripts/tools/$(t).c,$(TOOL_BAD_$(t))), \
    $(call TOOL,$(t)))))

# The core for this compiler: build/core/kvtest, or with CC=X
# build/cc-X/core/kvtest (e.g. make CC=aarch64-linux-gnu-gcc core).
core: $(OBJ)/core/kvtest
	@echo "core: $(OBJ)/core/kvtest"

# One fully static file (Debian's musl-tools) to copy to any Linux machine
# of the same architecture: build/kvtest-static, the core's objects for
# musl-gcc linked once more.
static:
	$(MAKE) CC=musl-gcc build/kvtest-static
ifeq ($(CC_TAG),musl-gcc)
$(eval $(call LINK,build/kvtest-static,core,$$(OPT) -static,$$(LIBS_CORE)))
endif

# The arm64 core and the core command-line tests run under qemu-user
# (bash scripts/deps.sh portable installs the cross compiler and qemu).
ARM64_CC   = aarch64-linux-gnu-gcc
ARM64_BIN  = build/cc-$(ARM64_CC)/core/kvtest
ARM64_SUITES ?= tests/cli/blobs/core.bats tests/cli/blobs/run.bats tests/cli/blobs/holes.bats
arm64-test:
	$(MAKE) CC=$(ARM64_CC) core
	printf '#!/bin/sh\nexec qemu-aarch64 -L /usr/aarch64-linux-gnu "%s" "$$@"\n' \
	    "$(CURDIR)/$(ARM64_BIN)" > $(ARM64_BIN)-qemu
	chmod +x $(ARM64_BIN)-qemu
	file $(ARM64_BIN) | grep -q 'ARM aarch64'
	KVTEST="$(CURDIR)/$(ARM64_BIN)-qemu" bats $(ARM64_SUITES)

deps:
	bash scripts/deps.sh

# Manual pages kvtest(1) and kvtest-shortener(1), written in scdoc
# (src/doc/*.scd): make man builds build/man/*.1 (generated, not committed).
# make test builds them too; tests/cli/repo/manpages.bats lints them and checks
# that every option of the help texts is in them.
MANPAGES := build/man/kvtest.1 build/man/kvtest-shortener.1
.PHONY: man
man: $(MANPAGES)
build/man/%.1: src/doc/%.1.scd
	@mkdir -p $(@D)
	scdoc < $< > $@.tmp || { rm -f $@.tmp; exit 1; }
	mv $@.tmp $@

# Every suite runs against the AddressSanitizer + UBSan build; the summary
# line "N passed, N failed" sums them all.
# The core and its fallback build are tested too (tests/cli/commands/portable.bats).
# The server suites (PostgreSQL with replicas, a Valkey Cluster, trees of
# service processes, and every suite's PostgreSQL run) are make
# test-servers: a third of all the suites' CPU time, more than make test's
# five minutes on two cores leave (tests/run.sh says which). CI runs both.
# What make test builds (the sanitizer build is most of a fresh clone's
# first run) goes one job per core unless make was given -j itself.
SUBMAKE_JOBS = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc))
test: deps
	$(MAKE) $(SUBMAKE_JOBS) $(BIN) $(OBJ)/asan/kvtest $(TESTS) $(OBJ)/core/kvtest $(OBJ)/fallback/kvtest build/ratioci \
	    build/fixedcap build/lookuploop build/inserts build/failnth.so $(MANPAGES)
	KVTEST=$(OBJ)/asan/kvtest KVTEST_REL=./$(BIN) KVTEST_CORE_BIN=$(OBJ)/core/kvtest \
	    KVTEST_FALLBACK_BIN=$(OBJ)/fallback/kvtest bash tests/run.sh $(TESTS)

test-servers: deps
	$(MAKE) $(SUBMAKE_JOBS) $(BIN) $(OBJ)/asan/kvtest build/ratioci
	KVTEST=$(OBJ)/asan/kvtest KVTEST_REL=./$(BIN) KVTEST_TEST_SET=servers bash tests/run.sh

# The repository's own checks (tests/cli/repo/, study/ and shellcheck): the CI
# scripts, the test runner, packaging, the README, the manual pages and the
# study's scripts (report, capacity, anchors, nginx and costs, which make
# bench runs). They test the tooling around kvtest, not kvtest, and took a
# third of make test's CPU time; CI runs them as a step of their own.
test-repo: deps
	$(MAKE) $(SUBMAKE_JOBS) $(BIN) $(OBJ)/asan/kvtest build/ratioci $(MANPAGES)
	KVTEST=$(OBJ)/asan/kvtest KVTEST_REL=./$(BIN) KVTEST_TEST_SET=repo bash tests/run.sh

# Every malloc, write, fsync and open of init, export and shortener init,
# every allocation of compare and of the service (outside h2o) at start
# and under load, failed in turn, one run each: minutes, so not part of
# make test (tests/cli/failnth/ is in no set of tests/run.sh). Each test prints its
# count of runs and outcomes.
failnth: deps
	$(MAKE) $(SUBMAKE_JOBS) $(BIN) $(OBJ)/asan/kvtest build/failnth.so
	KVTEST=$(OBJ)/asan/kvtest KVTEST_REL=./$(BIN) KVTEST_FAILNTH_FULL=1 bats --show-output-of-passing-tests tests/cli/failnth/failnth.bats

# Deliberate faults (scripts/dev/mutants.txt), each applied to a scratch copy
# of the tree: every one must make a suite fail. Slow; not part of test.
mutants: deps
	$(MAKE) $(BIN) $(OBJ)/asan/kvtest $(TESTS) build/ratioci build/fixedcap build/lookuploop
	bash scripts/dev/mutants.sh scripts/dev/mutants.txt

# Machine-made mutants (scripts/dev/mutagen.py) over the files that decide
# verdicts: each run against the suites covering its file; verdicts and the
# score per file in results/mutants-auto/. Hours, resumable; not part of test.
mutants-auto: deps
	$(MAKE) $(BIN) $(OBJ)/asan/kvtest $(TESTS) build/ratioci build/fixedcap build/lookuploop
	python3 scripts/dev/mutagen.py run --jobs 2

bench: deps
	$(MAKE) $(BIN) build/ratioci
	bash scripts/study/bench.sh $(SCALE) $(if $(filter 1,$(ALLOW_DIRTY)),--allow-dirty)

# make install [PREFIX=/usr/local] [DESTDIR=staging]: the binary, the two
# man pages (make man builds them from src/doc/), the bash completion and
# the README. INSTALLED is the one list of what install writes, so
# uninstall removes exactly that (and our doc directory once it is empty,
# never a shared one such as bin/).
BINDIR     = $(PREFIX)/bin
MAN1DIR    = $(PREFIX)/share/man/man1
COMPLDIR   = $(PREFIX)/share/bash-completion/completions
DOCDIR     = $(PREFIX)/share/doc/kvtest
# MANPAGES: the pages make man builds (defined with its rule)
INSTALLED  = $(BINDIR)/kvtest $(addprefix $(MAN1DIR)/,$(notdir $(MANPAGES))) \
             $(COMPLDIR)/kvtest $(DOCDIR)/README.md
# DESTDIR and PREFIX are quoted: a checkout's path may hold spaces.
install: $(BIN) man
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(MAN1DIR)" "$(DESTDIR)$(COMPLDIR)" "$(DESTDIR)$(DOCDIR)"
	install -m 755 $(BIN) "$(DESTDIR)$(BINDIR)/kvtest"
	install -m 644 $(MANPAGES) "$(DESTDIR)$(MAN1DIR)/"
	install -m 644 src/doc/kvtest.bash "$(DESTDIR)$(COMPLDIR)/kvtest"
	install -m 644 README.md "$(DESTDIR)$(DOCDIR)/README.md"

uninstall:
	for f in $(INSTALLED); do rm -f "$(DESTDIR)$$f"; done
	if [ -d "$(DESTDIR)$(DOCDIR)" ]; then rmdir --ignore-fail-on-non-empty "$(DESTDIR)$(DOCDIR)"; fi

# make deb: build/kvtest_VERSION_ARCH.deb from a make install into a staging
# tree (scripts/pkg/deb.sh: strip, compress, copyright, control with the
# libraries' packages found by dpkg-shlibdeps, and those of the libraries
# opened on demand as Recommends), then lintian on it.
VERSION = $(shell sed -n 's/^.define KVTEST_VERSION "\(.*\)"$$/\1/p' src/measure/provenance.h)
DEB_ROOT = build/deb/root
deb: $(BIN) man
	rm -rf $(DEB_ROOT)
	$(MAKE) install 'DESTDIR=$(CURDIR)/$(DEB_ROOT)' PREFIX=/usr
	bash scripts/pkg/deb.sh $(DEB_ROOT) $(VERSION) build $(ROCKSDB_SONAME) $(LIBPQ_SONAME)

clean:
	rm -rf build kvtest

-include $(shell find build -name '*.d' 2>/dev/null)

# libFuzzer targets (clang), one per parser of outside input: each
# tests/fuzz/fuzz_NAME.c is built as build/fuzz/fuzz_NAME from the sources
# its first line names (its build line: "Build lines" above), its seeds
# are tests/fuzz/corpus/NAME.
#   make fuzz [FUZZ_TIME=seconds] [FUZZ_TARGETS="url units"]
# make fuzz builds every target of FUZZ_TARGETS and runs each in turn for
# FUZZ_TIME seconds from its seeds, keeping the new inputs it finds in
# build/fuzz/corpus/NAME (the next run starts from them too) and what
# fails in build/fuzz/finds/NAME/ (crash-*, leak-*, timeout-*: rerun one
# with build/fuzz/fuzz_NAME FILE). Every target runs even after one
# failed; make fuzz then lists those that found a crash, an invariant
# broken (each target's header says which it checks), a leak, undefined
# behaviour or an input slower than FUZZ_INPUT_TIMEOUT, and exits 1.
# FUZZ_SEED=N makes the mutations the same from run to run (CI: a failure
# there is reproduced here by the same command, not lost to chance);
# unset, each run draws its own.
FUZZ_TIME ?= 30
FUZZ_INPUT_TIMEOUT ?= 10
FUZZ_SEED ?=
FUZZ_ALL := $(patsubst tests/fuzz/fuzz_%.c,%,$(sort $(wildcard tests/fuzz/fuzz_*.c)))
FUZZ_TARGETS = $(FUZZ_ALL)
FUZZ_CFLAGS = -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I. -Isrc $(PG_CFLAGS) -g -O1 \
              -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
# Any header may change what a target compiles: each depends on all.
FUZZ_HDRS := $(shell find src tests/fuzz -name '*.h')
# The target's own flags for make fuzz (say -max_len) are FUZZ_RUN_NAME,
# from its build line (scripts/dev/fuzz-campaign.sh reads them too).
define FUZZ_RULE
FUZZ_RUN_$(1) := $$(strip $$(call build_run,tests/fuzz/fuzz_$(1).c))
build/fuzz/fuzz_$(1): tests/fuzz/fuzz_$(1).c $$(FUZZ_SRCS_$(1)) $$(FUZZ_OBJS_$(1)) $$(FUZZ_HDRS)
	@mkdir -p $$(@D)
	clang $$(FUZZ_CFLAGS) $$(strip $$(FUZZ_FLAGS_$(1)) -o) $$@ tests/fuzz/fuzz_$(1).c $$(FUZZ_SRCS_$(1)) \
	    $$(FUZZ_OBJS_$(1)) $$(FUZZ_LIBS_$(1))
endef
$(foreach t,$(FUZZ_ALL),$(eval $(call READ_BUILD,FUZZ,$(t),tests/fuzz/fuzz_$(t).c)) \
  $(eval $(if $(FUZZ_BAD_$(t)),$(call REFUSE,build/fuzz/fuzz_$(t),tests/fuzz/fuzz_$(t).c,$(FUZZ_BAD_$(t))), \
    $(call FUZZ_RULE,$(t)))))

# One target's run, a shell command that adds its name to $failed when it
# fails.
define FUZZ_RUN_ONE
mkdir -p build/fuzz/corpus/$(1) build/fuzz/finds/$(1); \
	echo "== fuzz_$(1): $(FUZZ_TIME) s"; \
	build/fuzz/fuzz_$(1) -max_total_time=$(FUZZ_TIME) -timeout=$(FUZZ_INPUT_TIMEOUT) \
	    $(if $(FUZZ_SEED),-seed=$(FUZZ_SEED)) \
	    $(FUZZ_RUN_$(1)) -artifact_prefix=build/fuzz/finds/$(1)/ \
	    build/fuzz/corpus/$(1) tests/fuzz/corpus/$(1) || failed="$$failed $(1)"
endef

fuzz: $(addprefix build/fuzz/fuzz_,$(FUZZ_TARGETS))
	@failed=; \
	$(foreach t,$(FUZZ_TARGETS),$(call FUZZ_RUN_ONE,$(t)); \
	) \
	if [ -n "$$failed" ]; then \
	    echo "make fuzz: failed:$$failed (inputs in build/fuzz/finds/)"; exit 1; \
	fi
