/* cli_json: a parsed command's options as JSON, from its option table
 * (cli_json.h). */
#include <stdint.h>
#include <string.h>

#include "base/cli_json.h"

static const struct cli_json_rule *rule_for(const struct cli_json_rule *rules, int nrules,
                                            const char *name)
{
    for (int i = 0; i < nrules; i++)
        if (strcmp(rules[i].name, name) == 0)
            return &rules[i];
    return NULL;
}

/* The value at p, read as row r parsed it, as member key of j. */
static void add_value(cJSON *j, const char *key, const struct cli_opt *r, const void *p)
{
    switch (r->type) {
    case CLI_FLAG:
        cJSON_AddBoolToObject(j, key, *(const int *)p);
        break;
    case CLI_SET:
        cJSON_AddBoolToObject(j, key, *(const int *)p == (int)r->min);
        break;
    case CLI_INT:
        cJSON_AddNumberToObject(j, key, (double)*(const int64_t *)p);
        break;
    case CLI_DOUBLE:
        cJSON_AddNumberToObject(j, key, *(const double *)p);
        break;
    case CLI_STR: {
        const char *s = *(const char *const *)p;
        if (s)
            cJSON_AddStringToObject(j, key, s);
        else
            cJSON_AddNullToObject(j, key);
        break;
    }
    case CLI_ENUM: {
        int i = *(const int *)p;
        if (i >= 0)
            cJSON_AddStringToObject(j, key, r->choices[i]);
        else
            cJSON_AddNullToObject(j, key);
        break;
    }
    }
}

void cli_json_options(cJSON *j, const struct cli_opt *opts, int nopts, const void *base,
                      size_t size, const void *obj, const struct cli_json_rule *rules,
                      int nrules, const void *ctx)
{
    /* Addresses compared as integers: a parser's own variable is not in
     * the struct's object, and comparing pointers into different objects
     * with < is undefined. */
    uintptr_t lo = (uintptr_t)base, hi = lo + size;
    for (int i = 0; i < nopts; i++) {
        const struct cli_opt *r = &opts[i];
        char key[64];
        size_t n = strlen(r->name);
        if (n >= sizeof key)
            n = sizeof key - 1;
        for (size_t c = 0; c < n; c++)
            key[c] = r->name[c] == '-' ? '_' : r->name[c];
        key[n] = '\0';
        const struct cli_json_rule *rule = rule_for(rules, nrules, r->name);
        uintptr_t at = (uintptr_t)r->dest;
        if (rule) {
            if (rule->write)
                rule->write(j, key, obj, ctx);
        } else if (at >= lo && at < hi) {
            add_value(j, key, r, (const char *)obj + (at - lo));
        }
    }
}
