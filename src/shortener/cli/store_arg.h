/* store_arg: the store option group of the shortener's commands, declared
 * once: the links store a command works on, named by its positional DBFILE
 * (the short form, today's command lines) or by --store URL (sqlite:PATH,
 * postgres://...), with its --replicas and its engine options
 * (--store-timeout, --sqlite-cache, --sqlite-exclusive), parsed once into
 * a struct links_store. Each command puts the rows it takes (the
 * STORE_ARG_*_OPT macros, over its struct store_arg) where it wants them in
 * its own table. Which store kind each option applies to is one table
 * (store_arg.c), and a command adds rows of its own for its options that
 * only one kind can honour (--mem-limit, --cold): the refusals come from
 * those rows. Each function returns 0, or 2 after printing one misuse
 * line. */
#ifndef KVTEST_SHORTENER_STORE_ARG_H
#define KVTEST_SHORTENER_STORE_ARG_H
#include <stdint.h>

#include "base/cli.h"
#include "shortener/store/links.h"

#define STORE_TIMEOUT_MS 5000   /* --store-timeout default */
enum { STORE_SQLITE_CACHE_ON, STORE_SQLITE_CACHE_OFF };   /* store_arg_on_off's order */
extern const char *const store_arg_on_off[];

struct store_arg {
    /* what the rows write (store_arg_init sets the defaults) */
    const char *text;            /* --store, or DBFILE, as given */
    const char *replicas_list;   /* --replicas as given; NULL: none */
    int64_t timeout_ms;          /* --store-timeout */
    int sqlite_cache;            /* --sqlite-cache: STORE_SQLITE_CACHE_ON or _OFF */
    int sqlite_exclusive;        /* --sqlite-exclusive */
    /* the store parsed, its opts filled from the above (store_arg_parse) */
    struct links_store st;
    const char *replicas[LINKS_REPLICAS_MAX];
    char replicas_buf[4096];
};

/* The rows, each written once. */
#define STORE_ARG_STORE_OPT(a) CLI_PATH_OPT("store", &(a)->text)
#define STORE_ARG_REPLICAS_OPT(a) CLI_STR_OPT("replicas", &(a)->replicas_list)
#define STORE_ARG_TIMEOUT_OPT(a) CLI_INT_OPT("store-timeout", &(a)->timeout_ms, 1, 3600000)
#define STORE_ARG_SQLITE_CACHE_OPT(a) \
    CLI_ENUM_OPT("sqlite-cache", &(a)->sqlite_cache, store_arg_on_off)
#define STORE_ARG_SQLITE_EXCLUSIVE_OPT(a) CLI_FLAG_OPT("sqlite-exclusive", &(a)->sqlite_exclusive)

/* A command's option that applies to one store kind: when given is
 * non-zero and a store of the command is of another kind, refusal (the
 * whole message) is the misuse. */
struct store_rule {
    const char *option;   /* without dashes, as in the table: "mem-limit" */
    enum links_kind kind;
    int given;
    const char *refusal;
};

void store_arg_init(struct store_arg *a);   /* the defaults */

/* argv parsed with opts (which must hold STORE_ARG_STORE_OPT(a)); then
 * exactly one of the positional argument and --store, parsed into a->st.
 * usage: the command's synopsis for the message when neither is given. */
int store_arg_parse(const char *cmd, int argc, char **argv, const struct cli_opt *opts,
                    int nopts, struct store_arg *a, const char *usage);

/* After store_arg_parse: the kinds each store option applies to
 * (store_arg.c's table), then the command's own rules (in order), the
 * replicas' URLs, and a->st.opts filled from the options. */
int store_arg_check(const char *cmd, struct store_arg *a, const struct store_rule *rules,
                    int nrules);

/* Another store the command names (text as given) parsed into *st. */
int store_arg_other(const char *cmd, const char *text, struct links_store *st);

/* The command's rules against one more store (bench's --compare-db). */
int store_arg_rules(const char *cmd, enum links_kind kind, const struct store_rule *rules,
                    int nrules);

#endif
