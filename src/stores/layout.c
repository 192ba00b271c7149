/* layout: path kinds and export file names (see layout.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stores/layout.h"
#include "base/units.h"

const char *layout_kind_name(enum layout_kind k)
{
    switch (k) {
    case LAYOUT_DB: return "db";
    case LAYOUT_FLAT: return "flat";
    case LAYOUT_TREE: return "tree";
    case LAYOUT_LMDB: return "lmdb";
    case LAYOUT_ROCKSDB: return "rocksdb";
    case LAYOUT_MISSING: return "missing";
    default: return "other";
    }
}

enum layout_kind layout_prefix_kind(const char *path)
{
    if (strncmp(path, LAYOUT_LMDB_PREFIX, strlen(LAYOUT_LMDB_PREFIX)) == 0)
        return LAYOUT_LMDB;
    if (strncmp(path, LAYOUT_ROCKSDB_PREFIX, strlen(LAYOUT_ROCKSDB_PREFIX)) == 0)
        return LAYOUT_ROCKSDB;
    return LAYOUT_MISSING;
}

const char *layout_fs_path(const char *path)
{
    switch (layout_prefix_kind(path)) {
    case LAYOUT_LMDB: return path + strlen(LAYOUT_LMDB_PREFIX);
    case LAYOUT_ROCKSDB: return path + strlen(LAYOUT_ROCKSDB_PREFIX);
    default: return path;
    }
}

int layout_is_kv(enum layout_kind k)
{
    return k == LAYOUT_LMDB || k == LAYOUT_ROCKSDB;
}

/* The file that marks each key-value store's directory. */
static int has_file(const char *dir, const char *name)
{
    char p[4096];
    struct stat st;
    return snprintf(p, sizeof p, "%s/%s", dir, name) < (int)sizeof p && stat(p, &st) == 0 &&
           S_ISREG(st.st_mode);
}

/* A prefixed path: the directory must hold that store, and the message
 * names the other store when it holds that one instead. */
static enum layout_kind detect_kv(const char *path, enum layout_kind want, char *why,
                                  size_t whylen)
{
    const char *dir = layout_fs_path(path);
    struct stat st;
    if (!*dir) {
        snprintf(why, whylen, "%s: no directory after the prefix", path);
        return LAYOUT_OTHER;
    }
    if (stat(dir, &st) != 0) {
        snprintf(why, whylen, "%s: %s", dir, strerror(errno));
        return errno == ENOENT ? LAYOUT_MISSING : LAYOUT_OTHER;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(why, whylen, "%s: not a directory", dir);
        return LAYOUT_OTHER;
    }
    int lmdb = has_file(dir, "data.mdb"), rocks = has_file(dir, "CURRENT");
    if (want == LAYOUT_LMDB && lmdb)
        return LAYOUT_LMDB;
    if (want == LAYOUT_ROCKSDB && rocks)
        return LAYOUT_ROCKSDB;
    if (lmdb || rocks)
        snprintf(why, whylen, "%s holds %s, not %s (name it %s%s)", dir,
                 lmdb ? "an LMDB environment" : "a RocksDB database",
                 want == LAYOUT_LMDB ? "an LMDB environment" : "a RocksDB database",
                 lmdb ? LAYOUT_LMDB_PREFIX : LAYOUT_ROCKSDB_PREFIX, dir);
    else
        snprintf(why, whylen, "%s: not %s (no %s)", dir,
                 want == LAYOUT_LMDB ? "an LMDB environment" : "a RocksDB database",
                 want == LAYOUT_LMDB ? "data.mdb" : "CURRENT");
    return LAYOUT_OTHER;
}

