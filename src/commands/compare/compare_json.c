/* compare_json: the cJSON lookups compare's reader and extraction share,
 * tolerant of absence: kvtest --json objects of older versions, or of
 * commands that leave a figure out, lack members, and a missing member is
 * "no sample", not an error. */
#include "commands/compare/compare_int.h"

const cJSON *compare_j(const cJSON *o, const char *name)
{
    return o && cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, name) : NULL;
}

double compare_jnum(const cJSON *o, const char *name, double dflt)
{
    const cJSON *v = compare_j(o, name);
    return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

const char *compare_jstr(const cJSON *o, const char *name)
{
    const cJSON *v = compare_j(o, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

int compare_jtrue(const cJSON *o, const char *name)
{
    return cJSON_IsTrue(compare_j(o, name));
}
