/* Unit tests of base/aside: a temporary beside its target, committed by
 * rename (the target replaced only then) or discarded (nothing left). */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tests/unit/unit.h"
#include "tests/unit/scratch.h"

#include "base/aside.h"
#include "base/cleanup.h"

static char dir[256];

static int setup(void **state)
{
    (void)state;
    return scratch_make(dir, sizeof dir, "aside");
}

static int teardown(void **state)
{
    (void)state;
    return cleanup_rmtree(dir);
}

/* Entries of dir, names concatenated with '|' in readdir order; count. */
static int entries(char *names, size_t cap)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    names[0] = '\0';
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        n++;
        size_t l = strlen(names);
        snprintf(names + l, cap - l, "%s|", e->d_name);
    }
    closedir(d);
    return n;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void assert_content(const char *path, const char *text)
{
    char buf[64] = "";
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    assert_string_equal(buf, text);
}

static void test_file_commit_replaces_only_then(void **state)
{
    (void)state;
    char target[300], names[1024];
    snprintf(target, sizeof target, "%s/x.db", dir);
    write_file(target, "old");
    struct aside a;
    assert_int_equal(aside_create(&a, target, ASIDE_SIBLING, ASIDE_FILE, 0644), 0);
    /* Beside the target, under the recognisable name, target untouched. */
    assert_non_null(strstr(a.path, "/x.db" ASIDE_INFIX));
    assert_string_equal(a.dir, dir);
    write_file(a.path, "new");
    assert_content(target, "old");
    assert_int_equal(entries(names, sizeof names), 2);
    struct stat sb;
    assert_int_equal(stat(a.path, &sb), 0);
    mode_t mask = umask(077);   /* read it: set, then put it back */
    umask(mask);
    assert_int_equal(sb.st_mode & 0777, 0644 & ~mask);
    assert_int_equal(aside_commit(&a), 0);
    assert_content(target, "new");
    assert_int_equal(entries(names, sizeof names), 1);
    assert_string_equal(names, "x.db|");
}

static void test_file_discard_leaves_nothing(void **state)
{
    (void)state;
    char target[300], names[1024], side[5000];
    snprintf(target, sizeof target, "%s/y.db", dir);
    write_file(target, "old");
    struct aside a;
    assert_int_equal(aside_create(&a, target, ASIDE_SIBLING, ASIDE_SQLITE, 0666), 0);
    write_file(a.path, "half");
    /* What SQLite makes beside a database goes with it. */
    snprintf(side, sizeof side, "%s-wal", a.path);
    write_file(side, "w");
    snprintf(side, sizeof side, "%s-shm", a.path);
    write_file(side, "s");
    snprintf(side, sizeof side, "%s-journal", a.path);
    write_file(side, "j");
    assert_int_equal(entries(names, sizeof names), 5);
    aside_discard(&a);
    assert_int_equal(entries(names, sizeof names), 1);
    assert_string_equal(names, "y.db|");
    assert_content(target, "old");
}

static void test_sqlite_commit_drops_stale_siblings(void **state)
{
    (void)state;
    char target[300], names[1024], side[400];
    snprintf(target, sizeof target, "%s/z.db", dir);
    write_file(target, "old");
    snprintf(side, sizeof side, "%s-wal", target);
    write_file(side, "stale wal of the old file");
    struct aside a;
    assert_int_equal(aside_create(&a, target, ASIDE_SIBLING, ASIDE_SQLITE, 0666), 0);
    write_file(a.path, "new");
    assert_int_equal(aside_commit(&a), 0);
    assert_content(target, "new");
    assert_int_equal(entries(names, sizeof names), 1);
}

static void test_dir_commit_and_discard(void **state)
{
    (void)state;
    char target[300], names[1024], f[5000];
    snprintf(target, sizeof target, "%s/out", dir);
    struct aside a;
    assert_int_equal(aside_create(&a, target, ASIDE_SIBLING, ASIDE_DIR, 0), 0);
    snprintf(f, sizeof f, "%s/1", a.path);
    write_file(f, "one");
    struct stat sb;
    assert_int_equal(stat(target, &sb), -1);
    assert_int_equal(aside_commit(&a), 0);
    snprintf(f, sizeof f, "%s/1", target);
    assert_content(f, "one");
    assert_int_equal(entries(names, sizeof names), 1);
    assert_string_equal(names, "out|");

    snprintf(target, sizeof target, "%s/out2", dir);
    assert_int_equal(aside_create(&a, target, ASIDE_SIBLING, ASIDE_DIR, 0), 0);
    snprintf(f, sizeof f, "%s/1", a.path);
    write_file(f, "one");
    aside_discard(&a);
    assert_int_equal(entries(names, sizeof names), 1);
    assert_int_equal(stat(target, &sb), -1);
}

static int put_fail(struct aside *a, void *arg)
{
    (void)a;
    (void)arg;
    errno = EXDEV;
    return -1;
}

/* A failed move removes the temporary and says why. */
static void test_commit_with_failure_removes(void **state)
{
    (void)state;
    char target[300], names[1024];
    snprintf(target, sizeof target, "%s/w", dir);
    struct aside a;
    assert_int_equal(aside_create(&a, target, ASIDE_SIBLING, ASIDE_DIR, 0), 0);
    assert_int_equal(aside_commit_with(&a, put_fail, NULL), -1);
    assert_int_equal(errno, EXDEV);
    assert_int_equal(entries(names, sizeof names), 0);
}

static void test_name_too_long(void **state)
{
    (void)state;
    char target[ASIDE_PATH + 10];
    memset(target, 'a', sizeof target - 1);
    target[sizeof target - 1] = '\0';
    struct aside a;
    assert_int_equal(aside_create(&a, target, ASIDE_SIBLING, ASIDE_FILE, 0666), -1);
    assert_int_equal(errno, ENAMETOOLONG);
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test_setup_teardown(test_file_commit_replaces_only_then, setup, teardown),
    cmocka_unit_test_setup_teardown(test_file_discard_leaves_nothing, setup, teardown),
    cmocka_unit_test_setup_teardown(test_sqlite_commit_drops_stale_siblings, setup,
                                    teardown),
    cmocka_unit_test_setup_teardown(test_dir_commit_and_discard, setup, teardown),
    cmocka_unit_test_setup_teardown(test_commit_with_failure_removes, setup, teardown),
    cmocka_unit_test(test_name_too_long))
