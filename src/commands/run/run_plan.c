/* run_plan: everything "kvtest run" settles before it times anything --
 * option checks, what PATH is, the key range and its holes, how the store
 * is opened, whether content can be verified, and the database's facts for
 * the result lines (see run_int.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "commands/run/run_int.h"
#include "base/cli.h"
#include "base/os.h"
#include "measure/keys/order.h"
#include "stores/blobsum.h"
#include "stores/store.h"
#include "stores/kv/store_kv.h"

static int in_list(const char *m, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcasecmp(m, list[i]) == 0)
            return (int)i + 1;
    return 0;
}

static int validate_pragmas(const struct run_opts *o, const char *cmd)
{
    static const char *const syncs[] = {"off", "normal", "full", "extra"};
    static const char *const jmodes[] = {"delete", "truncate", "persist", "memory", "wal", "off"};
    if (o->synchronous) {
        int i = in_list(o->synchronous, syncs, 4);
        if (i == 0)
            return cli_usage(cmd, "--synchronous must be one of off, normal, full, extra; got '%s'",
                             o->synchronous);
        if (o->nosync && i != 1)
            return cli_usage(cmd, "options --nosync and --synchronous %s conflict", o->synchronous);
    }
    if (o->jmode && !in_list(o->jmode, jmodes, 6))
        return cli_usage(cmd, "--jmode must be one of delete, truncate, persist, memory, wal, "
                         "off; got '%s'", o->jmode);
    return 0;
}

static int validate(const struct run_opts *o, const char *cmd)
{
    if (!o->path || !*o->path)
        return cli_usage(cmd, "missing PATH");
    if (o->count < 1)
        return cli_usage(cmd, "--count must be at least 1");
    if (o->max_id < 0 || o->start < 0 || o->cache_size < -1000000000LL ||
        o->cache_size > 1000000000LL || o->mmap < 0)
        return cli_usage(cmd, "negative --max-id, --start or --mmap");
    if (o->repeat < 1 || o->repeat > 10000 || o->warmup < 0 || o->warmup > 10000)
        return cli_usage(cmd, "--repeat must be in 1..10000 and --warmup in 0..10000");
    if (o->threads < 1 || o->threads > 256)
        return cli_usage(cmd, "--threads must be between 1 and 256");
    if (o->update && o->threads > 1)
        return cli_usage(cmd, "--update with --threads %lld: concurrent writers are not "
                         "supported (use --threads 1)", (long long)o->threads);
    if (o->order == ORDER_ZIPF && !(o->zipf > 0))
        return cli_usage(cmd, "--zipf needs an exponent greater than 0");
    int rc = validate_pragmas(o, cmd);
    if (rc)
        return rc;
    if (o->fadvise < -1 || o->fadvise > 1)
        return cli_usage(cmd, "--fadvise must be random or normal");
    /* Platform facilities (base/os.h): refused up front, never skipped. */
    const char *missing;
    if (o->cold && (missing = coldcache_missing()) != NULL)
        return cli_usage(cmd, "--cold is not available here: %s", missing);
    if (o->fadvise >= 0 && (missing = os_readahead_missing()) != NULL)
        return cli_usage(cmd, "--fadvise is not available here: %s", missing);
    if (o->stats && !o->quiet && (missing = os_io_counters_missing()) != NULL)
        cli_warn(cmd, "--stats: no storage I/O counters (%s); SQLite counters only", missing);
    return 0;
}

struct option_given {
    int on;
    const char *name;
};

/* The names of the options of opts[0..n) that were given, space-separated,
 * into given ("" when none was). */
static void options_given(const struct option_given *opts, size_t n, char *given, size_t cap)
{
    given[0] = '\0';
    for (size_t i = 0; i < n; i++)
        if (opts[i].on)
            snprintf(given + strlen(given), cap - strlen(given), "%s%s", given[0] ? " " : "",
                     opts[i].name);
}

/* A directory: database options are ignored, as SQLite's kvtest does, so
 * one command line can drive every layout; but said, so nobody thinks it
 * mattered. 0, or 1 after printing the error. */
