/* sweep_files: DIR may hold the user's own files (with --force), so sweep
 * checks up front that none of the names it will create exist, and deletes
 * only those names afterwards: the database (and the -wal/-shm/-journal
 * SQLite makes beside it; one per page size), the export's files by key,
 * each key-value store's files by the names its engine gives them, then
 * the emptied export and store directories and, if sweep made it, DIR
 * itself, all with rmdir so anything else stays. */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "base/aside.h"
#include "base/cli.h"
#include "base/units.h"
#include "commands/sweep/sweep_int.h"
#include "stores/layout.h"

int sweep_has_store(const struct sweep_opts *o, enum sweep_store s)
{
    for (int i = 0; i < o->nstores; i++)
        if (o->stores[i] == s)
            return 1;
    return 0;
}

int sweep_default_stores(const struct sweep_opts *o)
{
    return o->nstores == 1 && o->stores[0] == SWEEP_STORE_FILES;
}

int sweep_names_make(struct sweep_names *nm, const struct sweep_opts *o, int64_t size)
{
    const char *dir = o->dir;
    int npages = o->npages;
    if (npages < 1 || npages > SWEEP_MAX_PAGES)
        return -1;
    memset(nm->made, 0, sizeof nm->made);
    nm->ndb = npages;
    for (int p = 0; p < npages; p++) {
        int a = npages == 1
            ? snprintf(nm->db[p], sizeof nm->db[p], "%s/sweep-%" PRId64 ".db", dir, size)
            : snprintf(nm->db[p], sizeof nm->db[p], "%s/sweep-%" PRId64 "-p%" PRId64 ".db",
                       dir, size, o->pages[p]);
        /* Room for the -journal suffix. */
        if (a < 0 || (size_t)a + 9 >= sizeof nm->db[p])
            return -1;
    }
    /* The stores are named whether timed or not (the guard's message
     * prints names), but made[] says which ones are sweep's. */
    for (int s = 0; s < SWEEP_NSTORES; s++) {
        int b = s == SWEEP_STORE_FILES
            ? snprintf(nm->st[s], sizeof nm->st[s], "%s/sweep-%" PRId64, dir, size)
            : snprintf(nm->st[s], sizeof nm->st[s], "%s/sweep-%" PRId64 ".%s", dir, size,
                       sweep_store_name((enum sweep_store)s));
        /* Room for a file name inside: a key (000001) in the export, an
         * engine's name (MANIFEST-000005) in a store. */
        if (b < 0 || (size_t)b + (s == SWEEP_STORE_FILES ? 8 : 32) >= sizeof nm->st[s])
            return -1;
        nm->made[s] = sweep_has_store(o, (enum sweep_store)s);
    }
    return 0;
}

static const char *const db_suffixes[] = {"", "-wal", "-shm", "-journal"};
#define NSUFFIXES (sizeof db_suffixes / sizeof db_suffixes[0])

/* init builds the database aside, in "DB.kvtest-tmp-XXXXXX" (and its
 * -journal) beside DB, then renames it (base/aside.h). Calls fn on each such file in DIR (or only
 * counts them when fn is NULL); the last name found is left in buf. */
static int for_each_tmp(const char *db, char *buf, size_t cap,
                        void (*fn)(const char *path))
{
    const char *slash = strrchr(db, '/');
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - db), db);
    char prefix[300];
    snprintf(prefix, sizeof prefix, "%s" ASIDE_INFIX, slash + 1);
    size_t plen = strlen(prefix);
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, prefix, plen) != 0)
            continue;
        if (snprintf(buf, cap, "%s/%s", dir, e->d_name) >= (int)cap)
            continue;
        n++;
        if (fn)
            fn(buf);
    }
    closedir(d);
    return n;
}

static void unlink_quiet(const char *path)
{
    unlink(path);
}

int sweep_names_taken(const struct sweep_names *nm, char *buf, size_t cap)
{
    struct stat sb;
    for (int p = 0; p < nm->ndb; p++) {
        for (size_t i = 0; i < NSUFFIXES; i++) {
            snprintf(buf, cap, "%s%s", nm->db[p], db_suffixes[i]);
            if (lstat(buf, &sb) == 0)
                return 1;
        }
        if (for_each_tmp(nm->db[p], buf, cap, NULL) > 0)
            return 1;
    }
    for (int s = 0; s < SWEEP_NSTORES; s++) {
        if (!nm->made[s])
            continue;
        snprintf(buf, cap, "%s", nm->st[s]);
        if (lstat(buf, &sb) == 0)
            return 1;
    }
    return 0;
}

void sweep_names_remove_db(const struct sweep_names *nm, int p, int quiet)
{
    char path[PATH_MAX + 16];
    for_each_tmp(nm->db[p], path, sizeof path, unlink_quiet);
    for (size_t i = 0; i < NSUFFIXES; i++) {
        snprintf(path, sizeof path, "%s%s", nm->db[p], db_suffixes[i]);
        if (unlink(path) != 0 && errno != ENOENT && !quiet)
            cli_warn("sweep", "could not remove %s: %s", path, strerror(errno));
    }
}

/* The file names LMDB and RocksDB make in a store's directory (RocksDB:
 * its CURRENT/IDENTITY/LOCK, info logs, manifests, options files, table
 * files, write-ahead logs, blob files and their temporaries). A store's
 * directory is sweep's, but only these names are the engine's: anything
 * else in it stays, and so does the directory. */
