/* init: create DBFILE with kv(k INTEGER PRIMARY KEY, v BLOB), keys 1..N,
 * each blob of a size uniform in [size-variance, size+variance], content
 * pseudo-random per key (same seed, same bytes) and sealed by blobsum so
 * that "run --verify" can check it later.
 *
 * Faster than SQLite's kvtest, which fills the table with randomblob() in
 * one INSERT ... SELECT: our content comes from xoshiro (several GB/s, vs
 * SQLite's ChaCha20 randomness), is generated in a second thread while the
 * first one inserts, and the database is built in a temporary file with no
 * journal and no syncs until the end -- safe because the file only gets
 * its real name (rename) once it is complete and fsynced. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "commands/init.h"
#include "stores/blobsum.h"
#include "base/cli.h"
#include "measure/clock.h"
#include "commands/commands.h"
#include "stores/layout.h"
#include "measure/progress.h"
#include "measure/report.h"
#include "measure/rng.h"
#include "sqlite3.h"
#include "stores/store.h"
#include "base/units.h"
#include "stores/wbuf.h"

/* SQLite's default SQLITE_MAX_LENGTH: no blob may be longer. */
#define INIT_MAX_BLOB 1000000000LL
#define INIT_MAX_COUNT 1000000000LL

const char help_init[] =
    "Usage: kvtest init DBFILE [options]\n"
    "\n"
    "Create DBFILE holding table kv(k INTEGER PRIMARY KEY, v BLOB) with keys\n"
    "1..N and pseudo-random, incompressible blobs; the same --seed gives the\n"
    "same bytes. The last 8 bytes of each blob are a checksum of the rest, so\n"
    "\"kvtest run --verify\" can check content later (the format stays the\n"
    "plain kv table of SQLite's kvtest). The file is built under a temporary\n"
    "name and renamed into place when complete.\n"
    "\n"
    "Options (numbers take K/M/G = x1000 and KiB/MiB/GiB = x1024):\n"
    "  --count N        number of blobs (default 1000)\n"
    "  --size M         mean blob size in bytes (default 10000)\n"
    "  --variance V     sizes uniform in [M-V, M+V] (default 0; V < M)\n"
    "  --pagesize X     database page size, a power of 2 in 512..65536 (default 4096)\n"
    "  --seed S         content seed (default 1)\n"
    "  --force          replace DBFILE even if it is not a kvtest database\n"
    "  --json           print the result as one JSON object\n"
    "\n"
    "An existing kvtest database (an SQLite file with a kv table) is replaced\n"
    "without --force; anything else is refused. Progress (rate, ETA) goes to\n"
    "stderr when it is a terminal.\n"
    "\n"
    "Example: kvtest init x1.db --count 100k --size 10k --variance 2k\n";

void init_defaults(struct init_opts *o)
{
    memset(o, 0, sizeof *o);
    o->count = 1000;
    o->size = 10000;
    o->variance = 0;
    o->pagesize = 4096;
    o->seed = 1;
}

int64_t init_blob_size(const struct init_opts *o, int64_t k)
{
    rng_t r;
    rng_seed(&r, rng_mix(o->seed, (uint64_t)k));
    if (o->variance == 0)
        return o->size;
    return o->size - o->variance + (int64_t)rng_below(&r, (uint64_t)(2 * o->variance + 1));
}

void init_blob_fill(const struct init_opts *o, int64_t k, unsigned char *buf, int64_t n)
{
    rng_t r;
    rng_seed(&r, rng_mix(o->seed, (uint64_t)k));
    if (o->variance)
        (void)rng_below(&r, (uint64_t)(2 * o->variance + 1));   /* the size draw */
    rng_fill(&r, buf, (size_t)n);
    blobsum_seal(buf, (size_t)n);
}

/* --- producer: blobs generated ahead of the inserting thread ----------- */

#define RING 32   /* slots; 32 x (size+variance) bytes of memory */

