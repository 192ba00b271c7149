/* url_mask: passwords out of texts. See url_mask.h. */
#include "base/url_mask.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct sink {
    char *out;
    size_t cap, n;
};

/* Appends what fits; out stays terminated. */
static void put(struct sink *s, const char *p, size_t len)
{
    if (s->cap == 0)
        return;
    size_t room = s->cap - 1 - s->n;
    if (len > room)
        len = room;
    memcpy(s->out + s->n, p, len);
    s->n += len;
    s->out[s->n] = '\0';
}

/* Where a URL ends inside a message or a command line. */
static int url_stop(char c)
{
    return c == '\0' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\'' ||
           c == '"';
}

/* The length of a "password=" value starting at v: quoted 'with \' escapes'
 * as libpq's keyword/value strings allow, and then (as unquoted) up to '&'
 * or a URL's end: what follows a closing quote is masked with it, so that
 * masking a masked text changes nothing ('a'b gave ***b, then ***). */
static size_t value_len(const char *v)
{
    const char *p = v;
    if (*p == '\'') {
        for (p++; *p && *p != '\''; p++)
            if (*p == '\\' && p[1])
                p++;
        if (*p == '\'')
            p++;
    }
    while (!url_stop(*p) && *p != '&')
        p++;
    return (size_t)(p - v);
}

static const char key[] = "password=";
#define KEY_LEN (sizeof key - 1)

/* Does a "password=" key start at p (text's start, or after '?', '&' or a
 * blank)? */
static int key_at(const char *text, const char *p)
{
    int starts = p == text || p[-1] == '?' || p[-1] == '&' || p[-1] == ' ' || p[-1] == '\t';
    return starts && strncasecmp(p, key, KEY_LEN) == 0;
}

/* The '@' that ends the userinfo of the URL whose authority starts at p:
 * the last one before the URL ends, so that a password holding '@' or '/'
 * (libpq wants them percent-encoded, people type them raw) is masked
 * whole; masking a path's "a:b@c" too is the safe mistake. NULL: none. */
static const char *userinfo_end(const char *p)
{
    const char *at = NULL;
    for (; !url_stop(*p) && strncmp(p, "://", 3) != 0; p++)
        if (*p == '@')
            at = p;
    return at;
}

/* One pass over text: each password the rules above find, masked. */
static int mask_once(const char *text, char *out, size_t cap)
{
    const size_t klen = KEY_LEN;
    struct sink s = {out, cap, 0};
    if (cap > 0)
        out[0] = '\0';
    int masked = 0;
    for (const char *p = text; *p;) {
        if (strncmp(p, "://", 3) == 0) {
            put(&s, p, 3);
            p += 3;
            const char *at = userinfo_end(p);
            const char *colon = at ? memchr(p, ':', (size_t)(at - p)) : NULL;
            if (colon) {   /* USER:PASSWORD@: keep USER: */
                put(&s, p, (size_t)(colon - p) + 1);
                put(&s, "***", 3);
                p = at;
                masked = 1;
            }
            continue;
        }
        if (key_at(text, p)) {
            put(&s, p, klen);
            put(&s, "***", 3);
            p += klen;
            p += value_len(p);
            masked = 1;
            continue;
        }
        put(&s, p, 1);
        p++;
    }
    return masked;
}

int url_mask(const char *text, char *out, size_t cap)
{
    /* One pass can uncover a secret for the next: a masked value no
     * longer holds the "://" or ':' that decided where a userinfo ended
     * ("po://u:p/x?password=://y&z@h", found by fuzz_url). Masked until a
     * pass changes nothing, so that masking a masked text is a no-op; the
     * whole text first, then cut to cap, so a shorter cap gives a prefix.
     * A pass grows a text by at most 2 bytes a masked "password=x". */
    size_t room = 2 * strlen(text) + 16;
    char *a = malloc(room), *b = malloc(room);
    if (!a || !b) {   /* out of memory: one pass, straight into out */
        free(a), free(b);
        return mask_once(text, out, cap);
    }
    int masked = mask_once(text, a, room);
    for (int pass = 0; pass < 8; pass++) {
        mask_once(a, b, room);
        if (strcmp(a, b) == 0)
            break;
        char *t = a;
        a = b, b = t;
        masked = 1;
    }
    struct sink s = {out, cap, 0};
    if (cap > 0)
        out[0] = '\0';
    put(&s, a, strlen(a));
    free(a), free(b);
    return masked;
}
