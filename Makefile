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
	$$(CC) $$($(1)_CFLAGS) -c $$< -o $$@
$(call LINK,$(2),$(1),$(5),$(6))
endef
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

# C that a script needs: the report's 95% intervals (scripts/tools/ratioci.c,
# a seeded bootstrap over paired rounds; scripts/study/tables.sh calls it).
RATIOCI_OBJS := $(patsubst %.c,$(OBJ)/rel/%.o,src/measure/stats.c src/measure/keys/rng.c src/base/os.c)
build/ratioci: scripts/tools/ratioci.c $(RATIOCI_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_OURS) $(OPT) -o $@ $(filter %.c %.o,$^) -lm

# An LD_PRELOAD library that fails the Nth malloc, write, fsync or open
# (tests/cli/failnth/failnth.bats; scripts/tools/failnth.c says how).
build/failnth.so: scripts/tools/failnth.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_OURS) $(OPT) -shared -fPIC -o $@ $< -ldl

# An HTTP server of known capacity (W slots x fixed service time) that
# tests/cli/load/capacity.bats checks the capacity search against.
build/fixedcap: scripts/tools/fixedcap.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_OURS) $(OPT) -o $@ $< -lhttp_parser -lpthread

# SQLite's own limit for the shortener's lookup (bind, step, reset on the
# service's statement, the bench's ids): what shortener bench's sqlite row
# is set against.
LOOKUPLOOP_OBJS := $(patsubst %.c,$(OBJ)/rel/%.o,src/measure/keys/keypick.c \
                   src/measure/keys/rng.c src/measure/keys/zipf.c src/base/os.c)
build/lookuploop: scripts/tools/lookuploop.c $(LOOKUPLOOP_OBJS) $(OBJ)/sqlite3.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_OURS) $(OPT) -o $@ $(filter %.c %.o,$^) -lpthread -lm

# SQLite's own insert rate for the shortener's schema through the service's
# store code: the in-process reference of POST /link (results/http/NOTES.md,
# scripts/study/http/post.sh).
build/inserts: scripts/tools/inserts.c $(filter-out $(OBJ)/rel/kvtest.o,$(rel_OBJS)) $(OBJ)/sqlite3.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_OURS) $(OPT) -o $@ $(filter %.c %.o,$^) $(LIBS)

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
	bash scripts/study/bench.sh $(SCALE)

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
VERSION := $(shell sed -n 's/^.define KVTEST_VERSION "\(.*\)"$$/\1/p' kvtest.c)
DEB_ROOT = build/deb/root
deb: $(BIN) man
	rm -rf $(DEB_ROOT)
	$(MAKE) install 'DESTDIR=$(CURDIR)/$(DEB_ROOT)' PREFIX=/usr
	bash scripts/pkg/deb.sh $(DEB_ROOT) $(VERSION) build $(ROCKSDB_SONAME) $(LIBPQ_SONAME)

clean:
	rm -rf build kvtest

-include $(shell find build -name '*.d' 2>/dev/null)

# libFuzzer targets (clang), one per parser of outside input: each
# tests/fuzz/fuzz_NAME.c is built as build/fuzz/fuzz_NAME from its own
# sources (FUZZ_SRCS_NAME), its seeds are tests/fuzz/corpus/NAME.
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
FUZZ_TARGETS = request url cacheurl units compare histjson loadmerge keys httpresp history
FUZZ_CFLAGS = -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I. -Isrc $(PG_CFLAGS) -g -O1 \
              -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
