/* export_jobs: the writers of "kvtest export". With --jobs J, J threads
 * each read their own key range through their own scan and write
 * one file per blob; the first failure stops them all. A file that could
 * not be written completely is removed, and the whole build directory is
 * removed by the caller on any failure. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "commands/export/export_int.h"
#include "measure/progress.h"
#include "stores/db_scan.h"
#include "stores/layout.h"

struct shared {
    const struct export_opts *o;
    const char *build;
    atomic_llong done, bytes;
    atomic_int failed;
    pthread_mutex_t err_mu;
    char *err;                    /* the caller's buffer, ERR_CAP bytes */
    struct progress pr;           /* updated by job 0 only */
};
#define ERR_CAP sizeof(((struct export_run *)0)->err)

struct job {
    struct shared *sh;
    int64_t from, to;             /* keys [from, to] */
    int index;
};

static void job_fail(struct shared *sh, const char *fmt, const char *a, const char *b)
{
    pthread_mutex_lock(&sh->err_mu);
    if (!atomic_load(&sh->failed))
        snprintf(sh->err, ERR_CAP, fmt, a, b);
    atomic_store(&sh->failed, 1);
    pthread_mutex_unlock(&sh->err_mu);
}

/* mkdir -p of the two directory levels of a tree file; cached so a run of
 * keys in the same directory costs no syscall. */
static int ensure_dirs(char *path, size_t dirlen, char *last, size_t lastcap)
{
    /* path = DIR/aa/bb/cc : the directory part is everything up to the last '/'. */
    char *slash = strrchr(path, '/');
    size_t n = (size_t)(slash - path);
    if (n < lastcap && strncmp(last, path, n) == 0 && last[n] == '\0')
        return 0;
    *slash = '\0';
    char *mid = strrchr(path, '/');
    int rc = 0;
    if (mkdir(path, 0755) != 0 && errno != EEXIST) {
        if (errno == ENOENT && mid && mid > path + dirlen) {
            *mid = '\0';
            if (mkdir(path, 0755) != 0 && errno != EEXIST)
                rc = -1;
            *mid = '/';
            if (rc == 0 && mkdir(path, 0755) != 0 && errno != EEXIST)
                rc = -1;
        } else {
            rc = -1;
        }
    }
    if (rc == 0)
        snprintf(last, lastcap, "%s", path);
    *slash = '/';
    return rc;
}

static int write_file(const char *path, const void *data, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    const char *p = data;
    size_t left = n;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            unlink(path);
            errno = e;
            return -1;
        }
        p += w;
        left -= (size_t)w;
    }
    if (close(fd) != 0) {
        int e = errno;
        unlink(path);
        errno = e;
        return -1;
    }
    return 0;
}

/* A failed file, named as the user will look for it: DIR/relname. */
static void file_fail(struct shared *sh, const char *rel, int e)
{
    char shown[4200];
    snprintf(shown, sizeof shown, "%s/%s", sh->o->dir, rel);
    job_fail(sh, "%s: %s", shown, strerror(e));
}

/* Write the rows of the scan to files; stops at the first failure. */
static void job_write(struct job *jb, struct db_scan *scan)
{
    struct shared *sh = jb->sh;
    const struct export_opts *o = sh->o;
    size_t dirlen = strlen(sh->build);
    size_t cap = dirlen + 64;
    char *path = malloc(cap);
    char last[4200] = "";
    if (!path) {
        job_fail(sh, "%s%s", "out of memory", "");
        return;
    }
    memcpy(path, sh->build, dirlen);
    path[dirlen] = '/';
    char *rel = path + dirlen + 1;
    int rc;
    int64_t mine = 0, k, n;
    const void *v;
    while (!atomic_load(&sh->failed) && !cleanup_interrupted() &&
           (rc = db_scan_next(scan, &k, &v, &n)) == 1) {
        if (k < 0) {
            job_fail(sh, "%s: %s", o->db, "negative key: not a kvtest database");
            break;
        }
        layout_relname(rel, cap - dirlen - 1, o->tree, k);
        if ((o->tree && ensure_dirs(path, dirlen, last, sizeof last) != 0) ||
            write_file(path, v ? v : "", (size_t)n) != 0) {
            file_fail(sh, rel, errno);
            break;
        }
        atomic_fetch_add(&sh->done, 1);
        atomic_fetch_add(&sh->bytes, n);
        if (jb->index == 0 && (++mine & 63) == 0)
            progress_update(&sh->pr, atomic_load(&sh->done), atomic_load(&sh->bytes));
    }
    if (!atomic_load(&sh->failed) && rc != 0)
        job_fail(sh, "%s: %s", o->db, db_scan_error(scan));
    free(path);
}