struct ring {
    const struct init_opts *o;
    unsigned char *slot[RING];
    int64_t len[RING];
    int64_t produced, consumed;   /* keys 1..produced are ready */
    int64_t consumer_need;        /* consumer sleeps until produced >= this */
    int producer_waits, consumer_waits;
    int stop;
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

/* Each side sleeps until the other is half a ring ahead and is woken only
 * then, so a balanced pair does not pay a futex call per blob. */
static void *producer(void *arg)
{
    struct ring *g = arg;
    for (int64_t k = 1; k <= g->o->count; k++) {
        pthread_mutex_lock(&g->mu);
        if (!g->stop && g->produced - g->consumed >= RING) {
            g->producer_waits = 1;
            while (!g->stop && g->produced - g->consumed > RING / 2)
                pthread_cond_wait(&g->cv, &g->mu);
            g->producer_waits = 0;
        }
        int stop = g->stop;
        pthread_mutex_unlock(&g->mu);
        if (stop)
            break;
        int i = (int)(k % RING);
        int64_t n = init_blob_size(g->o, k);
        init_blob_fill(g->o, k, g->slot[i], n);
        g->len[i] = n;
        pthread_mutex_lock(&g->mu);
        g->produced = k;
        if (g->consumer_waits && k >= g->consumer_need)
            pthread_cond_broadcast(&g->cv);
        pthread_mutex_unlock(&g->mu);
    }
    return NULL;
}

/* Consumer side: wait for key k to be ready. */
static void ring_wait(struct ring *g, int64_t k)
{
    pthread_mutex_lock(&g->mu);
    if (g->produced < k) {
        g->consumer_need = k + RING / 2 < g->o->count ? k + RING / 2 : g->o->count;
        g->consumer_waits = 1;
        while (g->produced < g->consumer_need)
            pthread_cond_wait(&g->cv, &g->mu);
        g->consumer_waits = 0;
    }
    pthread_mutex_unlock(&g->mu);
}

/* Consumer side: key k's slot may be reused. */
static void ring_release(struct ring *g, int64_t k)
{
    pthread_mutex_lock(&g->mu);
    g->consumed = k;
    if (g->producer_waits && g->produced - k <= RING / 2)
        pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

/* --- file handling ------------------------------------------------------ */

static void remove_tmp(const char *tmp)
{
    char j[4300];
    unlink(tmp);
    snprintf(j, sizeof j, "%s-journal", tmp);
    unlink(j);
}

static int fsync_path(const char *path, int dir)
{
    int fd = open(path, (dir ? O_RDONLY | O_DIRECTORY : O_RDWR) | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

/* Refuse to clobber anything but a kvtest database (unless --force). */
static int check_target(const struct init_opts *o, const char *cmd)
{
    struct stat st;
    if (stat(o->path, &st) != 0) {
        if (errno == ENOENT)
            return 0;
        return cli_fail(cmd, "%s: %s", o->path, strerror(errno));
    }
    if (S_ISDIR(st.st_mode))
        return cli_fail(cmd, "%s: is a directory, not a database file", o->path);
    if (!S_ISREG(st.st_mode))
        return cli_fail(cmd, "%s: not a regular file", o->path);
    if (o->force)
        return 0;
    char why[512];
    if (layout_detect(o->path, why, sizeof why) != LAYOUT_DB || st.st_size == 0 ||
        store_db_check(o->path, why, sizeof why) != 0)
        return cli_fail(cmd, "refusing to overwrite %s: not a kvtest database (%s); "
                        "use --force to replace it", o->path,
                        st.st_size == 0 ? "empty file" : why);
    return 0;
}

static void dir_of(const char *path, char *dir, size_t cap)
{
    snprintf(dir, cap, "%s", path);
    char *s = strrchr(dir, '/');
    if (!s)
        snprintf(dir, cap, ".");
    else if (s == dir)
        s[1] = '\0';
    else
        *s = '\0';
}

/* The original program's method, kept (hidden option --method randomblob)
 * so the speed of ours can be compared against it in one binary. */
static int fill_randomblob(sqlite3 *db, const struct init_opts *o)
{
    char *sql = sqlite3_mprintf(
        "PRAGMA page_size=%lld;"
        "VACUUM;"
        "BEGIN;"
        "CREATE TABLE kv(k INTEGER PRIMARY KEY, v BLOB);"
        "WITH RECURSIVE c(x) AS (VALUES(1) UNION ALL SELECT x+1 FROM c WHERE x<%lld)"
        " INSERT INTO kv(k,v) SELECT x, randomblob(%lld+(random()%%(%lld))) FROM c;"
        "COMMIT;",
        (long long)o->pagesize, (long long)o->count, (long long)o->size,
        (long long)o->variance + 1);
    int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    sqlite3_free(sql);
    return rc;
}

static int fill_fast(sqlite3 *db, const struct init_opts *o, const char *cmd, int64_t *bytes)
{
    char sql[256];
    snprintf(sql, sizeof sql,
             "PRAGMA page_size=%lld; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
             "PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-65536;"
             "CREATE TABLE kv(k INTEGER PRIMARY KEY, v BLOB); BEGIN;",
             (long long)o->pagesize);
    int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        return rc;
    sqlite3_stmt *st = NULL;
    rc = sqlite3_prepare_v2(db, "INSERT INTO kv(k,v) VALUES(?1,?2)", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return rc;

    struct ring g;
    memset(&g, 0, sizeof g);
    g.o = o;
    pthread_mutex_init(&g.mu, NULL);
    pthread_cond_init(&g.cv, NULL);
    int64_t maxlen = o->size + o->variance;
    for (int i = 0; i < RING; i++)
        if (!(g.slot[i] = malloc((size_t)maxlen))) {
            for (int j = 0; j < i; j++)
                free(g.slot[j]);
            sqlite3_finalize(st);
            return SQLITE_NOMEM;
        }
    pthread_t th;
    int threaded = pthread_create(&th, NULL, producer, &g) == 0;

    struct progress pr;
    progress_start(&pr, cmd, o->count);
    unsigned char *own = threaded ? NULL : g.slot[0];
    int64_t committed = 0;
    for (int64_t k = 1; k <= o->count && rc == SQLITE_OK; k++) {
        const unsigned char *blob;
        int64_t n;
        int i = (int)(k % RING);
        if (threaded) {
            ring_wait(&g, k);
            blob = g.slot[i];
            n = g.len[i];
        } else {
            n = init_blob_size(o, k);
            init_blob_fill(o, k, own, n);
            blob = own;
        }
        sqlite3_bind_int64(st, 1, k);
        sqlite3_bind_blob64(st, 2, blob, (sqlite3_uint64)n, SQLITE_STATIC);
        rc = sqlite3_step(st);
        sqlite3_reset(st);
        if (rc == SQLITE_DONE)
            rc = SQLITE_OK;
        *bytes += n;
        /* Commit every 32 MB: a commit writes the dirty pages sorted by
         * page number, i.e. in long contiguous runs that the wbuf shim turns
         * into 1 MiB writes; letting the page cache spill instead writes
         * single pages in LRU order. No journal, so a commit costs nothing
         * else. */
        if (rc == SQLITE_OK && *bytes - committed >= 32000000) {
            rc = sqlite3_exec(db, "COMMIT; BEGIN", NULL, NULL, NULL);
            committed = *bytes;
        }
        if (threaded)
            ring_release(&g, k);
        if ((k & 63) == 0)
            progress_update(&pr, k, *bytes);
    }
    progress_end(&pr);
    if (threaded) {
        pthread_mutex_lock(&g.mu);
        g.stop = 1;
        pthread_cond_broadcast(&g.cv);
        pthread_mutex_unlock(&g.mu);
        pthread_join(th, NULL);
    }
    for (int i = 0; i < RING; i++)
        free(g.slot[i]);
    pthread_mutex_destroy(&g.mu);
    pthread_cond_destroy(&g.cv);
    sqlite3_finalize(st);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    return rc;
}

static int init_validate(const struct init_opts *o, const char *cmd)
{
    if (!o->path || !*o->path)
        return cli_usage(cmd, "missing DBFILE");
    if (o->count < 1 || o->count > INIT_MAX_COUNT)
        return cli_usage(cmd, "--count must be between 1 and %lld, got %lld",
                         (long long)INIT_MAX_COUNT, (long long)o->count);
    if (o->size < 1 || o->size > INIT_MAX_BLOB)
        return cli_usage(cmd, "--size must be between 1 and %lld (SQLite's largest blob), got %lld",
                         (long long)INIT_MAX_BLOB, (long long)o->size);
    if (o->variance < 0 || o->variance >= o->size)
        return cli_usage(cmd, "--variance must be smaller than --size (%lld), got %lld",
                         (long long)o->size, (long long)o->variance);
    if (o->size + o->variance > INIT_MAX_BLOB)
        return cli_usage(cmd, "--size plus --variance exceeds %lld (SQLite's largest blob)",
                         (long long)INIT_MAX_BLOB);
    if (o->pagesize < 512 || o->pagesize > 65536 || (o->pagesize & (o->pagesize - 1)))
        return cli_usage(cmd, "--pagesize must be a power of 2 between 512 and 65536, got %lld",
                         (long long)o->pagesize);
    return 0;
}

static int init_run(const struct init_opts *o, const char *cmd, int randomblob)
{
    int rc = init_validate(o, cmd);
    if (rc)
        return rc;
    if ((rc = check_target(o, cmd)) != 0)
        return rc;

    char dir[4096];
    dir_of(o->path, dir, sizeof dir);
    char tmp[4200];
    int n = snprintf(tmp, sizeof tmp, "%s.kvtest-tmp-XXXXXX", o->path);
    if (n < 0 || (size_t)n >= sizeof tmp)
        return cli_usage(cmd, "path too long: %s", o->path);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return cli_fail(cmd, "cannot create a file in %s: %s", dir, strerror(errno));
    struct statvfs vf;
    /* Blobs plus B-tree overhead (about 1% at 4 KiB pages, more for small
     * blobs): refuse up front rather than die half-way. */
    double need = (double)o->count * ((double)o->size + 64.0) * 1.02;
    if (fstatvfs(fd, &vf) == 0 && (double)vf.f_bavail * (double)vf.f_frsize < need) {
        char a[32], b[32];
        units_format_bytes(a, sizeof a, (int64_t)need);
        units_format_bytes(b, sizeof b, (int64_t)((double)vf.f_bavail * (double)vf.f_frsize));
        close(fd);
        remove_tmp(tmp);
        return cli_fail(cmd, "%s: not enough space: about %s needed, %s available", dir, a, b);
    }

    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    close(fd);

    uint64_t t0 = clock_now_ns();
    sqlite3 *db = NULL;
    int64_t bytes = 0;
    /* Our method writes through the coalescing shim; the randomblob
     * baseline runs exactly as SQLite's kvtest does, on the default VFS. */
    rc = sqlite3_open_v2(tmp, &db, SQLITE_OPEN_READWRITE, randomblob ? NULL : wbuf_vfs_name());
    if (rc == SQLITE_OK)
        rc = randomblob ? fill_randomblob(db, o) : fill_fast(db, o, cmd, &bytes);
    if (rc != SQLITE_OK) {
        int e = wbuf_last_errno() ? wbuf_last_errno() : db ? sqlite3_system_errno(db) : 0;
        int ret = cli_fail(cmd, "%s: %s%s%s", o->path, db ? sqlite3_errmsg(db) : "out of memory",
                           e ? ": " : "", e ? strerror(e) : "");
        sqlite3_close_v2(db);
        remove_tmp(tmp);
        return ret;
    }
    if (sqlite3_close(db) != SQLITE_OK) {
        int ret = cli_fail(cmd, "%s: %s", o->path, sqlite3_errmsg(db));
        sqlite3_close_v2(db);
        remove_tmp(tmp);
        return ret;
    }
    /* A -wal/-journal left by the database being replaced would be
     * replayed into the new one: they belong to the old file, drop them. */
    static const char *const sidecars[] = {"-wal", "-shm", "-journal"};
    for (int i = 0; i < 3; i++) {
        char side[4200];
        snprintf(side, sizeof side, "%s%s", o->path, sidecars[i]);
        unlink(side);
    }
    if (fsync_path(tmp, 0) != 0 || rename(tmp, o->path) != 0) {
        int ret = cli_fail(cmd, "%s: %s", o->path, strerror(errno));
        remove_tmp(tmp);
        return ret;
    }
    fsync_path(dir, 1);
    double secs = (double)(clock_now_ns() - t0) / 1e9;
    if (randomblob)
        bytes = -1;   /* not tracked; "stat" tells */

    if (o->quiet)
        return 0;
    if (o->json) {
        cJSON *j = report_json_new("init", o->path);
        cJSON *op = cJSON_AddObjectToObject(j, "options");
        cJSON_AddNumberToObject(op, "count", (double)o->count);
        cJSON_AddNumberToObject(op, "size", (double)o->size);
        cJSON_AddNumberToObject(op, "variance", (double)o->variance);
        cJSON_AddNumberToObject(op, "pagesize", (double)o->pagesize);
        cJSON_AddNumberToObject(op, "seed", (double)o->seed);
        cJSON_AddStringToObject(op, "method", randomblob ? "randomblob" : "kvtest");
        cJSON *r = cJSON_AddObjectToObject(j, "result");
        cJSON_AddNumberToObject(r, "count", (double)o->count);
        if (bytes >= 0)
            cJSON_AddNumberToObject(r, "bytes", (double)bytes);
        cJSON_AddNumberToObject(r, "seconds", secs);
        report_json_print(j);
    } else if (bytes >= 0) {
        printf("Created %s: %lld blobs, %lld bytes in %.3f s\n", o->path, (long long)o->count,
               (long long)bytes, secs);
    } else {
        printf("Created %s: %lld blobs (randomblob) in %.3f s\n", o->path,
               (long long)o->count, secs);
    }
    return 0;
}

int init_create(const struct init_opts *o, const char *cmd)
{
    return init_run(o, cmd, 0);
}

int cmd_init(int argc, char **argv)
{
    struct init_opts o;
    init_defaults(&o);
    const char *method = "kvtest";
    int64_t seed = 1;
    const struct cli_opt opts[] = {
        {"count", CLI_INT, &o.count, 1, INIT_MAX_COUNT, 0, 0},
        {"size", CLI_INT, &o.size, 1, INIT_MAX_BLOB, 0, 0},
        {"variance", CLI_INT, &o.variance, 0, INIT_MAX_BLOB, 0, 0},
        {"pagesize", CLI_INT, &o.pagesize, 0, INT64_MAX, 0, 0},
        {"seed", CLI_INT, &seed, 0, INT64_MAX, 0, 0},
        {"force", CLI_FLAG, &o.force, 0, 0, 0, 0},
        {"json", CLI_FLAG, &o.json, 0, 0, 0, 0},
        {"method", CLI_STR, &method, 0, 0, 0, 0},   /* hidden: benchmark baseline */
    };
    const char *pos[1];
    int npos;
    int rc = cli_parse("init", argc, argv, opts, (int)(sizeof opts / sizeof opts[0]), pos, 1, &npos);
    if (rc)
        return rc;
    if (npos < 1)
        return cli_usage("init", "missing DBFILE (usage: kvtest init DBFILE [options])");
    o.path = pos[0];
    o.seed = (uint64_t)seed;
    if (strcmp(method, "kvtest") != 0 && strcmp(method, "randomblob") != 0)
        return cli_usage("init", "--method must be kvtest or randomblob, got '%s'", method);
    return init_run(&o, "init", strcmp(method, "randomblob") == 0);
}
