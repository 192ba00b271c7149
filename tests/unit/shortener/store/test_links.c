/* The link store on real SQLite files: ids as the store makes them (10 of
 * [A-Za-z0-9], distinct, letters unbiased), create/lookup/miss with and
 * without the statement cache, id listing, files that are not a links
 * database, the two schemas answering alike, and the create requests
 * refused from their text before anything is opened or made. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/unit/unit.h"

#include "shortener/cache/cache.h"
#include "shortener/store/links.h"
#include "tests/unit/fixture.h"

static int in_alphabet(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static int cmp_id(const void *a, const void *b)
{
    return memcmp(a, b, LINKS_ID_LEN + 1);
}

/* Ids as the store makes them (links_create_db and links_create share
 * the generator): 10 of [A-Za-z0-9], all distinct, letters unbiased. */
static void test_id_alphabet_length_uniqueness(void **st)
{
    struct fixture *fx = *st;
    enum { N = 20000 };
    char err[512];
    assert_int_equal(links_create_db(fx->db, N, 1, 0, err, sizeof err), 0);
    struct links *l = links_open(fx->db, 1, err, sizeof err);
    assert_non_null(l);
    char *recs;
    int64_t nids;
    assert_int_equal(links_ids(l, 0, &recs, &nids), 0);
    assert_int_equal(nids, N);
    char (*ids)[LINKS_ID_LEN + 1] = calloc(N, sizeof *ids);
    assert_non_null(ids);
    int seen[256] = {0};
    for (int i = 0; i < N; i++) {
        const char *rec = recs + (size_t)i * (LINKS_ID_MAX + 1);
        assert_int_equal(strlen(rec), LINKS_ID_LEN);
        memcpy(ids[i], rec, LINKS_ID_LEN + 1);
        for (int k = 0; k < LINKS_ID_LEN; k++) {
            assert_true(in_alphabet(ids[i][k]));
            seen[(unsigned char)ids[i][k]]++;
        }
    }
    free(recs);
    links_close(l);
    /* All 62 letters occur, none wildly over- or under-represented:
     * 200000 letters / 62 = 3226 expected; 5 sigma is about 280. */
    int letters = 0;
    for (int c = 0; c < 256; c++) {
        if (!seen[c])
            continue;
        letters++;
        assert_in_range(seen[c], 3226 - 400, 3226 + 400);
    }
    assert_int_equal(letters, 62);
    qsort(ids, N, sizeof *ids, cmp_id);
    for (int i = 1; i < N; i++)
        assert_int_not_equal(memcmp(ids[i - 1], ids[i], LINKS_ID_LEN), 0);
    free(ids);
}

static void test_store(void **st)
{
    struct fixture *fx = *st;
    char err[512], url[LINKS_URL_MAX + 1], id[LINKS_ID_LEN + 1];
    size_t n;
    assert_int_equal(links_create_db(fx->db, 100, 3, 0, err, sizeof err), 0);
    /* refuses to replace without force */
    assert_int_equal(links_create_db(fx->db, 1, 3, 0, err, sizeof err), ERRBUF_FAIL);
    for (int cache = 0; cache <= 1; cache++) {
        struct links *l = links_open(fx->db, cache, err, sizeof err);
        assert_non_null(l);
        assert_int_equal(links_create(l, "https://store.example/x", 23, id), LINKS_OK);
        assert_int_equal(strlen(id), LINKS_ID_LEN);
        assert_int_equal(links_lookup(l, id, LINKS_ID_LEN, url, sizeof url, &n), LINKS_OK);
        assert_string_equal(url, "https://store.example/x");
        assert_int_equal(n, 23);
        assert_int_equal(links_lookup(l, "nosuchid00", 10, url, sizeof url, &n), LINKS_NOTFOUND);
        /* the same lookup through the cache layer with no cache */
        assert_int_equal(cache_lookup(NULL, l, id, LINKS_ID_LEN, url, sizeof url, &n), LINKS_OK);
        assert_string_equal(url, "https://store.example/x");
        char *ids;
        int64_t nids;
        assert_int_equal(links_ids(l, 0, &ids, &nids), 0);
        assert_int_equal(nids, 101 + cache);
        for (int64_t i = 0; i < nids; i++) {
            const char *rec = ids + i * (LINKS_ID_MAX + 1);
            assert_int_equal(strlen(rec), LINKS_ID_LEN);
            assert_int_equal(links_lookup(l, rec, LINKS_ID_LEN, url, sizeof url, &n), LINKS_OK);
        }
        free(ids);
        assert_int_equal(links_ids(l, 5, &ids, &nids), 0);
        assert_int_equal(nids, 5);
        free(ids);
        links_close(l);
    }
    /* a file that is not a links database */
    char other[320];
    snprintf(other, sizeof other, "%s/other.txt", fx->dir);
    FILE *f = fopen(other, "w");
    assert_non_null(f);
    fputs("hello, this is not SQLite at all, not even close\n", f);
    fclose(f);
    assert_null(links_open(other, 1, err, sizeof err));
    assert_non_null(strstr(err, "other.txt"));
    snprintf(other, sizeof other, "%s/missing.db", fx->dir);
    assert_null(links_open(other, 1, err, sizeof err));
    assert_int_not_equal(access(other, F_OK), 0);   /* not created */
}