static int check_directory(const struct run_opts *o, enum layout_kind kind, const char *cmd)
{
    char given[160];
    const struct option_given dbonly[] = {
        {o->blob_api, "--blob-api"}, {o->jmode != NULL, "--jmode"}, {o->mmap != 0, "--mmap"},
        {o->nosync, "--nosync"}, {o->synchronous != NULL, "--synchronous"},
        {o->nocheckpoint, "--nocheckpoint"},
        {o->multitrans, "--multitrans"}, {o->integrity_check, "--integrity-check"}};
    options_given(dbonly, sizeof dbonly / sizeof dbonly[0], given, sizeof given);
    if (given[0] && !o->quiet)
        cli_warn(cmd, "%s: database option(s) ignored for a %s directory", given,
                 layout_kind_name(kind));
    if (o->update && access(o->path, W_OK) != 0)
        return cli_fail(cmd, "%s: %s", o->path, strerror(errno));
    return 0;
}

/* An LMDB or RocksDB store: --nosync and --multitrans mean what they mean
 * for the database (store_kv.h), the other database options and --fsync
 * have nothing to act on, and --block-cache is RocksDB's alone. 0, or 1/2
 * after the error. */
static int check_kv(const struct run_opts *o, enum layout_kind kind, const char *cmd)
{
    const char *missing = store_kv_missing(kind);
    if (missing)
        return cli_usage(cmd, "%s", missing);
    char given[160];
    const struct option_given ignored[] = {
        {o->blob_api, "--blob-api"}, {o->jmode != NULL, "--jmode"}, {o->mmap != 0, "--mmap"},
        {o->synchronous != NULL, "--synchronous"}, {o->nocheckpoint, "--nocheckpoint"},
        {o->integrity_check, "--integrity-check"}, {o->fsync, "--fsync"}};
    options_given(ignored, sizeof ignored / sizeof ignored[0], given, sizeof given);
    if (given[0] && !o->quiet)
        cli_warn(cmd, "%s: option(s) ignored for the %s store", given, layout_kind_name(kind));
    if (o->block_cache && kind != LAYOUT_ROCKSDB)
        return cli_usage(cmd, "--block-cache applies to a RocksDB store");
    if (o->update && access(layout_fs_path(o->path), W_OK) != 0)
        return cli_fail(cmd, "%s: %s", layout_fs_path(o->path), strerror(errno));
    return 0;
}

/* What PATH is, checked as far as is cheap. 0, or 1 after the error. */
static int detect(struct run_plan *p, const char *cmd)
{
    const struct run_opts *o = p->o;
    char why[1024];
    /* A store this build lacks is misuse, whether or not its path exists. */
    const char *missing = store_kv_missing(layout_prefix_kind(o->path));
    if (layout_prefix_kind(o->path) != LAYOUT_MISSING && missing)
        return cli_usage(cmd, "%s", missing);
    p->kind = layout_detect(o->path, why, sizeof why);
    if (p->kind == LAYOUT_MISSING || p->kind == LAYOUT_OTHER)
        return cli_fail(cmd, "%s", why);
    p->is_db = p->kind == LAYOUT_DB;
    if (layout_is_kv(p->kind))
        return check_kv(o, p->kind, cmd);
    if (o->block_cache)
        return cli_usage(cmd, "--block-cache applies to a RocksDB store");
    if (!p->is_db)
        return check_directory(o, p->kind, cmd);
    if (store_db_check(o->path, why, sizeof why) != 0)
        return cli_fail(cmd, "%s", why);
    store_db_recover(o->path);
    return 0;
}

/* The key range, and the keys an export lacks in it: never measure an
 * incomplete export without saying so. 0, or 1/2 after the error. */
