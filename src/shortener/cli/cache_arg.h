/* cache_arg: the cache option group of the shortener's commands, declared
 * once: --cache URL, --cache-ttl, --cache-timeout, --track-size, one row
 * macro each over a struct cache_arg (a command puts the rows it takes
 * where it wants them in its table), and the one function that turns them
 * into a struct cache_config, with one misuse line (exit status 2) for a
 * URL that is not a cache's. */
#ifndef KVTEST_SHORTENER_CACHE_ARG_H
#define KVTEST_SHORTENER_CACHE_ARG_H
#include <stdint.h>

#include "base/cli.h"
#include "shortener/cache/cache.h"

struct cache_arg {
    const char *url;     /* --cache as given; NULL or "none": no cache */
    int64_t ttl;         /* --cache-ttl s (0: no expiry) */
    int64_t timeout_ms;  /* --cache-timeout: connect and command */
    int64_t track_size;  /* --track-size: links in process memory (+track) */
    int on;              /* cache_arg_config: a cache was named */
    struct cache_config cc;   /* cache_arg_config: when on */
};

#define CACHE_ARG_URL_OPT(a) CLI_STR_OPT("cache", &(a)->url)
#define CACHE_ARG_TTL_OPT(a) CLI_INT_OPT("cache-ttl", &(a)->ttl, 0, 100000000)
#define CACHE_ARG_TIMEOUT_OPT(a) CLI_INT_OPT("cache-timeout", &(a)->timeout_ms, 1, 60000)
#define CACHE_ARG_TRACK_SIZE_OPT(a) CLI_INT_OPT("track-size", &(a)->track_size, 1, 100000000)

void cache_arg_init(struct cache_arg *a);   /* the defaults */

/* The cache URL named, NULL for none (no --cache, or "none"). */
const char *cache_arg_url(const struct cache_arg *a);

/* After the parse: a->on says whether a cache was named, and then a->cc
 * is its configuration (URL, credentials, the timeouts, the expiry, the
 * tracking map's size). 0, or 2 after printing "--cache: REASON". */
int cache_arg_config(const char *cmd, struct cache_arg *a);

#endif