# Any header may change what a target compiles: each depends on all.
FUZZ_HDRS := $(shell find src tests/fuzz -name '*.h')
FUZZ_BASE = $(filter-out src/base/json_core.c,$(wildcard src/base/*.c))
# request: the request handler and what it calls (the folders service/,
# store/ and cache/) and base/, without the HTTP server library (the glue
# lives in http/), over a real SQLite database.
FUZZ_SRCS_request = $(wildcard $(addprefix src/shortener/,service/*.c store/*.c cache/*.c)) \
                    $(FUZZ_BASE) src/measure/keys/rng.c src/measure/progress.c
FUZZ_OBJS_request = build/sqlite3.o
FUZZ_LIBS_request = -lhiredis -luriparser -lcjson -lpthread -lm
FUZZ_RUN_request  = -max_len=70000
# url: request_check_url, request_is_self_link, load_url_parse, url_mask.
FUZZ_SRCS_url = src/shortener/service/request.c src/load/load_http.c src/base/url_mask.c src/base/json_alloc.c \
                src/base/net.c src/base/units.c src/base/errbuf.c
FUZZ_LIBS_url = -luriparser -lcjson -lhttp_parser
# cacheurl: cache_parse_url, cluster_redirect_parse, links_store_kind (its
# file, links_open.c, calls both store engines: the whole store links).
FUZZ_SRCS_cacheurl = src/shortener/cache/cache_url.c src/shortener/cache/cluster_slots.c \
                     $(wildcard src/shortener/store/*.c) $(FUZZ_BASE) src/measure/keys/rng.c \
                     src/measure/progress.c
FUZZ_OBJS_cacheurl = build/sqlite3.o
FUZZ_LIBS_cacheurl = -luriparser -lcjson -lpthread -lm
# units: base/units and base/net, timeline_parse_interval, load_slo_parse,
# sweep_parse_pages and the numbers of cli_parse.
FUZZ_SRCS_units = src/base/units.c src/base/net.c src/base/errbuf.c src/base/cli.c \
                  src/base/url_mask.c src/measure/timeline.c src/measure/hist.c \
                  src/load/load_search.c src/commands/sweep/sweep_cross.c
FUZZ_LIBS_units = -lm
# compare: compare_side_read and the extraction it calls.
FUZZ_SRCS_compare = $(addprefix src/commands/compare/,compare_read.c compare_extract.c \
                      compare_group.c compare_json.c) src/base/json_alloc.c \
                    src/base/cli.c src/base/url_mask.c src/base/units.c
FUZZ_LIBS_compare = -lcjson -lm
# history: history_read_csv (over libcsv) and history_find (the search,
# the state file's reader is not reached: no --state).
FUZZ_SRCS_history = $(addprefix src/commands/history/,history_series.c history_csv.c \
                      history_find.c history_state.c) \
                    $(addprefix src/commands/compare/,compare_read.c compare_extract.c \
                      compare_group.c compare_json.c) \
                    src/measure/stats.c src/measure/change_find.c src/measure/keys/rng.c $(FUZZ_BASE)
FUZZ_LIBS_history = -lcjson -lcsv -lpthread -lm
# histjson: load_histjson_add (and load_histjson_new for the round trip).
FUZZ_SRCS_histjson = src/load/load_histjson.c src/measure/hist.c
FUZZ_LIBS_histjson = -lcjson
# loadmerge: load_merge_add and load_merge_finish (load_report.c and
# load_engine.c, which they call, take the rest of load/ along).
FUZZ_SRCS_loadmerge = $(wildcard src/load/*.c) $(FUZZ_BASE) src/measure/hist.c src/measure/report.c \
                      src/measure/env.c src/measure/timeline.c
FUZZ_OBJS_loadmerge = build/sqlite3.o
FUZZ_LIBS_loadmerge = -lcjson -lhttp_parser -lnghttp2 -lssl -lcrypto -lpthread -lm
# keys: mix_keys_parse and mix_keys_read (load --keys), sizedist_load_json
# (init --sizes-from).
FUZZ_SRCS_keys = src/shortener/mix/mix_keys.c src/shortener/store/linkid.c src/base/errbuf.c \
                 src/measure/sizedist.c
FUZZ_LIBS_keys = -lcjson -lm
# httpresp: the load engine's answer parser (load_resp_take, _feed).
FUZZ_SRCS_httpresp = src/load/load_http.c src/base/net.c src/base/units.c src/base/errbuf.c
FUZZ_LIBS_httpresp = -lhttp_parser
FUZZ_RUN_httpresp  = -max_len=70000

define FUZZ_RULE
build/fuzz/fuzz_$(1): tests/fuzz/fuzz_$(1).c $$(FUZZ_SRCS_$(1)) $$(FUZZ_OBJS_$(1)) $$(FUZZ_HDRS)
	@mkdir -p $$(@D)
	clang $$(FUZZ_CFLAGS) -o $$@ tests/fuzz/fuzz_$(1).c $$(FUZZ_SRCS_$(1)) $$(FUZZ_OBJS_$(1)) \
	    $$(FUZZ_LIBS_$(1))
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call FUZZ_RULE,$(t))))

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