enum layout_kind layout_detect(const char *path, char *why, size_t whylen)
{
    enum layout_kind pk = layout_prefix_kind(path);
    if (pk != LAYOUT_MISSING)
        return detect_kv(path, pk, why, whylen);
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(why, whylen, "%s: %s", path, strerror(errno));
        return errno == ENOENT ? LAYOUT_MISSING : LAYOUT_OTHER;
    }
    if (S_ISDIR(st.st_mode)) {
        /* The rule of SQLite's kvtest: a "00" subdirectory makes a tree. */
        char sub[4096];
        struct stat s2;
        snprintf(sub, sizeof sub, "%s/00", path);
        if (stat(sub, &s2) == 0 && S_ISDIR(s2.st_mode))
            return LAYOUT_TREE;
        return LAYOUT_FLAT;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, whylen, "%s: not a regular file or directory", path);
        return LAYOUT_OTHER;
    }
    if (st.st_size == 0)
        return LAYOUT_DB;   /* SQLite treats an empty file as an empty database */
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, whylen, "%s: %s", path, strerror(errno));
        return LAYOUT_OTHER;
    }
    char head[16];
    ssize_t n = read(fd, head, sizeof head);
    int e = errno;
    close(fd);
    if (n < 0) {
        snprintf(why, whylen, "%s: %s", path, strerror(e));
        return LAYOUT_OTHER;
    }
    if (n < 16 || memcmp(head, "SQLite format 3", 16) != 0) {
        snprintf(why, whylen, "%s: not an SQLite database", path);
        return LAYOUT_OTHER;
    }
    return LAYOUT_DB;
}

int layout_relname(char *buf, size_t cap, int tree, int64_t key)
{
    int n;
    if (key < 0)
        return -1;
    if (tree)
        n = snprintf(buf, cap, "%02" PRId64 "/%02" PRId64 "/%02" PRId64, key / 10000,
                     (key / 100) % 100, key % 100);
    else
        n = snprintf(buf, cap, "%06" PRId64, key);
    return (n < 0 || (size_t)n >= cap) ? -1 : n;
}

int layout_path(char *buf, size_t cap, const char *dir, int tree, int64_t key)
{
    int n = snprintf(buf, cap, "%s/", dir);
    if (n < 0 || (size_t)n >= cap)
        return -1;
    int m = layout_relname(buf + n, cap - (size_t)n, tree, key);
    return m < 0 ? -1 : n + m;
}

/* Digits only, at least `minlen` of them and at most 18. -1 if not. */
static int64_t parse_digits(const char *s, size_t len, size_t minlen)
{
    return len < minlen ? -1 : units_parse_digits(s, len);
}

int64_t layout_parse(const char *rel, int tree)
{
    if (!tree) {
        int64_t k = parse_digits(rel, strlen(rel), 6);
        /* "%06d" never pads beyond 6 digits: 0001234 is not our name. */
        if (k < 0 || (strlen(rel) > 6 && rel[0] == '0'))
            return -1;
        return k;
    }
    const char *a = rel, *b = strchr(a, '/');
    if (!b)
        return -1;
    const char *c = strchr(b + 1, '/');
    if (!c || strchr(c + 1, '/'))
        return -1;
    int64_t top = parse_digits(a, (size_t)(b - a), 2);
    int64_t mid = parse_digits(b + 1, (size_t)(c - b - 1), 2);
    int64_t low = parse_digits(c + 1, strlen(c + 1), 2);
    if (top < 0 || mid < 0 || low < 0 || mid > 99 || low > 99 || c - b - 1 != 2 ||
        strlen(c + 1) != 2 || (b - a > 2 && a[0] == '0'))
        return -1;
    return top * 10000 + mid * 100 + low;
}

static int cmp_desc(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x < y) - (x > y);
}

/* Entries of dir whose names are all digits (>= minlen), as numbers,
 * sorted descending. Returns the count, or -1 (errno set). */
static int64_t numeric_entries(const char *dir, size_t minlen, int64_t **out)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int64_t n = 0, cap = 0;
    int64_t *v = NULL;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        int64_t k = parse_digits(e->d_name, strlen(e->d_name), minlen);
        if (k < 0)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            int64_t *nv = realloc(v, (size_t)cap * sizeof *v);
            if (!nv) {
                free(v);
                closedir(d);
                errno = ENOMEM;
                return -1;
            }
            v = nv;
        }
        v[n++] = k;
    }
    closedir(d);
    if (n > 1)
        qsort(v, (size_t)n, sizeof *v, cmp_desc);
    *out = v;
    return n;
}

