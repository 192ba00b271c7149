/* build: src/shortener/cache/cache_url.c src/shortener/cache/cluster_slots.c src/shortener/store/ src/base/ src/measure/keys/rng.c src/measure/progress.c build/sqlite3.o -luriparser -lcjson -lpthread -lm */
/* libFuzzer target: the texts that name the shortener's cache and store —
 * the --cache URL (cache_parse_url, cache/cache.h), a Valkey Cluster
 * server's -MOVED/-ASK redirect (cluster_redirect_parse,
 * cache/cluster_slots.h) and the store argument (links_store_parse,
 * store/links.h).
 *
 * Input: any bytes; up to the first NUL they are the cache URL and the
 * store text, and all of them the redirect message (which has a length).
 *
 * Invariants checked:
 *  - cache_parse_url: 0 or -1, the same answer, cfg and message twice;
 *    with an error buffer of 1..15 bytes (on the heap, exactly that size)
 *    the answer and cfg do not change and the message stays within it.
 *    On success: the scheme's track and cluster flags; host non-empty and
 *    terminated; port 1..65535; db 0..1000000 (0 for a cluster); a cluster
 *    has 1..CACHE_MAX_SEEDS seeds, each with a host and a port, the first
 *    one being host:port, anything else has none; the default timeouts and
 *    no TTL; credentials exactly when the URL has a '@', then cred.pass
 *    non-empty, and user and pass terminated. On failure: err is one line
 *    (no '\n') "bad cache URL 'URL': ..." where URL is the input with the
 *    password cache_parse_url reads (from the first ':' after "://" to
 *    the last '@') written "***", or url_mask's copy when it has none, and
 *    each control byte as '?'; and it never shows the password: for a URL of one of the
 *    five schemes, PW is what cache_parse_url takes as the password (from
 *    the first ':' after the scheme to the last '@'); PW must not appear
 *    in err unless it also appears elsewhere in the input (or holds a '*',
 *    which the mask writes, or a '?' in an input with a control byte,
 *    which the message writes '?'), and no byte of PW that occurs nowhere else in
 *    the input may show in the URL quoted (the mask writes only input
 *    bytes and "***", so such a byte can only come from the password).
 *  - cluster_redirect_parse: on success "MOVED " or "ASK " (ask set to
 *    match), a slot in 0..16383, a port in 1..65535, and the message is
 *    exactly PREFIX SLOT ' ' HOST ':' PORT with HOST terminated.
 *  - links_store_parse: 0 or -1 as its contract says: postgres:// and
 *    postgresql:// are PostgreSQL with the text as target; "sqlite:PATH"
 *    and a PATH without "://" are SQLite with PATH as target, never empty;
 *    anything else (another "SCHEME://", an empty path) fails with a
 *    reason that fits any error buffer.
 *
 * Its build line links the whole store (store/): links_store_parse's file,
 * links_open.c, calls both store engines.
 *
 * Build and run: make fuzz [FUZZ_TIME=30] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/url_mask.h"
#include "shortener/cache/cache.h"
#include "shortener/cache/cluster_slots.h"
#include "shortener/store/links.h"

#define FUZZ_NAME "fuzz_cacheurl"
#include "tests/fuzz/fuzz_check.h"

#define ERRCAP 2048   /* more than any message: "bad cache URL '" + 511 + reason */

static int terminated(const char *s, size_t cap)
{
    return memchr(s, '\0', cap) != NULL;
}

/* The n bytes at at (inside hay) occur in hay at another position too. */
static int elsewhere(const char *hay, const char *at, size_t n)
{
    for (const char *p = hay; *p; p++)
        if (p != at && strncmp(p, at, n) == 0)
            return 1;
    return 0;
}

