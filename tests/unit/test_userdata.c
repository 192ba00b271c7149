/* The user's data (issue 14): size percentiles and buckets, the JSON form
 * of a distribution read back, the directory walk's order and counts, the
 * kv_path side table of init --from, and sizes drawn by --sizes-from. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "commands/init/init.h"
#include "measure/sizedist.h"
#include "sqlite3.h"
#include "stores/walk.h"

static int64_t *copy(const int64_t *v, int64_t n)
{
    int64_t *c = malloc((size_t)n * sizeof *c);
    assert_non_null(c);
    memcpy(c, v, (size_t)n * sizeof *c);
    return c;
}

static void test_percentiles_known_set(void **st)
{
    (void)st;
    /* Unsorted on purpose: 4 x 1, 4 x 4096, 2 x 102400. */
    const int64_t v[] = {4096, 1, 102400, 1, 4096, 1, 4096, 102400, 1, 4096};
    struct sizedist d;
    sizedist_own(&d, copy(v, 10), 10);
    assert_int_equal(sizedist_pct(&d, 0), 1);
    assert_int_equal(sizedist_pct(&d, 10), 1);
    assert_int_equal(sizedist_pct(&d, 40), 1);      /* rank 4 */
    assert_int_equal(sizedist_pct(&d, 41), 4096);   /* rank 5 */
    assert_int_equal(sizedist_pct(&d, 50), 4096);
    assert_int_equal(sizedist_pct(&d, 90), 102400);
    assert_int_equal(sizedist_pct(&d, 100), 102400);
    assert_true(sizedist_mean(&d) > 22118.79 && sizedist_mean(&d) < 22118.81);
    int64_t c[SIZEDIST_BUCKETS];
    sizedist_buckets(&d, c);
    assert_int_equal(c[1], 4);    /* [1, 2) */
    assert_int_equal(c[13], 4);   /* [4096, 8192) */
    assert_int_equal(c[17], 2);   /* [65536, 131072) */
    sizedist_free(&d);
    struct sizedist e;
    sizedist_own(&e, NULL, 0);
    assert_int_equal(sizedist_pct(&e, 50), 0);
}

static void test_bucket_edges(void **st)
{
    (void)st;
    assert_int_equal(sizedist_bucket(0), 0);
    assert_int_equal(sizedist_bucket(1), 1);
    assert_int_equal(sizedist_bucket(2), 2);
    assert_int_equal(sizedist_bucket(3), 2);
    assert_int_equal(sizedist_bucket(4095), 12);
    assert_int_equal(sizedist_bucket(4096), 13);
    assert_int_equal(sizedist_bucket(INT64_MAX), 63);
}

static void test_print_lines(void **st)
{
    (void)st;
    const int64_t v[] = {3, 1, 9};
    struct sizedist d;
    sizedist_own(&d, copy(v, 3), 3);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    sizedist_print(&d, f);
    fclose(f);
    assert_string_equal(buf, "Size distribution:  count=3 min=1 p10=1 p50=3 p90=9 p99=9 max=9 "
                             "mean=4\nSize histogram:     1:1 2:1 4:0 8:1\n");
    free(buf);
    sizedist_free(&d);
}

/* JSON written as stat prints it, read back as init --sizes-from does. */
static void roundtrip(int64_t n, int64_t *got_n, int64_t **got, int *exact)
{
    int64_t *v = malloc((size_t)n * sizeof *v);
    assert_non_null(v);
    for (int64_t i = 0; i < n; i++)
        v[i] = 1 + (i * 7919) % 1000003;
    struct sizedist d;
    sizedist_own(&d, v, n);
    cJSON *j = cJSON_CreateObject(), *r = cJSON_AddObjectToObject(j, "result");
    sizedist_json(&d, r);
    *exact = cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "size_distribution"),
                                              "sizes_exact"));
    char *s = cJSON_PrintUnformatted(j);
    char path[] = "/tmp/test_userdata_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "{\"command\":\"run\"}\n%s\n", s);
    fclose(f);
    char err[256];
    assert_int_equal(sizedist_load_json(path, got, got_n, err, sizeof err), 0);
    unlink(path);
    free(s);
    cJSON_Delete(j);
    sizedist_free(&d);
}

static void test_json_roundtrip(void **st)
{
    (void)st;
    int64_t n, *v;
    int exact;
    roundtrip(1000, &n, &v, &exact);
    assert_true(exact);
    assert_int_equal(n, 1000);
    for (int64_t i = 1; i < n; i++)
        assert_true(v[i - 1] <= v[i]);
    free(v);
    /* Over the cap: evenly spaced quantiles, same median within a rank. */
    roundtrip(SIZEDIST_JSON_MAX * 3 + 1, &n, &v, &exact);
    assert_false(exact);
    assert_int_equal(n, SIZEDIST_JSON_MAX);
    assert_true(v[0] >= 1 && v[n - 1] <= 1000003);
    free(v);
    char err[256];
    assert_int_equal(sizedist_load_json("/nonexistent/x.jsonl", &v, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, "No such file"));
}

