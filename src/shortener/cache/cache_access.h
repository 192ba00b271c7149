/* cache_access: Valkey's access control as the cache meets it. A new
 * connection proves who it is before its first command (the data
 * connections, node.c, and the invalidation channel, track.c, alike, so
 * no connection of a password-protected cache goes without AUTH); at
 * start the commands the service will send are tried once, so that a
 * wrong password or a missing permission ends the start with one line
 * instead of a service that quietly never uses its cache. */
#ifndef KVTEST_SHORTENER_CACHE_ACCESS_H
#define KVTEST_SHORTENER_CACHE_ACCESS_H
#include <stddef.h>

#include <hiredis/hiredis.h>

#include "shortener/cache/cache.h"

/* AUTH [user] pass on ctx when cred has a password (NULL or none: 0 and
 * nothing sent). 0; -2 with "AUTH failed: <the server's reason>" in err
 * when the server refused (Valkey's reasons never quote the password); -1
 * with the reason when the connection failed. */
int cache_auth(redisContext *ctx, const struct cache_cred *cred, char *err, size_t errcap);

/* 1 when r is the server refusing this client: an error whose code is
 * NOAUTH (no password given), WRONGPASS or NOPERM (an ACL rule). */
int cache_refused(const redisReply *r);

/* Sends what the service sends about a key (GET; SET ... XX, which writes
 * nothing, as the probe key is never a link's; PTTL when tracking) for a
 * key under CACHE_KEY_PREFIX that no link id can be. 0 when none was
 * refused (a cluster's MOVED is an answer: ACL rules are checked first),
 * -2 with "COMMAND refused: <reason>" in err when one was, -1 with the
 * reason when the connection failed. */
int cache_probe(redisContext *ctx, int track, char *err, size_t errcap);

#endif
