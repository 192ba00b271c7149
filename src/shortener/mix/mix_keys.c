/* mix_keys: key files (see mix_keys.h). */
#include "shortener/mix/mix_keys.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"
#include "shortener/store/linkid.h"

#define MIX_KEYS_MAX_FILE (1024LL * 1024 * 1024)

int mix_keys_parse(struct mix_keys *k, char *buf, size_t len, char *err, size_t errcap)
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
        /* the whole line, not up to a NUL inside it: "ab\0cd" is no id */
        if (!linkid_valid(s, (size_t)(t - s))) {
            errbuf_say(err, errcap, "line %zu: not a link id (1-64 of [A-Za-z0-9])", line);
            free(k->id);
            memset(k, 0, sizeof(*k));
            return -1;
        }
        if (k->n == cap) {
            size_t ncap = cap ? cap * 2 : 1024;
            char **nid = realloc(k->id, ncap * sizeof(*nid));
            if (!nid) {
                errbuf_say(err, errcap, "out of memory");
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

int mix_keys_read(struct mix_keys *k, const char *path, char *err, size_t errcap)
{
    memset(k, 0, sizeof(*k));
    FILE *f = fopen(path, "rb");
    if (!f) {
        errbuf_say(err, errcap, "%s: %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (len + 1 >= cap) {
            if ((long long)cap >= MIX_KEYS_MAX_FILE) {
                fclose(f);
                free(buf);
                errbuf_say(err, errcap, "%s: larger than 1 GiB", path);
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
        errbuf_say(err, errcap, "%s: out of memory", path);
        return -1;
    }
    if (rerr) {
        free(buf);
        errbuf_say(err, errcap, "%s: read error", path);
        return -1;
    }
    buf[len] = '\0';
    char perr[160];
    if (mix_keys_parse(k, buf, len, perr, sizeof(perr)) != 0) {
        errbuf_say(err, errcap, "%s: %s", path, perr);
        free(buf);
        return -1;
    }
    if (k->n == 0) {
        errbuf_say(err, errcap, "%s: no link ids in the file", path);
        mix_keys_free(k);
        return -1;
    }
    return 0;
}

void mix_keys_free(struct mix_keys *k)
{
    free(k->id);
    free(k->buf);
    memset(k, 0, sizeof(*k));
}
