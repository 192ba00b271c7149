/* env: the environment a figure was measured in, so every JSON result can
 * be compared and regenerated: which kvtest, SQLite version and compile options, kernel,
 * filesystem type of the path measured, CPU model, command line. */
#ifndef KVTEST_ENV_H
#define KVTEST_ENV_H
#include "base/json.h"

/* {
 *   "kvtest_version": "1.1.0", "commit": "9929160..." ("unknown" outside
 *   a git checkout), "dirty": false (true: the tree differed from the
 *   commit when built; null: unknown), "build": "rel",
 *   "build_flags": "-std=c11 -O2 -g", "compiler": "gcc 12.2.0"
 *   (measure/provenance.h),
 *   "sqlite_version": "3.52.0", "sqlite_source_id": "...",
 *   "sqlite_compile_options": ["THREADSAFE=1", ...],
 *   "kernel": "Linux 6.1.0-28-amd64 #1 SMP ... x86_64",
 *   "fs_type": "ext4" (statfs of path, or its parent if path does not
 *              exist yet; "unknown" if neither works),
 *   "cpu_model": "...", "cpus": 2,
 *   "cmdline": "kvtest run ...",
 *   "time_utc": "2026-11-30T10:00:00Z"
 * }
 * path may be NULL (no fs_type). NULL on out of memory. */
cJSON *env_json(const char *path);

/* Name of the filesystem holding path ("ext4", "tmpfs", "overlay", ...,
 * or "0x1234abcd" when not known by name). Writes into buf. Returns 0, or
 * -1 if statfs failed on path and on its parent directory, or the platform
 * cannot tell (base/os.h). */
int env_fs_type(const char *path, char *buf, int cap);

/* CPU model name (/proc/cpuinfo, sysctl) into buf ("unknown" if absent). */
void env_cpu_model(char *buf, int cap);

#endif
