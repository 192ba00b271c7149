/* store_arg: the links store a shortener command works on, named by its
 * positional DBFILE (the short form, today's command lines) or by
 * --store URL (sqlite:PATH, postgres://...), and serve's and bench's
 * --replicas list. Each returns 0, or 2 after printing one misuse line. */
#ifndef KVTEST_SHORTENER_STORE_ARG_H
#define KVTEST_SHORTENER_STORE_ARG_H
#include "base/cli.h"
#include "shortener/store/links.h"

/* argv parsed with opts (which must hold --store's row writing *store);
 * then exactly one of the positional argument and --store, into *store.
 * usage: the command's synopsis for the message when neither is given. */
int store_arg_parse(const char *cmd, int argc, char **argv, const struct cli_opt *opts,
                    int nopts, const char **store, const char *usage);

/* The engine of store (a misuse for a URL of another kind) and, when path
 * is not NULL, an SQLite store's database file (store without "sqlite:");
 * NULL for PostgreSQL, whose files are its server's. */
int store_arg_kind(const char *cmd, const char *store, enum links_kind *kind,
                   const char **path);

/* --replicas URL[,URL...] (NULL: none) into urls (at most
 * LINKS_REPLICAS_MAX, each a PostgreSQL URL; buf holds the copies, cap
 * bytes), their number in *n. Replicas need a PostgreSQL store. */
int store_arg_replicas(const char *cmd, enum links_kind kind, const char *list, char *buf,
                       size_t cap, const char **urls, int *n);

#endif