static void check_password(const char *text, const char *shown)
{
    static const char *const schemes[] = {"valkey://", "redis://", "valkey+track://",
                                          "valkey-cluster://", "valkey-cluster+track://"};
    const char *rest = NULL;
    for (size_t i = 0; i < sizeof schemes / sizeof schemes[0] && !rest; i++)
        if (strncmp(text, schemes[i], strlen(schemes[i])) == 0)
            rest = text + strlen(schemes[i]);
    const char *at = rest ? strrchr(rest, '@') : NULL;
    const char *colon = at ? memchr(rest, ':', (size_t)(at - rest)) : NULL;
    if (!colon || colon + 1 == at)
        return;
    const char *pw = colon + 1;
    size_t n = (size_t)(at - pw);
    /* the message writes '*' (the mask) and '?' (a control byte) itself */
    int controls = 0;
    for (const char *q = text; *q; q++)
        controls |= (unsigned char)*q < 0x20 || *q == 0x7f;
    /* A '?' in the password may be matched by a control byte's '?' in the
     * message: then only the byte check below can tell. */
    if (!memchr(pw, '*', n) && !(controls && memchr(pw, '?', n)) && !elsewhere(text, pw, n)) {
        char *p = malloc(n + 1);
        if (!p)
            abort();
        memcpy(p, pw, n);
        p[n] = '\0';
        int shown_pw = strstr(shown, p) != NULL;
        if (shown_pw)
            fprintf(stderr, "fuzz_cacheurl: password '%s' shown in '%s'\n", p, shown);
        free(p);
        CHECK(!shown_pw, "cache_parse_url's message shows the password");
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char b = (unsigned char)pw[i];
        int other = b == '*' || (b == '?' && controls);
        for (const char *q = text; *q && !other; q++)
            other = (q < pw || q >= at) && (unsigned char)*q == b;
        if (!other && strchr(shown, b)) {
            fprintf(stderr, "fuzz_cacheurl: byte 0x%02x of the password shown in '%s'\n", b, shown);
            CHECK(0, "cache_parse_url's message shows part of the password");
        }
    }
}

static void check_cfg(const char *text, const struct cache_config *c)
{
    int cluster = strncmp(text, "valkey-cluster", 14) == 0;
    int track = strncmp(text, "valkey+track://", 15) == 0 ||
                strncmp(text, "valkey-cluster+track://", 23) == 0;
    CHECK(c->cluster == cluster && c->track == track, "flags do not match the scheme");
    CHECK(terminated(c->host, sizeof c->host) && c->host[0], "host empty or unterminated");
    CHECK(c->port >= 1 && c->port <= 65535, "port outside 1..65535");
    CHECK(c->db >= 0 && c->db <= 1000000, "db outside 0..1000000");
    CHECK(c->connect_timeout_ms == CACHE_TIMEOUT_MS && c->command_timeout_ms == CACHE_TIMEOUT_MS &&
              c->ttl_s == 0 && c->track_size == 0,
          "defaults not set");
    if (cluster) {
        CHECK(c->db == 0, "a cluster with a database");
        CHECK(c->nseeds >= 1 && c->nseeds <= CACHE_MAX_SEEDS, "cluster seeds outside 1..16");
        CHECK(strcmp(c->host, c->seeds[0].host) == 0 && c->port == c->seeds[0].port,
              "host:port is not the first seed");
        for (int i = 0; i < c->nseeds; i++) {
            const struct cache_seed *s = &c->seeds[i];
            CHECK(terminated(s->host, sizeof s->host) && s->host[0], "seed host empty or unterminated");
            CHECK(s->port >= 1 && s->port <= 65535, "seed port outside 1..65535");
        }
    } else {
        CHECK(c->nseeds == 0, "seeds without a cluster");
    }
    const char *rest = strstr(text, "://") + 3;
    CHECK(c->cred.has_pass == (strchr(rest, '@') != NULL), "credentials without '@' or '@' without them");
    CHECK(terminated(c->cred.user, sizeof c->cred.user) && terminated(c->cred.pass, sizeof c->cred.pass),
          "user or password unterminated");
    if (c->cred.has_pass)
        CHECK(c->cred.pass[0], "has_pass with an empty password");
    else
        CHECK(!c->cred.user[0] && !c->cred.pass[0], "a user or password without has_pass");
}

