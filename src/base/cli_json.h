/* cli_json: the options of a parsed command as JSON members, derived from
 * its option table (cli.h), so that --json states every option a command
 * takes without a second list of them to keep in step: a new row whose
 * value lands in the options struct shows up in the JSON (and in --csv's
 * columns, which follow the JSON's order) by itself. */
#ifndef KVTEST_CLI_JSON_H
#define KVTEST_CLI_JSON_H
#include <stddef.h>

#include "base/cli.h"
#include "base/json.h"

/* A row the rule of cli_json_options does not fit, by its option name:
 * a value derived after parsing, one the struct holds in another form
 * than the row parsed, or an option that is not part of the result. */
struct cli_json_rule {
    const char *name;   /* the row's option name, without dashes */
    /* Adds the row's member(s) to j; key: the rule's key for the row
     * ("max_id" for "max-id"); obj and ctx: as given to cli_json_options.
     * NULL: the row is left out of the JSON. */
    void (*write)(cJSON *j, const char *key, const void *obj, const void *ctx);
};

/* Add the options of table opts[0..nopts) to the object j, in the table's
 * order. The table's dests point into a struct at base of size bytes (the
 * one it was built over); obj is the struct to read, of the same type
 * (base itself, or another instance: a table can be built over a scratch
 * struct and read against the parsed one). A row named in rules is
 * written by its writer. Any other row whose dest lies inside the struct
 * becomes the member NAME with '-' as '_': a flag as a boolean, a set
 * (CLI_SET) as whether the struct holds its value, an int or double as a
 * number, a string as itself or null, an enum as its choice's name or null
 * (an index below 0: not given). A row whose dest lies outside the struct
 * (a parser's own variable, converted into the struct after parsing) is
 * left out unless a rule names it. */
void cli_json_options(cJSON *j, const struct cli_opt *opts, int nopts, const void *base,
                      size_t size, const void *obj, const struct cli_json_rule *rules,
                      int nrules, const void *ctx);

#endif
