/* build: src/shortener/service/ src/shortener/store/ src/shortener/cache/ src/base/ src/measure/keys/rng.c src/measure/progress.c build/sqlite3.o -lhiredis -luriparser -lcjson -lpthread -lm; run: -max_len=70000 */
/* libFuzzer target: the shortener's request handling without HTTP.
 *
 * Input: "METHOD\nPATH\nBODY..." (missing parts are empty). Each input goes
 * through the pure validators and then through service_handle() against a
 * real SQLite links database in a temporary directory, so routing, JSON
 * parsing, URL/id validation, storage and reply building are all covered.
 * Invariants checked: every reply has a status the API documents and a body
 * that is valid JSON; a 201 id resolves to exactly the stored URL.
 *
 * Its build line links the request handler and what it calls (the folders
 * service/, store/ and cache/) and base/, not the HTTP glue (http/) nor
 * the HTTP server library.
 *
 * Build and run: make fuzz [FUZZ_TIME=30] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "shortener/store/linkid.h"
#include "shortener/store/links.h"
#include "shortener/service/request.h"
#include "shortener/service/service.h"
#define FUZZ_NAME "fuzz_request"
#include "tests/fuzz/fuzz_check.h"

static struct service *svc;
static char dir[64] = "/tmp/kvtest-fuzz-XXXXXX";
static char db[128];

static void cleanup(void)
{
    service_free(svc);
    unlink(db);
    char p[160];
    snprintf(p, sizeof p, "%s-wal", db);
    unlink(p);
    snprintf(p, sizeof p, "%s-shm", db);
    unlink(p);
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    char err[512];
    if (!mkdtemp(dir))
        abort();
    snprintf(db, sizeof db, "%s/links.db", dir);
    struct links_store st;
    struct links_create_opts co = {10, 1, 0, LINKS_SCHEMA_SEED, NULL, 0};
    int64_t made;
    if (links_store_parse(db, &st, err, sizeof err) != 0 ||
        links_create_db_opts(&st, &co, &made, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        abort();
    }
    struct service_opts o = {.workers = 1};
    svc = service_new(&st, &o, err, sizeof err);
    if (!svc) {
        fprintf(stderr, "%s\n", err);
        abort();
    }
    atexit(cleanup);
    return 0;
}

/* Copy [p, p+n) into a NUL-terminated string (what the HTTP glue hands us). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *end = data + size;
    const uint8_t *nl1 = memchr(data, '\n', size);
    const uint8_t *mend = nl1 ? nl1 : end;
    const uint8_t *pstart = nl1 ? nl1 + 1 : end;
    const uint8_t *nl2 = memchr(pstart, '\n', (size_t)(end - pstart));
    const uint8_t *pend = nl2 ? nl2 : end;
    const uint8_t *body = nl2 ? nl2 + 1 : end;
    size_t bodylen = (size_t)(end - body);

    char *method = fuzz_dupn(data, (size_t)(mend - data));
    char *path = fuzz_dupn(pstart, (size_t)(pend - pstart));

    /* Validators on raw bytes (no NUL termination promised). */
    const char *why;
    char url[LINKS_URL_MAX + 1];
    size_t ulen;
    (void)linkid_valid((const char *)data, size);
    (void)request_check_url((const char *)data, size, &why);
    (void)request_parse_create((const char *)body, bodylen, url, sizeof url, &ulen, &why);

    struct service_reply r;
    int too_large = bodylen > REQUEST_BODY_MAX;
    service_handle(svc, service_worker_at(svc, 0), method, path, NULL,
                   (const char *)body, too_large ? 0 : bodylen, too_large, &r);
    switch (r.status) {
    case 200: case 201: case 400: case 404: case 405: case 413:
        break;
    default:
        fprintf(stderr, "undocumented status %d\n", r.status);
        abort();
    }
    cJSON *j = r.body ? cJSON_ParseWithLength(r.body, r.len) : NULL;
    if (!j)
        abort();   /* every reply is JSON */
    if (r.status == 201) {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(j, "short_link");
        if (!cJSON_IsString(id) || strlen(id->valuestring) != LINKS_ID_LEN)
            abort();
        char p2[80];
        snprintf(p2, sizeof p2, "/link/%s", id->valuestring);
        struct service_reply r2;
        service_handle(svc, service_worker_at(svc, 0), "GET", p2, NULL, NULL, 0, 0, &r2);
        cJSON *j2 = cJSON_ParseWithLength(r2.body, r2.len);
        const cJSON *link = cJSON_GetObjectItemCaseSensitive(j2, "link");
        if (r2.status != 200 || !cJSON_IsString(link) ||
            request_parse_create((const char *)body, bodylen, url, sizeof url, &ulen, &why) != 0 ||
            strcmp(link->valuestring, url) != 0)
            abort();   /* a created link must resolve to what was sent */
        cJSON_Delete(j2);
        service_reply_free(&r2);
    }
    cJSON_Delete(j);
    service_reply_free(&r);
    free(method);
    free(path);
    return 0;
}