int64_t layout_max_key(const char *dir, int tree)
{
    int64_t *top = NULL;
    int64_t ntop = numeric_entries(dir, tree ? 2 : 6, &top);
    if (ntop < 0)
        return -1;
    if (!tree) {
        int64_t best = ntop ? top[0] : 0;
        free(top);
        return best;
    }
    /* Search from the largest subdirectory down; the first file found is
     * the largest key, so a full walk is rarely needed. */
    char path[4096];
    int64_t best = 0;
    for (int64_t i = 0; i < ntop && !best; i++) {
        int64_t *mid = NULL;
        snprintf(path, sizeof path, "%s/%02" PRId64, dir, top[i]);
        int64_t nmid = numeric_entries(path, 2, &mid);
        if (nmid < 0)
            continue;   /* a stray file named like a directory */
        for (int64_t j = 0; j < nmid && !best; j++) {
            if (mid[j] > 99)
                continue;
            int64_t *low = NULL;
            snprintf(path, sizeof path, "%s/%02" PRId64 "/%02" PRId64, dir, top[i], mid[j]);
            int64_t nlow = numeric_entries(path, 2, &low);
            for (int64_t k = 0; k < nlow; k++)
                if (low[k] <= 99) {
                    best = top[i] * 10000 + mid[j] * 100 + low[k];
                    break;
                }
            free(low);
        }
        free(mid);
    }
    free(top);
    return best;
}

struct key_count {
    int64_t max_id, present, largest;
};

static void count_key(struct key_count *c, int64_t k)
{
    if (k < 0)
        return;
    if (k >= 1 && k <= c->max_id)
        c->present++;
    if (k > c->largest)
        c->largest = k;
}

/* Count the names in dir that parse as keys (flat: the whole name; tree:
 * prefix + "/" + name). Subdirectories are not descended. 0 or -1. */
static int count_dir(const char *dir, const char *prefix, int tree, struct key_count *c)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *e;
    char rel[64];
    while ((e = readdir(d)) != NULL) {
        if (!tree) {
            count_key(c, layout_parse(e->d_name, 0));
        } else if (strlen(e->d_name) == 2 &&
                   snprintf(rel, sizeof rel, "%s/%s", prefix, e->d_name) < (int)sizeof rel) {
            count_key(c, layout_parse(rel, 1));
        }
    }
    closedir(d);
    return 0;
}

int layout_count_keys(const char *dir, int tree, int64_t max_id, int64_t *present,
                      int64_t *largest)
{
    struct key_count c = {max_id, 0, 0};
    if (!tree) {
        if (count_dir(dir, NULL, 0, &c) != 0)
            return -1;
    } else {
        int64_t *top = NULL;
        int64_t ntop = numeric_entries(dir, 2, &top);
        if (ntop < 0)
            return -1;
        char path[4096], prefix[48];
        for (int64_t i = 0; i < ntop; i++) {
            if (i > 0 && top[i] == top[i - 1])
                continue;   /* "000" beside "00": not a second copy */
            for (int64_t mid = 0; mid < 100; mid++) {
                snprintf(prefix, sizeof prefix, "%02" PRId64 "/%02" PRId64, top[i], mid);
                snprintf(path, sizeof path, "%s/%s", dir, prefix);
                /* Most of the 100 middle names exist in a full export;
                 * a missing one is simply a hole of 100 keys. */
                if (count_dir(path, prefix, 1, &c) != 0 && errno != ENOENT && errno != ENOTDIR) {
                    free(top);
                    return -1;
                }
            }
        }
        free(top);
    }
    *present = c.present;
    *largest = c.largest;
    return 0;
}

int layout_is_export(const char *dir, int64_t *nentries)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *e;
    int ok = 1;
    int64_t n = 0;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        n++;
        if (parse_digits(e->d_name, strlen(e->d_name), 2) < 0)
            ok = 0;
    }
    closedir(d);
    if (nentries)
        *nentries = n;
    return ok;
}
