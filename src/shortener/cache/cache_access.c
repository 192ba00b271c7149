/* cache_access: AUTH and the start's permission probe. See
 * cache_access.h. */
#include "shortener/cache/cache_access.h"

#include <stdio.h>
#include <string.h>

/* '~' is outside the link id alphabet (linkid.h): no link is cached here,
 * and an ACL key pattern on the prefix ("~kvtest:link:*") still covers it. */
#define PROBE_KEY CACHE_KEY_PREFIX "~probe"

int cache_auth(redisContext *ctx, const struct cache_cred *cred, char *err, size_t errcap)
{
    if (!cred || !cred->has_pass)
        return 0;
    /* %s arguments travel as bulk strings: a password holding blanks or
     * quotes is sent as it is, never split or interpreted. */
    redisReply *r = cred->user[0] ? redisCommand(ctx, "AUTH %s %s", cred->user, cred->pass)
                                  : redisCommand(ctx, "AUTH %s", cred->pass);
    int rc = !r ? -1 : r->type == REDIS_REPLY_STATUS ? 0 : -2;
    if (rc != 0 && err)
        snprintf(err, errcap, "AUTH failed: %s",
                 !r ? ctx->errstr : r->type == REDIS_REPLY_ERROR ? r->str : "unexpected reply");
    if (r)
        freeReplyObject(r);
    return rc;
}

int cache_refused(const redisReply *r)
{
    static const char *const codes[] = {"NOAUTH ", "WRONGPASS ", "NOPERM "};
    if (!r || r->type != REDIS_REPLY_ERROR || !r->str)
        return 0;
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        if (strncmp(r->str, codes[i], strlen(codes[i])) == 0)
            return 1;
    return 0;
}

int cache_probe(redisContext *ctx, int track, char *err, size_t errcap)
{
    static const char *const names[] = {"GET", "SET", "PTTL"};
    int n = track ? 3 : 2;
    for (int i = 0; i < n; i++) {
        redisReply *r = i == 0   ? redisCommand(ctx, "GET %s", PROBE_KEY)
                        : i == 1 ? redisCommand(ctx, "SET %s x XX", PROBE_KEY)
                                 : redisCommand(ctx, "PTTL %s", PROBE_KEY);
        if (!r) {
            if (err)
                snprintf(err, errcap, "%s", ctx->errstr);
            return -1;
        }
        int refused = cache_refused(r);
        if (refused && err)
            snprintf(err, errcap, "%s refused: %s", names[i], r->str);
        freeReplyObject(r);
        if (refused)
            return -2;
    }
    return 0;
}
