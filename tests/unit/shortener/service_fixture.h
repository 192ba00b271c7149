/* The shortener's service over an empty link database in a fixture's
 * scratch directory (tests/unit/fixture.h: fixture_dir_setup). Shared
 * because test_service, test_share and test_service_http each made it by
 * hand, the same way: an empty SQLite link store at fx->db, a service of
 * N workers over it with SQLite's page cache on and no Valkey. Static
 * inline (a binary uses some of them); include after tests/unit/unit.h. */
#ifndef TESTS_UNIT_SHORTENER_SERVICE_FIXTURE_H
#define TESTS_UNIT_SHORTENER_SERVICE_FIXTURE_H

#include "shortener/service/service.h"
#include "shortener/store/links.h"
#include "tests/unit/fixture.h"

/* The link store at fx->db, parsed. */
static inline struct links_store fixture_links_store(struct fixture *fx)
{
    char err[512];
    struct links_store st;
    assert_int_equal(links_store_parse(fx->db, &st, err, sizeof err), 0);
    return st;
}

/* An empty link store at fx->db (replacing any). */
static inline void fixture_links_db(struct fixture *fx)
{
    char err[512];
    struct links_store st = fixture_links_store(fx);
    struct links_create_opts o = {0, 1, 1, LINKS_SCHEMA_SEED, NULL, 0};
    int64_t made;
    assert_int_equal(links_create_db_opts(&st, &o, &made, err, sizeof err), 0);
}

/* A service of workers workers over the link store at fx->db (SQLite's
 * page cache on: the store's defaults). */
static inline struct service *fixture_service_open(struct fixture *fx, int workers)
{
    char err[512];
    struct service_opts o = {.workers = workers};
    struct links_store st = fixture_links_store(fx);
    struct service *s = service_new(&st, &o, err, sizeof err);
    assert_non_null(s);
    return s;
}

/* Both: a new empty link store and a service over it. */
static inline struct service *fixture_service(struct fixture *fx, int workers)
{
    fixture_links_db(fx);
    return fixture_service_open(fx, workers);
}

#endif
