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

/* The store at text, parsed (it must parse). */
static struct links_store store_of(const char *text)
{
    struct links_store st;
    char err[512];
    if (links_store_parse(text, &st, err, sizeof err) != 0)
        fail_msg("%s: %s", text, err);
    return st;
}

/* A new store at text: n generated links from seed. */
static int create_db(const char *text, int64_t n, uint64_t seed, int force, char *err,
                     size_t errcap)
{
    struct links_store st = store_of(text);
    struct links_create_opts o = {n, seed, force, LINKS_SCHEMA_SEED, NULL, 0};
    int64_t copied;
    return links_create_db_opts(&st, &o, &copied, err, errcap);
}

/* The store at text opened, with SQLite's page cache on or off. */
static struct links *open_db(const char *text, int sqlite_cache, char *err, size_t errcap)
{
    struct links_store st = store_of(text);
    st.opts.sqlite_cache = sqlite_cache;
    return links_open_store(&st, err, errcap);
}

/* Ids as the store makes them (create_db and links_create share
 * the generator): 10 of [A-Za-z0-9], all distinct, letters unbiased. */
static void test_id_alphabet_length_uniqueness(void **st)
{
    struct fixture *fx = *st;
    enum { N = 20000 };
    char err[512];
    assert_int_equal(create_db(fx->db, N, 1, 0, err, sizeof err), 0);
    struct links *l = open_db(fx->db, 1, err, sizeof err);
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
    assert_int_equal(create_db(fx->db, 100, 3, 0, err, sizeof err), 0);
    /* refuses to replace without force */
    assert_int_equal(create_db(fx->db, 1, 3, 0, err, sizeof err), ERRBUF_FAIL);
    for (int cache = 0; cache <= 1; cache++) {
        struct links *l = open_db(fx->db, cache, err, sizeof err);
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
    assert_null(open_db(other, 1, err, sizeof err));
    assert_non_null(strstr(err, "other.txt"));
    snprintf(other, sizeof other, "%s/missing.db", fx->dir);
    assert_null(open_db(other, 1, err, sizeof err));
    assert_int_not_equal(access(other, F_OK), 0);   /* not created */
}

/* Both schemas, real SQLite files with the same links (init --from):
 * identical answers for every id and for misses; new links work in both. */
static void test_schemas_agree(void **st)
{
    struct fixture *fx = *st;
    char err[512], cov[320];
    assert_int_equal(create_db(fx->db, 2000, 7, 0, err, sizeof err), 0);
    snprintf(cov, sizeof cov, "%s/covering.db", fx->dir);
    struct links_store from = store_of(fx->db), to = store_of(cov), self = from;
    struct links_create_opts o = {0, 1, 0, LINKS_SCHEMA_COVERING, &from, 0};
    int64_t copied = 0;
    assert_int_equal(links_create_db_opts(&to, &o, &copied, err, sizeof err), 0);
    assert_int_equal(copied, 2000);
    struct links *a = open_db(fx->db, 1, err, sizeof err);
    struct links *b = open_db(cov, 1, err, sizeof err);
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
    assert_int_equal(links_create_db_opts(&self, &o, &copied, err, sizeof err), ERRBUF_MISUSE);
}

/* A create request is refused from the texts alone (ERRBUF_MISUSE: a
 * --from that does not parse, or links_create_db_opts's checks), before
 * opening the source or reaching the target: nothing listens on
 * 127.0.0.1:1, so a refusal that came after a connection attempt would be
 * ERRBUF_FAIL. A source that cannot be opened is ERRBUF_FAIL, named as
 * --from's, and leaves no target. */
static void expect_create(const char *store, enum links_schema schema, const char *from,
                          int want, const char *says)
{
    struct links_store st = store_of(store), src;
    struct links_create_opts o = {0, 1, 0, schema, from ? &src : NULL, 0};
    char err[512] = "";
    int64_t copied = 0;
    int rc = from && links_store_parse(from, &src, err, sizeof err) != 0
                 ? ERRBUF_MISUSE
                 : links_create_db_opts(&st, &o, &copied, err, sizeof err);
    assert_int_equal(rc, want);
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

/* The store text parsed once: which engine, its target, what is shown. */
static void test_store_parse(void **st)
{
    (void)st;
    struct links_store s;
    char err[256];
    assert_int_equal(links_store_parse("links.db", &s, err, sizeof err), 0);
    assert_int_equal(s.kind, LINKS_KIND_SQLITE);
    assert_string_equal(s.text, "links.db");
    assert_string_equal(s.sqlite_file, "links.db");
    assert_null(s.pg_url);
    assert_string_equal(s.shown, "links.db");
    assert_int_equal(s.opts.sqlite_cache, 1);   /* the defaults */
    assert_int_equal(s.opts.sqlite_exclusive, 0);
    assert_int_equal(s.opts.nreplicas, 0);
    assert_int_equal(s.opts.timeout_ms, 0);
    assert_int_equal(links_store_parse("sqlite:/tmp/a:b.db", &s, err, sizeof err), 0);
    assert_int_equal(s.kind, LINKS_KIND_SQLITE);
    assert_string_equal(s.sqlite_file, "/tmp/a:b.db");   /* the prefix goes, a colon stays */
    assert_string_equal(s.shown, "sqlite:/tmp/a:b.db");  /* shown as given */
    assert_int_equal(links_store_parse("postgres://u@h:5/db", &s, err, sizeof err), 0);
    assert_int_equal(s.kind, LINKS_KIND_POSTGRES);
    assert_string_equal(s.pg_url, "postgres://u@h:5/db");
    assert_null(s.sqlite_file);
    assert_int_equal(links_store_parse("postgresql://h/db", &s, err, sizeof err), 0);
    assert_int_equal(s.kind, LINKS_KIND_POSTGRES);
    assert_string_equal(s.pg_url, "postgresql://h/db");
    /* the refusals, with today's messages */
    assert_int_equal(links_store_parse("mysql://h/db", &s, err, sizeof err), -1);
    assert_string_equal(err, "'mysql://h/db' is not a links store (PATH, sqlite:PATH or "
                             "postgres://...)");
    assert_int_equal(links_store_parse("sqlite:", &s, err, sizeof err), -1);
    assert_string_equal(err, "empty store path");
    assert_int_equal(links_store_parse("", &s, err, sizeof err), -1);
    assert_string_equal(err, "empty store path");
    assert_string_equal(links_kind_name(LINKS_KIND_POSTGRES), "postgres");
    assert_string_equal(links_kind_name(LINKS_KIND_SQLITE), "sqlite");
    /* a password never reaches a message or a result; the target keeps it */
    assert_int_equal(
        links_store_parse("postgres://kv:s3cret@127.0.0.1:5432/kv", &s, err, sizeof err), 0);
    assert_string_equal(s.shown, "postgres://kv:***@127.0.0.1:5432/kv");
    assert_string_equal(s.pg_url, "postgres://kv:s3cret@127.0.0.1:5432/kv");
    assert_int_equal(
        links_store_parse("postgres://kv@127.0.0.1:5432/kv?x=a:b", &s, err, sizeof err), 0);
    assert_string_equal(s.shown, "postgres://kv@127.0.0.1:5432/kv?x=a:b");
    assert_int_equal(links_store_parse("postgres://127.0.0.1:5432/kv", &s, err, sizeof err), 0);
    assert_string_equal(s.shown, "postgres://127.0.0.1:5432/kv");
    /* an SQLite store refuses replicas, before opening anything */
    const char *reps[1] = {"postgres://127.0.0.1:1/x"};
    assert_int_equal(links_store_parse("/nonexistent/x.db", &s, err, sizeof err), 0);
    s.opts.replicas = reps;
    s.opts.nreplicas = 1;
    assert_null(links_open_store(&s, err, sizeof err));
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
    cmocka_unit_test(test_store_parse))
