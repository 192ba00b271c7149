/* inject: a deliberate slowdown of ONE path, for validating the CI
 * performance check (scripts/ci/ci-perf-validate.sh). Compiled only into
 * the test build (make inject: build/inject/kvtest, -DKVTEST_INJECT); every
 * call site sits inside #ifdef KVTEST_INJECT, so the release binary's code
 * is the same with or without this module.
 *
 * KVTEST_INJECT=PATH:MODE:N, read when a command arms PATH:
 *   PATH  sql-read blob-read files-read db-write files-write lookup http
 *   ns:N    spin N nanoseconds (CLOCK_MONOTONIC) after each operation:
 *           the wall-time layer's slowdown, N = (factor - 1) x the path's
 *           measured cost per operation
 *   iter:N  N iterations of a counting loop after each operation: a fixed
 *           instruction count, the instruction layer's slowdown (a time
 *           spin would count differently under valgrind) */
#ifndef KVTEST_INJECT_H
#define KVTEST_INJECT_H

/* Arm the injection when KVTEST_INJECT names path (one line on stderr says
 * so). A malformed KVTEST_INJECT: one line on stderr and exit 2. */
void inject_arm(const char *path);

/* The slowdown of one operation, if armed; nothing otherwise. */
void inject_op(void);
#endif