static void put(const char *dir, const char *rel, const char *content)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(content, f);
    fclose(f);
}

static void make_tree(char *dir)
{
    assert_non_null(mkdtemp(dir));
    char p[512];
    snprintf(p, sizeof p, "%s/a", dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/a/b", dir);
    mkdir(p, 0755);
    put(dir, "a/b/deep", "deep content");
    put(dir, "a.txt", "a dot txt");
    put(dir, "B", "capital");
    put(dir, "a/x", "x");
    put(dir, "empty", "");
    snprintf(p, sizeof p, "%s/ln", dir);
    assert_int_equal(symlink("a.txt", p), 0);
}

static void test_walk_order_and_counts(void **st)
{
    (void)st;
    char dir[] = "/tmp/test_userdata_walk_XXXXXX";
    make_tree(dir);
    struct walk w;
    char err[256];
    assert_int_equal(walk_dir(dir, 1000, &w, err, sizeof err), 0);
    assert_int_equal(w.n, 4);
    /* Byte order of the whole relative path: 'B' < 'a', '.' < '/'. */
    assert_string_equal(w.f[0].rel, "B");
    assert_string_equal(w.f[1].rel, "a.txt");
    assert_string_equal(w.f[2].rel, "a/b/deep");
    assert_string_equal(w.f[3].rel, "a/x");
    assert_int_equal(w.empty, 1);
    assert_int_equal(w.symlinks, 1);
    assert_int_equal(w.bytes, 7 + 9 + 12 + 1);
    walk_free(&w);
    assert_int_equal(walk_dir(dir, 8, &w, err, sizeof err), 0);
    assert_int_equal(w.n, 2);   /* "a dot txt" and "deep content" are over 8 bytes */
    assert_int_equal(w.too_large, 2);
    walk_free(&w);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* init --from: kv_path maps each key to the file whose bytes it holds. */
static void test_side_table(void **st)
{
    (void)st;
    char dir[] = "/tmp/test_userdata_from_XXXXXX";
    make_tree(dir);
    char db[600];
    snprintf(db, sizeof db, "%s.db", dir);
    struct init_opts o;
    init_defaults(&o);
    o.path = db;
    o.from = dir;
    o.quiet = 1;
    assert_int_equal(init_create(&o, "init"), 0);
    sqlite3 *h;
    assert_int_equal(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *s;
    assert_int_equal(sqlite3_prepare_v2(h, "SELECT kv.k, path, v FROM kv JOIN kv_path USING(k) "
                                           "ORDER BY kv.k", -1, &s, NULL), SQLITE_OK);
    static const char *const want[] = {"B", "a.txt", "a/b/deep", "a/x"};
    static const char *const body[] = {"capital", "a dot txt", "deep content", "x"};
    int rows = 0;
    while (sqlite3_step(s) == SQLITE_ROW) {
        assert_int_equal(sqlite3_column_int64(s, 0), rows + 1);
        assert_string_equal((const char *)sqlite3_column_text(s, 1), want[rows]);
        assert_int_equal(sqlite3_column_bytes(s, 2), (int)strlen(body[rows]));
        assert_memory_equal(sqlite3_column_blob(s, 2), body[rows], strlen(body[rows]));
        rows++;
    }
    assert_int_equal(rows, 4);
    sqlite3_finalize(s);
    sqlite3_close(h);
    unlink(db);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_sizes_drawn(void **st)
{
    (void)st;
    const int64_t src[] = {1, 4096, 102400};
    struct init_opts o;
    init_defaults(&o);
    o.sizes = src;
    o.nsizes = 3;
    o.sizes_max = 102400;
    o.seed = 42;
    int seen[3] = {0, 0, 0};
    for (int64_t k = 1; k <= 3000; k++) {
        int64_t n = init_blob_size(&o, k);
        int hit = n == 1 ? 0 : n == 4096 ? 1 : n == 102400 ? 2 : -1;
        assert_true(hit >= 0);
        seen[hit]++;
        assert_int_equal(init_blob_size(&o, k), n);   /* same seed, same size */
    }
    for (int i = 0; i < 3; i++)
        assert_true(seen[i] > 850 && seen[i] < 1150);
    /* The content stream follows the size draw: the bytes are the seed's. */
    unsigned char a[4096], b[4096];
    int64_t k = 1;
    while (init_blob_size(&o, k) != 4096)
        k++;
    init_blob_fill(&o, k, a, 4096);
    init_blob_fill(&o, k, b, 4096);
    assert_memory_equal(a, b, 4096);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_percentiles_known_set),
        cmocka_unit_test(test_bucket_edges),
        cmocka_unit_test(test_print_lines),
        cmocka_unit_test(test_json_roundtrip),
        cmocka_unit_test(test_walk_order_and_counts),
        cmocka_unit_test(test_side_table),
        cmocka_unit_test(test_sizes_drawn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
