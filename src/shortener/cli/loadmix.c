/* loadmix: request mix, key selection and answer classification for
 * "kvtest shortener load" (see loadmix.h). */
#include "shortener/cli/loadmix.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "shortener/store/linkid.h"

#define LOADKEYS_MAX_FILE (1024LL * 1024 * 1024)

const char *loadmix_req_name(enum load_req r)
{
    return r == LOAD_POST ? "POST" : r == LOAD_GET ? "GET" : "?";
}

const char *loadmix_fail_name(enum load_fail f)
{
    static const char *const names[LOAD_NFAIL] = {
        "ok", "connect", "timeout", "io", "http_status", "bad_body",
    };
    return (unsigned)f < LOAD_NFAIL ? names[f] : "?";
}

static void say(char *why, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void say(char *why, size_t cap, const char *fmt, ...)
{
    if (!why || cap == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, cap, fmt, ap);
    va_end(ap);
}

/* The string member `field` of a JSON object body, or NULL (result freed
 * with the returned root in *root). */
static const char *json_string_field(const char *body, size_t len, const char *field,
                                     cJSON **root)
{
    *root = body && len ? cJSON_ParseWithLength(body, len) : NULL;
    if (!*root || !cJSON_IsObject(*root))
        return NULL;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(*root, field);
    return cJSON_IsString(v) && v->valuestring ? v->valuestring : NULL;
}

/* What every answer check starts with: the expected status, a JSON object
 * body and a string member `field` (in *s; *root to delete in any case).
 * LOAD_OK, or the failure with its reason in why. */
static enum load_fail check_reply(long status, long want, const char *body, size_t len,
                                  const char *field, cJSON **root, const char **s,
                                  char *why, size_t whycap)
{
    *root = NULL;
    *s = NULL;
    if (status != want) {
        say(why, whycap, "HTTP %ld (expected %ld)", status, want);
        return LOAD_FAIL_STATUS;
    }
    *s = json_string_field(body, len, field, root);
    if (!*root) {
        say(why, whycap, "%ld with a body that is not a JSON object", want);
        return LOAD_FAIL_BODY;
    }
    if (!*s) {
        say(why, whycap, "%ld without a string \"%s\"", want, field);
        return LOAD_FAIL_BODY;
    }
    return LOAD_OK;
}

enum load_fail loadmix_check_post(long status, const char *body, size_t len,
                                  char *id, size_t idcap, char *why, size_t whycap)
{
    cJSON *root;
    const char *s;
    enum load_fail f = check_reply(status, 201, body, len, "short_link", &root, &s, why, whycap);
    if (f == LOAD_OK) {
        size_t n = strlen(s);
        if (!linkid_valid(s, n)) {
            say(why, whycap, "201 with an invalid short_link");
            f = LOAD_FAIL_BODY;
        } else if (n >= idcap) {
            say(why, whycap, "201 with a short_link too long to keep");
            f = LOAD_FAIL_BODY;
        } else {
            memcpy(id, s, n + 1);
        }
    }
    cJSON_Delete(root);
    return f;
}

enum load_fail loadmix_check_get(long status, const char *body, size_t len,
                                 const char *expect_url, char *why, size_t whycap)
{
    cJSON *root;
    const char *s;
    enum load_fail f = check_reply(status, 200, body, len, "link", &root, &s, why, whycap);
    if (f == LOAD_OK && expect_url) {
        if (strcmp(s, expect_url) != 0) {
            say(why, whycap, "200 with a link other than the one created");
            f = LOAD_FAIL_BODY;
        }
    } else if (f == LOAD_OK && strncmp(s, "http://", 7) != 0 && strncmp(s, "https://", 8) != 0) {
        say(why, whycap, "200 with a link that is not an http(s) URL");
        f = LOAD_FAIL_BODY;
    }
    cJSON_Delete(root);
    return f;
}

int loadmix_task_step(int64_t step, int64_t gets)
{
    if (step == 0)
        return LOAD_POST;
    if (step >= 1 && step <= gets)
        return LOAD_GET;
    return -1;
}

enum load_req loadmix_pick(double create_ratio, int have_ids, rng_t *r)
{
    if (!have_ids || create_ratio >= 1.0)
        return LOAD_POST;
    if (create_ratio <= 0.0)
        return LOAD_GET;
    return rng_double(r) < create_ratio ? LOAD_POST : LOAD_GET;
}

size_t loadmix_make_url(char *buf, size_t cap, rng_t *r, uint64_t vu, uint64_t seq)
{
    static const char alnum[] =
        "abcdefghijklmnopqrstuvwxyz0123456789";
    static const char *const hosts[] = {
        "example.com", "www.example.org", "docs.example.net", "shop.example.com",
    };
    if (cap < 256)
        return 0;
    /* Lengths spread like real links: mostly short, some long. */
    size_t target = 30 + (size_t)rng_below(r, 60);
    if (rng_below(r, 4) == 0)
        target += (size_t)rng_below(r, 110);
    int n = snprintf(buf, cap, "https://%s/kvtest/%llu/%llu/",
                     hosts[rng_below(r, 4)], (unsigned long long)vu,
                     (unsigned long long)seq);
    size_t len = (size_t)n;
    while (len < target && len + 1 < cap) {
        buf[len] = (len % 12 == 0) ? '/' : alnum[rng_below(r, sizeof(alnum) - 1)];
        len++;
    }
    buf[len] = '\0';
    return len;
}

int loadkeys_parse(struct loadkeys *k, char *buf, size_t len, char *err, size_t errcap)
{
    memset(k, 0, sizeof(*k));
    k->buf = buf;
    size_t cap = 0, line = 0;
    char *p = buf, *end = buf + len;
    while (p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        char *e = nl ? nl : end;
        line++;
        char *s = p;
        while (s < e && isspace((unsigned char)*s))
            s++;
        char *t = e;
        while (t > s && isspace((unsigned char)t[-1]))
            t--;
        p = nl ? nl + 1 : end;
        if (s == t)
            continue;
        *t = '\0';   /* t <= e: the '\n', or buf[len], which the caller provides */
        if (!linkid_valid(s, strlen(s))) {
            say(err, errcap, "line %zu: not a link id (1-64 of [A-Za-z0-9])", line);
            free(k->id);
            memset(k, 0, sizeof(*k));
            return -1;
        }
        if (k->n == cap) {
            size_t ncap = cap ? cap * 2 : 1024;
            char **nid = realloc(k->id, ncap * sizeof(*nid));
            if (!nid) {
                say(err, errcap, "out of memory");
                free(k->id);
                memset(k, 0, sizeof(*k));
                return -1;
            }
            k->id = nid;
            cap = ncap;
        }
        k->id[k->n++] = s;
    }
    return 0;
}

int loadkeys_read(struct loadkeys *k, const char *path, char *err, size_t errcap)
{
    memset(k, 0, sizeof(*k));
    FILE *f = fopen(path, "rb");
    if (!f) {
        say(err, errcap, "%s: %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (len + 1 >= cap) {
            if ((long long)cap >= LOADKEYS_MAX_FILE) {
                fclose(f);
                free(buf);
                say(err, errcap, "%s: larger than 1 GiB", path);
                return -1;
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0)
            break;
    }
    int rerr = ferror(f);
    fclose(f);
    if (!buf) {
        say(err, errcap, "%s: out of memory", path);
        return -1;
    }
    if (rerr) {
        free(buf);
        say(err, errcap, "%s: read error", path);
        return -1;
    }
    buf[len] = '\0';
    char perr[160];
    if (loadkeys_parse(k, buf, len, perr, sizeof(perr)) != 0) {
        say(err, errcap, "%s: %s", path, perr);
        free(buf);
        return -1;
    }
    if (k->n == 0) {
        say(err, errcap, "%s: no link ids in the file", path);
        loadkeys_free(k);
        return -1;
    }
    return 0;
}

void loadkeys_free(struct loadkeys *k)
{
    free(k->id);
    free(k->buf);
    memset(k, 0, sizeof(*k));
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int loadpick_init(struct loadpick *p, uint64_t n, double zipf_s)
{
    memset(p, 0, sizeof(*p));
    if (n < 1 || zipf_s < 0)
        return -1;
    p->n = n;
    /* A step near n/phi, made coprime with n, visits every index once per n
     * ranks and throws neighbouring ranks far apart. */
    uint64_t step = (uint64_t)((double)n * 0.6180339887498949) | 1;
    if (step >= n)
        step = 1;
    while (gcd64(step, n) != 1)
        step++;
    p->step = step % n ? step % n : 1;
    p->offset = n / 3;
    if (zipf_s > 0) {
        if (zipf_init(&p->z, n, zipf_s) != 0)
            return -1;
        p->zipf_on = 1;
    }
    return 0;
}

uint64_t loadpick_scatter(const struct loadpick *p, uint64_t rank0)
{
    unsigned __int128 x = (unsigned __int128)rank0 * p->step + p->offset;
    return (uint64_t)(x % p->n);
}

uint64_t loadpick_next(const struct loadpick *p, rng_t *r)
{
    if (!p->zipf_on)
        return rng_below(r, p->n);
    return loadpick_scatter(p, zipf_next(&p->z, r) - 1);
}
