# kvtest: make | make test | make bench | make install PREFIX=... | make clean
CC      ?= cc
PREFIX  ?= /usr/local
SCALE   ?= full

# Our code: strict C11. _GNU_SOURCE for clock_gettime, getrandom,
# posix_fadvise, mincore and friends, which strict C11 hides.
CFLAGS_OURS = -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I. -Isrc -MMD -MP
OPT         = -O2 -g
LIBS        = -lhiredis -lmicrohttpd -lhttp_parser -lcjson -lpthread -lm

# SQLite compile-time options (see README "SQLite build"):
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

SRCS  := $(wildcard src/*/*.c)
TESTS := $(patsubst tests/unit/%.c,build/asan/tests/%,$(wildcard tests/unit/test_*.c))
REL_OBJS  := $(patsubst %.c,build/rel/%.o,$(SRCS))
ASAN_OBJS := $(patsubst %.c,build/asan/%.o,$(SRCS))

.PHONY: all test bench install clean deps asan unit fuzz mutants
all: kvtest

# The amalgamation takes about a minute: compiled once, shared by every build.
build/sqlite3.o: sqlite3.c sqlite3.h
	@mkdir -p $(@D)
	$(CC) $(SQLITE_FLAGS) -c sqlite3.c -o $@

build/rel/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_OURS) $(OPT) -c $< -o $@

build/asan/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_OURS) -O1 -g $(SANITIZE) -c $< -o $@

kvtest: build/rel/kvtest.o $(REL_OBJS) build/sqlite3.o
	$(CC) $(OPT) -o $@ $^ $(LIBS)

build/asan/kvtest: build/asan/kvtest.o $(ASAN_OBJS) build/sqlite3.o
	$(CC) $(SANITIZE) -o $@ $^ $(LIBS)

build/asan/tests/%: tests/unit/%.c $(ASAN_OBJS) build/sqlite3.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_OURS) -O1 -g $(SANITIZE) -o $@ $(filter %.c %.o,$^) $(LIBS) -lcmocka

asan: build/asan/kvtest
unit: $(TESTS)

deps:
	bash scripts/deps.sh

# Every suite runs against the AddressSanitizer + UBSan build; the summary
# line "N passed, N failed" sums them all.
test: deps
	$(MAKE) kvtest build/asan/kvtest $(TESTS)
	KVTEST=build/asan/kvtest KVTEST_REL=./kvtest bash tests/run.sh $(TESTS)

# Deliberate faults (scripts/mutants.txt), each applied to a scratch copy
# of the tree: every one must make a suite fail. Slow; not part of test.
mutants: deps
	$(MAKE) kvtest build/asan/kvtest $(TESTS)
	bash scripts/mutants.sh scripts/mutants.txt

bench: deps
	$(MAKE) kvtest
	bash scripts/bench.sh $(SCALE)

install: kvtest
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 kvtest $(DESTDIR)$(PREFIX)/bin/kvtest

clean:
	rm -rf build kvtest

-include $(shell find build -name '*.d' 2>/dev/null)

# libFuzzer run of the shortener's request handler (clang; seeds in
# tests/fuzz/corpus, new inputs kept in build/fuzz/corpus):
#   make fuzz [FUZZ_TIME=seconds]
FUZZ_TIME ?= 30
# The request handler and the store below it, no HTTP server library:
# service.c is the handler; the libmicrohttpd glue is service_http.c.
FUZZ_SRCS = tests/fuzz/fuzz_request.c src/shortener/request.c \
            src/shortener/linkid.c src/shortener/links.c src/shortener/links_create.c \
            src/shortener/urlgen.c \
            src/shortener/cache.c src/shortener/track.c src/shortener/trackmap.c \
            src/shortener/service.c \
            src/measure/rng.c
FUZZ_LIBS = -lhiredis -lcjson -lpthread -lm
build/fuzz/fuzz_request: $(FUZZ_SRCS) build/sqlite3.o
	@mkdir -p $(@D)
	clang -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I. -Isrc -g -O1 \
	    -fsanitize=fuzzer,address,undefined -o $@ $(FUZZ_SRCS) build/sqlite3.o $(FUZZ_LIBS)
fuzz: build/fuzz/fuzz_request
	@mkdir -p build/fuzz/corpus
	build/fuzz/fuzz_request -max_total_time=$(FUZZ_TIME) -max_len=70000 \
	    build/fuzz/corpus tests/fuzz/corpus