static void *job_main(void *arg)
{
    struct job *jb = arg;
    struct shared *sh = jb->sh;
    struct db_scan *scan = NULL;
    char err[512];   /* SQLite's messages are one short line */
    if (db_scan_open(&scan, sh->o->db, jb->from, jb->to, err, sizeof err) != 0)
        job_fail(sh, "%s: %s", sh->o->db, err);
    else
        job_write(jb, scan);
    db_scan_close(scan);
    return NULL;
}

/* Key range and count, to split the work and show progress. */
static int key_range(struct export_run *r)
{
    char err[512];   /* SQLite's messages are one short line */
    if (db_scan_bounds(r->o->db, &r->lo, &r->hi, &r->count, err, sizeof err) != 0) {
        snprintf(r->err, sizeof r->err, "%s: %s", r->o->db, err);
        return -1;
    }
    return 0;
}

/* Start the jobs (job 0 in this thread when there is only one) and wait
 * for them. Equal key ranges: kvtest keys are dense, so equal work. */
static void run_jobs(struct shared *sh, struct job *jb, pthread_t *th, int64_t jobs,
                     int64_t lo, int64_t span)
{
    int64_t started = 0;
    for (int64_t j = 0; j < jobs; j++) {
        jb[j].sh = sh;
        jb[j].index = (int)j;
        jb[j].from = lo + span / jobs * j + (j < span % jobs ? j : span % jobs);
        jb[j].to = jb[j].from + span / jobs + (j < span % jobs ? 1 : 0) - 1;
        if (j == 0 && jobs == 1) {
            job_main(&jb[0]);
            continue;
        }
        if (pthread_create(&th[j], NULL, job_main, &jb[j]) != 0) {
            job_fail(sh, "%s%s", "cannot start a thread: ", strerror(errno));
            break;
        }
        started = j + 1;
    }
    for (int64_t j = 0; j < started; j++)
        pthread_join(th[j], NULL);
}

int export_jobs_run(struct export_run *r, const char *cmd)
{
    if (key_range(r) != 0)
        return -1;
    struct shared sh;
    memset(&sh, 0, sizeof sh);
    sh.o = r->o;
    sh.build = r->build;
    sh.err = r->err;
    pthread_mutex_init(&sh.err_mu, NULL);
    progress_start(&sh.pr, cmd, r->count);
    int64_t jobs = r->o->jobs;
    if (r->count > 0 && jobs > r->count)
        jobs = r->count;
    struct job *jb = calloc((size_t)jobs, sizeof *jb);
    pthread_t *th = calloc((size_t)jobs, sizeof *th);
    if (!jb || !th)
        job_fail(&sh, "%s%s", "out of memory", "");
    else if (r->count > 0)
        run_jobs(&sh, jb, th, jobs, r->lo, r->hi - r->lo + 1);
    free(jb);
    free(th);
    progress_end(&sh.pr);
    pthread_mutex_destroy(&sh.err_mu);
    r->done = atomic_load(&sh.done);
    r->bytes = atomic_load(&sh.bytes);
    return atomic_load(&sh.failed) ? -1 : 0;
}
