/* fuzz_tmp: a private directory for the fuzz targets whose parser takes a
 * path (a file's content is the fuzz input). Made once, in
 * LLVMFuzzerInitialize, on a tmpfs: /tmp when it is one, else /dev/shm
 * (Linux's own), so that thousands of writes a second stay in memory and
 * never reach a disk, and removed with its files at exit. A crash ends
 * the process without exit handlers, so its directory (named after the
 * process, kvtest-fuzz-PID-XXXXXX) is removed by the next target that
 * starts. Include from a target's one .c file. */
#ifndef KVTEST_FUZZ_TMP_H
#define KVTEST_FUZZ_TMP_H

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#define FUZZ_TMP_FILES 8
#define FUZZ_TMPFS_MAGIC 0x01021994   /* statfs f_type of a tmpfs */

static char fuzz_tmp_dir[64];
static char fuzz_tmp_names[FUZZ_TMP_FILES][128];
static int fuzz_tmp_n;

static void fuzz_tmp_cleanup(void)
{
    for (int i = 0; i < fuzz_tmp_n; i++)
        unlink(fuzz_tmp_names[i]);
    rmdir(fuzz_tmp_dir);
}

static int fuzz_tmp_is_tmpfs(const char *dir)
{
    struct statfs st;
    return statfs(dir, &st) == 0 && st.f_type == FUZZ_TMPFS_MAGIC;
}

/* Remove dir/name (a directory of flat files). */
static void fuzz_tmp_remove(const char *dir, const char *name)
{
    char path[512], file[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    DIR *d = opendir(path);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            snprintf(file, sizeof file, "%s/%s", path, e->d_name);
            unlink(file);
        }
    }
    closedir(d);
    rmdir(path);
}

/* The directories of targets that crashed: their process is gone. */
static void fuzz_tmp_sweep(const char *base)
{
    static const char prefix[] = "kvtest-fuzz-";
    DIR *d = opendir(base);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        char *end;
        if (strncmp(e->d_name, prefix, sizeof prefix - 1) != 0)
            continue;
        long pid = strtol(e->d_name + sizeof prefix - 1, &end, 10);
        if (end != e->d_name + sizeof prefix - 1 && *end == '-' && pid > 0 &&
            kill((pid_t)pid, 0) != 0 && errno == ESRCH)
            fuzz_tmp_remove(base, e->d_name);
    }
    closedir(d);
}

/* Make the directory (abort if impossible) and remove it at exit. */
static void fuzz_tmp_init(void)
{
    const char *base = fuzz_tmp_is_tmpfs("/tmp") || !fuzz_tmp_is_tmpfs("/dev/shm") ? "/tmp" : "/dev/shm";
    fuzz_tmp_sweep(base);
    snprintf(fuzz_tmp_dir, sizeof fuzz_tmp_dir, "%s/kvtest-fuzz-%ld-XXXXXX", base, (long)getpid());
    if (!mkdtemp(fuzz_tmp_dir)) {
        perror(fuzz_tmp_dir);
        abort();
    }
    atexit(fuzz_tmp_cleanup);
}

/* The path of file name in the directory (removed at exit). */
static const char *fuzz_tmp_path(const char *name)
{
    for (int i = 0; i < fuzz_tmp_n; i++)
        if (strcmp(strrchr(fuzz_tmp_names[i], '/') + 1, name) == 0)
            return fuzz_tmp_names[i];
    if (fuzz_tmp_n == FUZZ_TMP_FILES)
        abort();
    char *p = fuzz_tmp_names[fuzz_tmp_n++];
    snprintf(p, sizeof fuzz_tmp_names[0], "%s/%s", fuzz_tmp_dir, name);
    return p;
}

/* Write data[0..size) as file name; its path. */
static const char *fuzz_tmp_write(const char *name, const void *data, size_t size)
{
    const char *path = fuzz_tmp_path(name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
        perror(path);
        abort();
    }
    return path;
}

#endif