/* Both schemas, real SQLite files with the same links (init --from):
 * identical answers for every id and for misses; new links work in both. */
static void test_schemas_agree(void **st)
{
    struct fixture *fx = *st;
    char err[512], cov[320];
    assert_int_equal(links_create_db(fx->db, 2000, 7, 0, err, sizeof err), 0);
    snprintf(cov, sizeof cov, "%s/covering.db", fx->dir);
    struct links_create_opts o = {0, 1, 0, LINKS_SCHEMA_COVERING, fx->db, 0};
    int64_t copied = 0;
    assert_int_equal(links_create_db_opts(cov, &o, &copied, err, sizeof err), 0);
    assert_int_equal(copied, 2000);
    struct links *a = links_open(fx->db, 1, err, sizeof err);
    struct links *b = links_open(cov, 1, err, sizeof err);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(links_schema_of(a), LINKS_SCHEMA_SEED);
    assert_int_equal(links_schema_of(b), LINKS_SCHEMA_COVERING);
    char *ids, *ids2;
    int64_t n, n2;
    assert_int_equal(links_ids(a, 0, &ids, &n), 0);
    assert_int_equal(links_ids(b, 0, &ids2, &n2), 0);
    assert_int_equal(n, 2000);
    assert_int_equal(n2, n);
    assert_memory_equal(ids, ids2, (size_t)n * (LINKS_ID_MAX + 1));   /* same order */
    char ua[LINKS_URL_MAX + 1], ub[LINKS_URL_MAX + 1];
    size_t la, lb;
    for (int64_t i = 0; i < n; i++) {
        const char *id = ids + i * (LINKS_ID_MAX + 1);
        assert_int_equal(links_lookup(a, id, strlen(id), ua, sizeof ua, &la), LINKS_OK);
        assert_int_equal(links_lookup(b, id, strlen(id), ub, sizeof ub, &lb), LINKS_OK);
        assert_int_equal(la, lb);
        assert_string_equal(ua, ub);
        /* a miss: the same id one letter longer, and a changed letter */
        char miss[LINKS_ID_MAX + 2];
        snprintf(miss, sizeof miss, "%sx", id);
        assert_int_equal(links_lookup(a, miss, strlen(miss), ua, sizeof ua, &la), LINKS_NOTFOUND);
        assert_int_equal(links_lookup(b, miss, strlen(miss), ub, sizeof ub, &lb), LINKS_NOTFOUND);
        miss[0] = miss[0] == 'Q' ? 'R' : 'Q';
        miss[strlen(id)] = '\0';
        enum links_rc ra = links_lookup(a, miss, strlen(miss), ua, sizeof ua, &la);
        assert_int_equal(links_lookup(b, miss, strlen(miss), ub, sizeof ub, &lb), ra);
    }
    char nid[LINKS_ID_LEN + 1];
    assert_int_equal(links_create(b, "https://example.com/new", 23, nid), LINKS_OK);
    assert_int_equal(links_lookup(b, nid, strlen(nid), ub, sizeof ub, &lb), LINKS_OK);
    assert_string_equal(ub, "https://example.com/new");
    free(ids2);
    assert_int_equal(links_ids(b, 0, &ids2, &n2), 0);
    assert_int_equal(n2, 2001);
    assert_string_equal(ids2 + 2000 * (LINKS_ID_MAX + 1), nid);   /* listed last */
    free(ids);
    free(ids2);
    links_close(a);
    links_close(b);
    /* copying onto itself is misuse */
    assert_int_equal(links_create_db_opts(fx->db, &o, &copied, err, sizeof err), ERRBUF_MISUSE);
}

/* links_create_db_opts refuses from the text alone (ERRBUF_MISUSE), before
 * opening the source or reaching the target: nothing listens on
 * 127.0.0.1:1, so a refusal that came after a connection attempt would be
 * ERRBUF_FAIL. A source that cannot be opened is ERRBUF_FAIL, named as
 * --from's, and leaves no target. */
static void expect_create(const char *store, enum links_schema schema, const char *from,
                          int want, const char *says)
{
    struct links_create_opts o = {0, 1, 0, schema, from, 0};
    char err[512] = "";
    int64_t copied = -1;
    assert_int_equal(links_create_db_opts(store, &o, &copied, err, sizeof err), want);
    if (!strstr(err, says))
        fail_msg("%s --from %s: '%s' lacks '%s'", store, from ? from : "-", err, says);
    assert_int_equal(copied, 0);
    assert_int_equal(access(store, F_OK), -1);   /* no SQLite target made */
}