static int key_range(struct run_plan *p, const char *cmd)
{
    const struct run_opts *o = p->o;
    char why[1024];
    p->max_id = o->max_id;
    if (p->max_id == 0) {
        p->max_id = store_max_key(o->path, p->kind, why, sizeof why);
        if (p->max_id < 0)
            return cli_fail(cmd, "%s", why);
        if (p->max_id == 0)
            return cli_fail(cmd, "%s holds no blobs", o->path);
    }
    if (o->start > p->max_id)
        return cli_usage(cmd, "--start %lld is beyond --max-id %lld", (long long)o->start,
                         (long long)p->max_id);
    struct order probe;
    if (order_init(&probe, o->order, p->max_id, o->start, o->seed, 0, o->zipf) != 0)
        return cli_usage(cmd, "bad order parameters (--zipf %g, --max-id %lld)", o->zipf,
                         (long long)p->max_id);
    int64_t range;
    int rc = store_count_holes(o->path, p->kind, p->max_id, &p->missing_keys, &range, why,
                               sizeof why);
    if (rc < 0)
        return cli_fail(cmd, "%s", why);
    if (rc == 0)
        p->missing_keys = -1;   /* a database: not counted */
    if (p->missing_keys > 0 && !o->quiet)
        cli_warn(cmd, "%s is missing %lld of the %lld keys 1..%lld (an incomplete export?)",
                 o->path, (long long)p->missing_keys, (long long)range, (long long)range);
    return 0;
}

/* The blobs at a few keys spread over the range: do any carry our tag?
 * 1 yes (verify), 0 none did (unverifiable), -1 error printed. */
static int verify_probe(const struct run_plan *p, const char *cmd)
{
    struct store_opts so = p->so;
    so.update = 0;
    so.fadvise = -1;
    so.db.multitrans = 1;
    struct store *s;
    char err[1024];
    if (store_open(&s, &so, err, sizeof err) != 0) {
        cli_fail(cmd, "%s", err);
        return -1;
    }
    int tagged = 0, seen = 0;
    for (int i = 0; i < 8; i++) {
        int64_t k = 1 + (p->max_id - 1) * i / 7;
        const void *d;
        int64_t n;
        int rc = store_read(s, k, &d, &n, err, sizeof err);
        if (rc < 0) {
            store_close(s, err, sizeof err);
            cli_fail(cmd, "%s", err);
            return -1;
        }
        if (rc == 1) {
            seen++;
            tagged += blobsum_check(d, (size_t)n) == 1;
        }
    }
    store_close(s, err, sizeof err);
    return tagged > 0 || seen == 0;
}

/* Facts for the result lines from one untimed look at the database. */
static int describe_db(struct run_plan *p, const char *cmd)
{
    struct store_opts so = p->so;
    so.update = 0;
    so.db.multitrans = 1;
    so.fadvise = -1;
    so.db.jmode = NULL;
    struct store *s;
    char why[1024];
    if (store_open(&s, &so, why, sizeof why) != 0)
        return cli_fail(cmd, "%s", why);
    store_describe(s, &p->desc, 0);
    store_close(s, why, sizeof why);
    return 0;
}

int run_plan_make(struct run_plan *p, const struct run_opts *o, const char *cmd)
{
    memset(p, 0, sizeof *p);
    p->o = o;
    int rc = validate(o, cmd);
    if (!rc)
        rc = detect(p, cmd);
    if (!rc)
        rc = key_range(p, cmd);
    if (rc)
        return rc;
    p->so = (struct store_opts){
        .path = o->path, .kind = p->kind, .update = o->update, .fadvise = o->fadvise,
        .db = {.blob_api = o->blob_api, .cache_size = o->cache_size, .mmap = o->mmap,
               .jmode = o->jmode, .nosync = o->nosync, .synchronous = o->synchronous,
               .nocheckpoint = o->nocheckpoint, .multitrans = o->multitrans},
        .files = {.fsync = o->fsync},
        .kv = {.nosync = o->nosync, .multitrans = o->multitrans,
               .block_cache = o->block_cache}};
    if ((p->is_db || layout_is_kv(p->kind)) && describe_db(p, cmd) != 0)
        return 1;
    p->vs = RUN_VERIFY_OFF;
    if (o->verify) {
        int v = verify_probe(p, cmd);
        if (v < 0)
            return 1;
        /* The user's own files (init --from) carry no tag, so after an
         * --update some blobs are sealed and the rest are not: a mismatch
         * there is an unsealed user blob, not corruption. */
        p->vs = !v                   ? RUN_VERIFY_UNVERIFIABLE
                : p->desc.user_blobs ? RUN_VERIFY_USER
                                     : RUN_VERIFY_ON;
    }
    return 0;
}
