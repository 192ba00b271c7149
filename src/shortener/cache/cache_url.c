/* cache_url: --cache URLs into a cache_config. See cache_parse_url in
 * cache.h. */
#include "shortener/cache/cache.h"

#include <stdio.h>
#include <string.h>

#include <uriparser/Uri.h>

#include "base/net.h"
#include "base/url_mask.h"

#define EXPECTED "expected none, valkey://[USER:PASSWORD@]HOST:PORT[/DB], valkey+track://..., " \
                 "valkey-cluster://[USER:PASSWORD@]HOST:PORT[,HOST:PORT...] or " \
                 "valkey-cluster+track://..."

/* HOST:PORT (the len bytes at p) into host and *port. 0, or -1 with err. */
static int parse_authority(const char *url, const char *p, size_t len, char *host,
                           size_t hostcap, int *port, char *err, size_t errcap)
{
    struct net_hostport hp;
    if (net_hostport_split(p, len, &hp, NULL, 0) != 0 || (hp.bracketed && !hp.port)) {
        snprintf(err, errcap, "bad cache URL '%s': expected [IPv6]:PORT", url);
        return -1;
    }
    if (!hp.port) {
        snprintf(err, errcap, "bad cache URL '%s': missing :PORT", url);
        return -1;
    }
    if (hp.hlen == 0 || hp.hlen >= hostcap || memchr(hp.host, '@', hp.hlen)) {
        snprintf(err, errcap, "bad cache URL '%s': bad host", url);
        return -1;
    }
    memcpy(host, hp.host, hp.hlen);
    host[hp.hlen] = '\0';
    long v;
    if (net_parse_num(hp.port, hp.plen, 1, 65535, &v) != 0) {
        snprintf(err, errcap, "bad cache URL '%s': port must be 1..65535", url);
        return -1;
    }
    *port = (int)v;
    return 0;
}

/* The seed list of a cluster URL: HOST:PORT[,HOST:PORT...]. */
static int parse_seeds(const char *url, const char *p, struct cache_config *cfg, char *err,
                       size_t errcap)
{
    if (strchr(p, '/')) {
        snprintf(err, errcap, "bad cache URL '%s': a cluster has no /DB (database 0 only)", url);
        return -1;
    }
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (cfg->nseeds == CACHE_MAX_SEEDS) {
            snprintf(err, errcap, "bad cache URL '%s': at most %d seed nodes", url,
                     CACHE_MAX_SEEDS);
            return -1;
        }
        if (len == 0) {
            snprintf(err, errcap, "bad cache URL '%s': empty seed address", url);
            return -1;
        }
        struct cache_seed *s = &cfg->seeds[cfg->nseeds];
        if (parse_authority(url, p, len, s->host, sizeof s->host, &s->port, err, errcap) != 0)
            return -1;
        cfg->nseeds++;
        if (!comma)
            break;
        p = comma + 1;
    }
    memcpy(cfg->host, cfg->seeds[0].host, sizeof cfg->host);
    cfg->port = cfg->seeds[0].port;
    return 0;
}

/* One part of "USER:PASSWORD" (len bytes at p) into out, percent-decoded.
 * 0, or -1 with err. */
static int credential(const char *url, const char *what, const char *p, size_t len, char *out,
                      size_t cap, char *err, size_t errcap)
{
    if (len >= cap) {
        snprintf(err, errcap, "bad cache URL '%s': %s longer than %zu bytes", url, what, cap - 1);
        return -1;
    }
    memcpy(out, p, len);
    out[len] = '\0';
    const char *end = uriUnescapeInPlaceExA(out, URI_FALSE, URI_BR_DONT_TOUCH);
    if ((size_t)(end - out) != strlen(out)) {   /* a %00 */
        snprintf(err, errcap, "bad cache URL '%s': %s holds a NUL byte", url, what);
        return -1;
    }
    return 0;
}