static void test_create_refusals(void **st)
{
    struct fixture *fx = *st;
    const char *pg = "postgres://127.0.0.1:1/kv";
    char self[320], none[320], named[340];
    snprintf(self, sizeof self, "sqlite:%s", fx->db);
    snprintf(none, sizeof none, "%s/none.db", fx->dir);
    snprintf(named, sizeof named, "--from: %s", none);
    expect_create(pg, LINKS_SCHEMA_COVERING, NULL, ERRBUF_MISUSE, "one table layout");
    expect_create(pg, LINKS_SCHEMA_SEED, "mysql://h/db", ERRBUF_MISUSE, "is not a links store");
    expect_create(pg, LINKS_SCHEMA_SEED, pg, ERRBUF_MISUSE, "cannot copy a store onto itself");
    expect_create(fx->db, LINKS_SCHEMA_SEED, pg, ERRBUF_MISUSE,
                  "an SQLite store copies from an SQLite");
    expect_create(fx->db, LINKS_SCHEMA_SEED, self, ERRBUF_MISUSE,
                  "cannot copy a store onto itself");
    expect_create(fx->db, LINKS_SCHEMA_SEED, none, ERRBUF_FAIL, named);
    expect_create(pg, LINKS_SCHEMA_SEED, none, ERRBUF_FAIL, named);
}

/* The store text: which engine, what is opened, what is shown. */
static void test_store_text(void **st)
{
    (void)st;
    enum links_kind k;
    const char *t;
    char err[256], shown[256];
    assert_int_equal(links_store_kind("links.db", &k, &t, err, sizeof err), 0);
    assert_int_equal(k, LINKS_KIND_SQLITE);
    assert_string_equal(t, "links.db");
    assert_int_equal(links_store_kind("sqlite:/tmp/a:b.db", &k, &t, err, sizeof err), 0);
    assert_int_equal(k, LINKS_KIND_SQLITE);
    assert_string_equal(t, "/tmp/a:b.db");   /* the prefix goes, a colon in the path stays */
    assert_int_equal(links_store_kind("postgres://u@h:5/db", &k, &t, err, sizeof err), 0);
    assert_int_equal(k, LINKS_KIND_POSTGRES);
    assert_string_equal(t, "postgres://u@h:5/db");
    assert_int_equal(links_store_kind("postgresql://h/db", &k, &t, err, sizeof err), 0);
    assert_int_equal(k, LINKS_KIND_POSTGRES);
    assert_int_equal(links_store_kind("mysql://h/db", &k, &t, err, sizeof err), -1);
    assert_non_null(strstr(err, "mysql://h/db"));
    assert_int_equal(links_store_kind("sqlite:", &k, &t, err, sizeof err), -1);
    assert_int_equal(links_store_kind("", &k, &t, err, sizeof err), -1);
    assert_string_equal(links_kind_name(LINKS_KIND_POSTGRES), "postgres");
    assert_string_equal(links_kind_name(LINKS_KIND_SQLITE), "sqlite");
    /* a password never reaches a message or a result */
    links_store_show("postgres://kv:s3cret@127.0.0.1:5432/kv", shown, sizeof shown);
    assert_string_equal(shown, "postgres://kv:***@127.0.0.1:5432/kv");
    links_store_show("postgres://kv@127.0.0.1:5432/kv?x=a:b", shown, sizeof shown);
    assert_string_equal(shown, "postgres://kv@127.0.0.1:5432/kv?x=a:b");
    links_store_show("postgres://127.0.0.1:5432/kv", shown, sizeof shown);
    assert_string_equal(shown, "postgres://127.0.0.1:5432/kv");
    links_store_show("/tmp/x.db", shown, sizeof shown);
    assert_string_equal(shown, "/tmp/x.db");
    /* an SQLite store refuses replicas, before opening anything */
    const char *reps[1] = {"postgres://127.0.0.1:1/x"};
    struct links_opts lo = {.sqlite_cache = 1, .replicas = reps, .nreplicas = 1};
    assert_null(links_open_opts("/nonexistent/x.db", &lo, err, sizeof err));
    assert_non_null(strstr(err, "replicas need a PostgreSQL store"));
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test_setup_teardown(test_id_alphabet_length_uniqueness, fixture_dir_setup,
                                    fixture_teardown),
    cmocka_unit_test_setup_teardown(test_store, fixture_dir_setup,
                                    fixture_teardown),
    cmocka_unit_test_setup_teardown(test_schemas_agree, fixture_dir_setup,
                                    fixture_teardown),
    cmocka_unit_test_setup_teardown(test_create_refusals, fixture_dir_setup,
                                    fixture_teardown),
    cmocka_unit_test(test_store_text))