static void check_cache_url(const char *text)
{
    struct cache_config c1, c2;
    char *err = malloc(ERRCAP), *err2 = malloc(ERRCAP);
    if (!err || !err2)
        abort();
    int rc = cache_parse_url(text, &c1, err, ERRCAP);
    CHECK(rc == 0 || rc == -1, "cache_parse_url returned neither 0 nor -1");
    CHECK(cache_parse_url(text, &c2, err2, ERRCAP) == rc && memcmp(&c1, &c2, sizeof c1) == 0 &&
              (rc == 0 || strcmp(err, err2) == 0),
          "cache_parse_url not deterministic");
    for (size_t cap = 1; cap < 16; cap++) {
        char *small = malloc(cap);
        if (!small)
            abort();
        CHECK(cache_parse_url(text, &c2, small, cap) == rc && memcmp(&c1, &c2, sizeof c1) == 0,
              "cache_parse_url's answer depends on the error buffer's size");
        CHECK(rc == 0 || (terminated(small, cap) && strncmp(small, err, cap - 1) == 0),
              "a small error buffer does not hold the message's start, terminated");
        free(small);
    }
    if (rc == 0) {
        check_cfg(text, &c1);
    } else {
        CHECK(terminated(err, ERRCAP) && err[0], "no reason on failure");
        CHECK(!strchr(err, '\n'), "the reason is not one line");
        char shown[512];
        const char *auth = strstr(text, "://");
        const char *at = auth ? strrchr(auth + 3, '@') : NULL;
        const char *colon = at ? memchr(auth + 3, ':', (size_t)(at - auth - 3)) : NULL;
        if (colon)
            snprintf(shown, sizeof shown, "%.*s:***%s", (int)(colon - text), text, at);
        else
            url_mask(text, shown, sizeof shown);
        for (char *c = shown; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f)
                *c = '?';
        static const char head[] = "bad cache URL '";
        size_t hl = sizeof head - 1, sl = strlen(shown);
        CHECK(strncmp(err, head, hl) == 0 && strncmp(err + hl, shown, sl) == 0 &&
                  strncmp(err + hl + sl, "': ", 3) == 0,
              "the reason is not \"bad cache URL 'URL': ...\" with URL masked");
        check_password(text, shown);
    }
    free(err);
    free(err2);
}

static void check_redirect(const char *msg, size_t len)
{
    struct cluster_redirect r;
    memset(&r, 0, sizeof r);
    if (cluster_redirect_parse(msg, len, &r) != 0)
        return;
    size_t skip = r.ask ? 4 : 6;
    CHECK(len > skip && memcmp(msg, r.ask ? "ASK " : "MOVED ", skip) == 0, "redirect prefix does not match ask");
    CHECK(r.slot >= 0 && r.slot < CLUSTER_NSLOTS, "redirect slot outside 0..16383");
    CHECK(r.port >= 1 && r.port <= 65535, "redirect port outside 1..65535");
    CHECK(terminated(r.host, sizeof r.host), "redirect host unterminated");
    /* PREFIX SLOT ' ' HOST ':' PORT, the numbers as digits of their value. */
    const char *p = msg + skip, *end = msg + len;
    long v = 0;
    while (p < end && *p >= '0' && *p <= '9')
        v = v * 10 + (*p++ - '0');
    CHECK(v == r.slot && p < end && *p == ' ', "redirect slot is not the message's");
    p++;
    const char *colon = NULL;
    for (const char *q = p; q < end; q++)
        if (*q == ':')
            colon = q;
    CHECK(colon && memcmp(p, r.host, (size_t)(colon - p)) == 0 && r.host[colon - p] == '\0',
          "redirect host is not the message's");
    v = 0;
    for (p = colon + 1; p < end; p++) {
        CHECK(*p >= '0' && *p <= '9', "redirect port with a non-digit");
        v = v * 10 + (*p - '0');
    }
    CHECK(v == r.port, "redirect port is not the message's");
}

static void check_store(const char *store)
{
    struct links_store st;
    char err[256];
    int rc = links_store_parse(store, &st, err, sizeof err);
    int pg = strncmp(store, "postgres://", 11) == 0 || strncmp(store, "postgresql://", 13) == 0;
    int sq = strncmp(store, "sqlite:", 7) == 0;
    const char *path = sq ? store + 7 : store;
    int want = pg || (*path && (sq || !strstr(store, "://"))) ? 0 : -1;
    CHECK(rc == want, "links_store_parse's answer is not its contract's");
    if (rc == 0) {
        CHECK(st.kind == (pg ? LINKS_KIND_POSTGRES : LINKS_KIND_SQLITE), "wrong store kind");
        CHECK(pg ? st.pg_url == store && !st.sqlite_file : st.sqlite_file == path && !st.pg_url,
              "wrong store target");
        CHECK(st.text == store && terminated(st.shown, sizeof st.shown), "wrong store text");
    } else {
        CHECK(terminated(err, sizeof err) && err[0], "links_store_parse failed without a reason");
        char one[1];
        CHECK(links_store_parse(store, &st, one, sizeof one) == -1 && one[0] == '\0',
              "links_store_parse's message overran a 1-byte buffer");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    char *raw = malloc(size ? size : 1);
    if (!text || !raw)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';
    memcpy(raw, data, size);   /* exactly size bytes: reads past them are caught */
    check_cache_url(text);
    check_redirect(raw, size);
    check_store(text);
    free(text);
    free(raw);
    return 0;
}
