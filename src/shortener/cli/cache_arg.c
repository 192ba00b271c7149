/* cache_arg: the cache option group of the shortener's commands
 * (cache_arg.h). */
#include "shortener/cli/cache_arg.h"

#include <string.h>

#include "shortener/cache/track.h"

void cache_arg_init(struct cache_arg *a)
{
    memset(a, 0, sizeof *a);
    a->timeout_ms = CACHE_TIMEOUT_MS;
    a->track_size = TRACK_SIZE_DEFAULT;
}

const char *cache_arg_url(const struct cache_arg *a)
{
    return a->url && strcmp(a->url, "none") != 0 ? a->url : NULL;
}

int cache_arg_config(const char *cmd, struct cache_arg *a)
{
    a->on = cache_arg_url(a) != NULL;
    if (!a->on)
        return 0;
    char err[512];
    if (cache_parse_url(a->url, &a->cc, err, sizeof err) != 0)
        return cli_usage(cmd, "--cache: %s", err);
    a->cc.ttl_s = a->ttl;
    a->cc.connect_timeout_ms = (int)a->timeout_ms;
    a->cc.command_timeout_ms = (int)a->timeout_ms;
    a->cc.track_size = a->track_size;
    return 0;
}
