/* links_sqlite_create: build an SQLite links database (links.h,
 * links_create_db_opts).
 *
 * Why the covering schema is a WITHOUT ROWID table and not a covering
 * index: measured here on 100k links (kvtest shortener bench, sqlite row,
 * 200k lookups x 3), the seed schema did 216-229k lookups/s (p50 2.8 us);
 * the seed table plus an index on (link_hash, link_target) did no better
 * (202-291k/s, p50 2.7-2.8 us) because the planner keeps using the UNIQUE
 * index on link_hash for an equality lookup (reaching the covering index
 * needs INDEXED BY, or dropping UNIQUE, which the collision retry of new
 * ids relies on), and it made the file 1.8x larger (21 MB vs 12 MB); the
 * WITHOUT ROWID table keyed by link_hash did 251-355k/s (p50 2.0 us) at
 * 12.9 MB: one B-tree descent ends at the URL, and the primary key still
 * refuses a duplicate id. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/aside.h"
#include "measure/progress.h"
#include "shortener/store/links_sqlite_int.h"
#include "shortener/store/urlgen.h"

/* Copy every link of the SQLite database from into l (inside l's open
 * transaction). */
static int copy_links(struct links_sqlite *l, const char *from, int64_t *copied)
{
    sqlite3_stmt *q = NULL;
    int rc = sqlite3_prepare_v2(l->db, "ATTACH ?1 AS src", -1, &q, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(q, 1, from, -1, SQLITE_STATIC);
        rc = sqlite3_step(q);
    }
    sqlite3_finalize(q);
    /* Same ids, URLs, times and order (id), whatever either schema. */
    if (rc != SQLITE_DONE ||
        sqlite3_exec(l->db, "INSERT INTO main.links(id, link_hash, link_target, created_at) "
                            "SELECT id, link_hash, link_target, created_at FROM src.links "
                            "ORDER BY id", NULL, NULL, NULL) != SQLITE_OK) {
        snprintf(l->base.err, sizeof l->base.err, "copying from %.200s: %s", from,
                 sqlite3_errmsg(l->db));
        return -1;
    }
    *copied = sqlite3_changes64(l->db);
    return 0;
}

/* Before creating anything: a target that may be written (links_open.c
 * has checked --from). 0, or ERRBUF_FAIL / ERRBUF_MISUSE with the reason
 * in err. */
static int check_target(const char *path, const struct links_create_opts *o, char *err,
                        size_t errcap)
{
    struct stat sb;
    if (stat(path, &sb) == 0) {
        if (S_ISDIR(sb.st_mode)) {
            snprintf(err, errcap, "%s: is a directory", path);
            return ERRBUF_FAIL;
        }
        if (sb.st_size > 0 && !o->force) {
            snprintf(err, errcap, "%s: file exists (use --force to replace it)", path);
            return ERRBUF_FAIL;
        }
    } else if (errno != ENOENT) {
        snprintf(err, errcap, "%s: %s", path, strerror(errno));
        return ERRBUF_FAIL;
    }
    if (strlen(path) > 4000) {
        snprintf(err, errcap, "path too long");
        return ERRBUF_MISUSE;
    }
    return 0;
}

/* Schema, then the copied or generated links, in one transaction.
 * 0, or 1 with the reason in l->err. */
static int fill(struct links_sqlite *l, const struct links_create_opts *o, const char *from,
                int64_t *copied)
{
    unsigned char pool[4096];
    size_t pos = sizeof pool;
    char *url = malloc(LINKS_URL_MAX + 1);
    if (!url) {
        snprintf(l->base.err, sizeof l->base.err, "out of memory");
        return 1;
    }
    l->base.schema = o->schema;
    int bad = links_sqlite_configure(l, 1) != 0 ||
              links_sqlite_exec(l, o->schema == LINKS_SCHEMA_COVERING ? LINKS_SQL_COVERING
                                                                      : LINKS_SQL_SEED) != 0 ||
              links_sqlite_prepare(l) != 0 || links_sqlite_exec(l, "BEGIN") != 0;
    if (!bad && from && copy_links(l, from, copied) != 0)
        bad = 1;
    int64_t now = (int64_t)time(NULL), bytes = 0;
    char id[LINKS_ID_LEN + 1];
    struct progress pr;
    progress_start(&pr, "shortener init", o->n);
    pr.unit = "links";
    pr.on = pr.on && o->progress && !from;
    for (int64_t k = 0; !bad && !from && k < o->n; k++) {
        size_t len = urlgen_sample(o->seed, (uint64_t)k, url, LINKS_URL_MAX + 1);
        if (links_sqlite_insert(l, url, len, now, id, pool, sizeof pool, &pos) != LINKS_OK)
            bad = 1;
        bytes += (int64_t)len + LINKS_ID_LEN;
        progress_update(&pr, k + 1, bytes);
    }
    progress_end(&pr);
    if (!bad && links_sqlite_exec(l, "COMMIT") != 0)
        bad = 1;
    if (!bad && !from)
        *copied = o->n;
    free(url);
    memset(pool, 0, sizeof pool);
    return bad;
}

/* The links sit in the WAL until a checkpoint copies them into the file,
 * and only the file is renamed into place. Closing checkpoints too, but
 * says nothing when that fails (out of memory, a write refused): the
 * renamed file then lacked what the WAL held, and init said it was done
 * (a failed write in a sweep left a malformed database behind an exit 0).
 * So the checkpoint is made here, and must take in every frame. 0, or 1
 * with the reason in l->err. */
static int checkpoint(struct links_sqlite *l)
{
    int log = -1, done = -1;
    int rc = sqlite3_wal_checkpoint_v2(l->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, &log, &done);
    if (rc == SQLITE_OK && log == done)
        return 0;
    snprintf(l->base.err, sizeof l->base.err, "checkpoint: %s",
             rc != SQLITE_OK ? sqlite3_errmsg(l->db) : "not every frame was copied");
    return 1;
}

int links_sqlite_create_db(const char *path, const struct links_create_opts *o,
                           const char *from, int64_t *copied, char *err, size_t errcap)
{
    int rc = check_target(path, o, err, errcap);
    if (rc)
        return rc;
    /* Built under a temporary name beside the target (base/aside.h), then
     * renamed: a failure, a Ctrl-C or SIGTERM (with cleanup watching) never
     * leaves a half-filled database at path nor the temporary. */
    struct aside t;
    if (aside_create(&t, path, ASIDE_SIBLING, ASIDE_SQLITE, 0666) != 0) {
        snprintf(err, errcap, "%s: %s", t.path, strerror(errno));
        return ERRBUF_FAIL;
    }
    struct links_sqlite *l = links_sqlite_new(t.path, SQLITE_OPEN_READWRITE, NULL, err, errcap);
    if (!l) {
        aside_discard(&t);
        return ERRBUF_FAIL;
    }
    int bad = fill(l, o, from, copied) || checkpoint(l);
    if (bad)
        snprintf(err, errcap, "%s: %s", path, l->base.err);
    links_close(&l->base);   /* last connection: removes the emptied WAL */
    if (bad) {
        aside_discard(&t);
        return ERRBUF_FAIL;
    }
    if (aside_commit(&t) != 0) {
        snprintf(err, errcap, "%s: %s", path, strerror(errno));
        return ERRBUF_FAIL;
    }
    return 0;
}