/* "USER:PASSWORD" or ":PASSWORD" (len bytes at p) into cfg. */
static int parse_userinfo(const char *url, const char *p, size_t len, struct cache_config *cfg,
                          char *err, size_t errcap)
{
    const char *colon = memchr(p, ':', len);
    if (!colon) {   /* AUTH wants a password; a user alone would mean none */
        snprintf(err, errcap, "bad cache URL '%s': credentials are USER:PASSWORD@ "
                 "(or :PASSWORD@ for the default user)", url);
        return -1;
    }
    size_t ulen = (size_t)(colon - p);
    if (credential(url, "the user", p, ulen, cfg->cred.user, sizeof cfg->cred.user, err, errcap) != 0 ||
        credential(url, "the password", colon + 1, len - ulen - 1, cfg->cred.pass, sizeof cfg->cred.pass,
                   err, errcap) != 0)
        return -1;
    if (!cfg->cred.pass[0]) {
        snprintf(err, errcap, "bad cache URL '%s': empty password", url);
        return -1;
    }
    cfg->cred.has_pass = 1;
    return 0;
}

/* text as messages show it: the password masked as the parse below reads
 * it (up to the last '@', whatever it holds: url_mask stops at a blank, a
 * quote or "://", which a raw password may hold), and each control
 * character as '?', so a message stays one line. */
static void show(const char *text, char *out, size_t cap)
{
    const char *auth = strstr(text, "://");
    const char *at = auth ? strrchr(auth + 3, '@') : NULL;
    const char *colon = at ? memchr(auth + 3, ':', (size_t)(at - auth - 3)) : NULL;
    if (colon)
        snprintf(out, cap, "%.*s:***%s", (int)(colon - text), text, at);
    else
        url_mask(text, out, cap);
    for (char *c = out; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
}

int cache_parse_url(const char *text, struct cache_config *cfg, char *err, size_t errcap)
{
    /* Every message below names the URL as shown, its password masked. */
    char url[512];
    show(text, url, sizeof url);
    memset(cfg, 0, sizeof *cfg);
    for (const char *c = text; *c; c++)
        if ((unsigned char)*c <= 0x20 || *c == 0x7f) {
            snprintf(err, errcap, "bad cache URL '%s': spaces or control characters "
                     "(percent-encode them in a password: %%20)", url);
            return -1;
        }
    cfg->connect_timeout_ms = CACHE_TIMEOUT_MS;
    cfg->command_timeout_ms = CACHE_TIMEOUT_MS;
    static const struct {
        const char *scheme;
        int track, cluster;
    } schemes[] = {
        {"valkey://", 0, 0},         {"redis://", 0, 0},
        {"valkey+track://", 1, 0},   {"valkey-cluster://", 0, 1},
        {"valkey-cluster+track://", 1, 1},
    };
    const char *p = NULL;
    for (size_t i = 0; i < sizeof schemes / sizeof schemes[0] && !p; i++) {
        size_t n = strlen(schemes[i].scheme);
        if (strncmp(text, schemes[i].scheme, n) == 0) {
            p = text + n;
            cfg->track = schemes[i].track;
            cfg->cluster = schemes[i].cluster;
        }
    }
    if (!p) {
        snprintf(err, errcap, "bad cache URL '%s': " EXPECTED, url);
        return -1;
    }
    const char *at = strrchr(p, '@');
    if (at) {
        if (parse_userinfo(url, p, (size_t)(at - p), cfg, err, errcap) != 0)
            return -1;
        p = at + 1;
    }
    if (cfg->cluster)
        return parse_seeds(url, p, cfg, err, errcap);
    /* The authority ends at the database's '/'. */
    const char *slash = strchr(p, '/');
    size_t alen = slash ? (size_t)(slash - p) : strlen(p);
    if (parse_authority(url, p, alen, cfg->host, sizeof cfg->host, &cfg->port, err, errcap) != 0)
        return -1;
    if (slash) {
        long v;
        if (net_parse_num(slash + 1, strlen(slash + 1), 0, 1000000, &v) != 0) {
            snprintf(err, errcap, "bad cache URL '%s': database must be a number", url);
            return -1;
        }
        cfg->db = (int)v;
    }
    return 0;
}
