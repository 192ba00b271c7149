/* store_arg: the links store a shortener command works on, named by its
 * positional DBFILE (the short form, today's command lines) or by
 * --store URL (sqlite:PATH, postgres://...), parsed once into a struct
 * links_store; a second store (--from, --compare-db); and serve's and
 * bench's --replicas list. Each returns 0, or 2 after printing one misuse
 * line. */
#ifndef KVTEST_SHORTENER_STORE_ARG_H
#define KVTEST_SHORTENER_STORE_ARG_H
#include "base/cli.h"
#include "shortener/store/links.h"

/* argv parsed with opts (which must hold --store's row writing *text);
 * then exactly one of the positional argument and --store, parsed into
 * *st. usage: the command's synopsis for the message when neither is
 * given. */
int store_arg_parse(const char *cmd, int argc, char **argv, const struct cli_opt *opts,
                    int nopts, const char **text, struct links_store *st, const char *usage);

/* Another store the command names (text as given) parsed into *st. */
int store_arg_other(const char *cmd, const char *text, struct links_store *st);

/* --replicas URL[,URL...] (NULL: none) into urls (at most
 * LINKS_REPLICAS_MAX, each a PostgreSQL URL; buf holds the copies, cap
 * bytes) and st's options. Replicas need a PostgreSQL store. */
int store_arg_replicas(const char *cmd, struct links_store *st, const char *list, char *buf,
                       size_t cap, const char **urls);

#endif