static const char *const kv_names[SWEEP_NSTORES][12] = {
    [SWEEP_STORE_LMDB] = {"data.mdb", "lock.mdb", NULL},
    [SWEEP_STORE_ROCKSDB] = {"CURRENT", "IDENTITY", "LOCK", "LOG", "LOG.old.*", "MANIFEST-*",
                             "OPTIONS-*", "*.sst", "*.log", "*.blob", "*.dbtmp", NULL},
};

static int kv_name(enum sweep_store s, const char *name)
{
    for (int i = 0; kv_names[s][i]; i++)
        if (fnmatch(kv_names[s][i], name, FNM_PERIOD) == 0)
            return 1;
    return 0;
}

/* Remove the engine's files of store s, then its directory. */
static void remove_kv(const char *dir, enum sweep_store s, int quiet)
{
    DIR *d = opendir(dir);
    if (!d) {
        if (errno != ENOENT && !quiet)
            cli_warn("sweep", "could not remove %s: %s", dir, strerror(errno));
        return;
    }
    char p[PATH_MAX + 300];
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!kv_name(s, e->d_name) ||
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name) >= (int)sizeof p)
            continue;
        if (unlink(p) != 0 && errno != ENOENT && !quiet)
            cli_warn("sweep", "could not remove %s: %s", p, strerror(errno));
    }
    closedir(d);
    if (rmdir(dir) != 0 && errno != ENOENT && !quiet)
        cli_warn("sweep", "could not remove %s: %s", dir, strerror(errno));
}

int sweep_names_remove(const struct sweep_names *nm, int64_t count, int quiet)
{
    char p[PATH_MAX + 16];
    for (int d = 0; d < nm->ndb; d++)
        sweep_names_remove_db(nm, d, quiet);
    struct stat sb;
    const char *exp = nm->st[SWEEP_STORE_FILES];
    if (nm->made[SWEEP_STORE_FILES] && lstat(exp, &sb) == 0) {
        for (int64_t k = 1; k <= count; k++) {
            if (layout_path(p, sizeof p, exp, 0, k) < 0)
                continue;
            if (unlink(p) != 0 && errno != ENOENT && !quiet)
                cli_warn("sweep", "could not remove %s: %s", p, strerror(errno));
        }
        if (rmdir(exp) != 0 && !quiet)
            cli_warn("sweep", "could not remove %s: %s", exp, strerror(errno));
    }
    for (int s = 0; s < SWEEP_NSTORES; s++)
        if (s != SWEEP_STORE_FILES && nm->made[s])
            remove_kv(nm->st[s], (enum sweep_store)s, quiet);
    return sweep_names_taken(nm, p, sizeof p);
}

static int dir_is_empty(const char *dir, int *empty)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *e;
    *empty = 1;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            *empty = 0;
            break;
        }
    closedir(d);
    return 0;
}

int sweep_dir_prepare(const char *dir, int force, int *made)
{
    *made = 0;
    struct stat sb;
    if (stat(dir, &sb) != 0) {
        if (errno != ENOENT)
            return cli_fail("sweep", "%s: %s", dir, strerror(errno));
        if (mkdir(dir, 0777) != 0)
            return cli_fail("sweep", "cannot create %s: %s", dir, strerror(errno));
        *made = 1;
    } else if (!S_ISDIR(sb.st_mode)) {
        return cli_usage("sweep", "%s: not a directory", dir);
    } else {
        int empty;
        if (dir_is_empty(dir, &empty) != 0)
            return cli_fail("sweep", "%s: %s", dir, strerror(errno));
        if (!empty && !force)
            return cli_fail("sweep", "%s is not empty (use --force to sweep inside it; "
                            "sweep deletes only what it creates)", dir);
    }
    return 0;
}

int sweep_check_space(const char *dir, int64_t need)
{
    struct statvfs vf;
    if (statvfs(dir, &vf) != 0)
        return 0;   /* cannot tell: the writes themselves will report it */
    double avail = (double)vf.f_bavail * (double)vf.f_frsize;
    if (avail < (double)need) {
        char a[32], b[32];
        units_format_bytes(a, sizeof a, need);
        units_format_bytes(b, sizeof b, (int64_t)avail);
        return cli_fail("sweep", "%s: not enough free space (about %s needed, %s free)",
                        dir, a, b);
    }
    return 0;
}

/* Run by the cleanup watcher while the sweep's threads keep running: a
 * writer may create a file just after a pass, so repeat until two passes
 * in a row find nothing. */
void sweep_guard_run(void *arg, char *msg, size_t cap)
{
    struct sweep_guard *g = arg;
    if (g->active) {
        int clean = 0;
        for (int i = 0; i < 500 && clean < 2; i++) {
            clean = sweep_names_remove(&g->nm, g->count, 1) ? 0 : clean + 1;
            struct timespec ts = {0, 10 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
        /* The first store sweep made beside the databases: the export
         * by default, as before --stores existed. */
        int s = 0;
        while (s < SWEEP_NSTORES - 1 && !g->nm.made[s])
            s++;
        if (clean < 2)
            snprintf(msg, cap, "could not remove all of %s and %s", g->nm.db[0], g->nm.st[s]);
    }
    if (g->made_dir)
        rmdir(g->dir);   /* only if empty: --keep'd sizes stay */
}
