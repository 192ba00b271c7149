/* Fixtures shared by several unit test binaries, so they are written once:
 * a scratch directory (with a database path in it), a small blob database
 * made by init and its two exports, and a small directory tree for the
 * walk and init --from. Setups are cmocka setups: the fixture is the
 * test's *state. Functions are static inline so that a test using only
 * some of them builds without unused-function warnings. */
#ifndef TESTS_UNIT_FIXTURE_H
#define TESTS_UNIT_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands/export/export.h"
#include "commands/init/init.h"
#include "tests/unit/scratch.h"

struct fixture {
    char dir[256];    /* the scratch directory, removed by fixture_teardown */
    char db[300];     /* DIR/x.db: made by fixture_blobs_setup, only named otherwise */
    char flat[300];   /* DIR/flat: the db's flat export (fixture_exports_setup) */
    char tree[300];   /* DIR/tree3: its tree export, written by 3 jobs */
};

/* The blob database's parameters (tests that check content use them). */
static inline void fixture_blobs_opts(struct init_opts *o)
{
    init_defaults(o);
    o->count = 300;
    o->size = 3000;
    o->variance = 1000;
    o->seed = 7;
    o->quiet = 1;
}

/* A new empty scratch directory; the database path is only named. */
static inline int fixture_dir_setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    if (scratch_make(f->dir, sizeof f->dir, "unit") != 0) {
        free(f);
        return -1;
    }
    snprintf(f->db, sizeof f->db, "%s/x.db", f->dir);
    snprintf(f->flat, sizeof f->flat, "%s/flat", f->dir);
    snprintf(f->tree, sizeof f->tree, "%s/tree3", f->dir);
    *state = f;
    return 0;
}

static inline int fixture_teardown(void **state)
{
    struct fixture *f = *state;
    int rc = scratch_remove(f->dir);
    free(f);
    return rc;
}

/* The scratch directory with x.db: 300 blobs of 3000 +- 1000 bytes. */
static inline int fixture_blobs_setup(void **state)
{
    if (fixture_dir_setup(state) != 0)
        return -1;
    struct fixture *f = *state;
    struct init_opts o;
    fixture_blobs_opts(&o);
    o.path = f->db;
    return init_create(&o, "init") == 0 ? 0 : -1;
}

/* The blob database and both its exports (flat, and tree by 3 jobs). */
static inline int fixture_exports_setup(void **state)
{
    if (fixture_blobs_setup(state) != 0)
        return -1;
    struct fixture *f = *state;
    struct export_opts e;
    export_defaults(&e);
    e.db = f->db, e.quiet = 1, e.dir = f->flat;
    if (export_write(&e, "export") != 0)
        return -1;
    e.dir = f->tree, e.tree = 1, e.jobs = 3;
    return export_write(&e, "export") == 0 ? 0 : -1;
}

static inline int fixture_put(const char *dir, const char *rel, const char *content)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    FILE *f = fopen(p, "w");
    if (!f)
        return -1;
    fputs(content, f);
    return fclose(f);
}

/* A small user tree in a new directory made from the template DIR:
 * B, a.txt, a/b/deep, a/x (7 + 9 + 12 + 1 bytes), an empty file and a
 * symlink ln -> a.txt. 0, or -1 if any part could not be made. */
static inline int fixture_tree(char *dir)
{
    char p[512];
    if (!mkdtemp(dir))
        return -1;
    snprintf(p, sizeof p, "%s/a", dir);
    int rc = mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/a/b", dir);
    rc |= mkdir(p, 0755);
    rc |= fixture_put(dir, "a/b/deep", "deep content");
    rc |= fixture_put(dir, "a.txt", "a dot txt");
    rc |= fixture_put(dir, "B", "capital");
    rc |= fixture_put(dir, "a/x", "x");
    rc |= fixture_put(dir, "empty", "");
    snprintf(p, sizeof p, "%s/ln", dir);
    rc |= symlink("a.txt", p);
    return rc == 0 ? 0 : -1;
}

#endif
