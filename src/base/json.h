/* json: the JSON objects behind --json.
 *
 * The full build uses libcjson. The core build (-DKVTEST_CORE: nothing but
 * libc and SQLite, so that it also builds statically with musl and for
 * other machines) gets json_core.c instead: the same calls, limited to what
 * the blob commands use -- build a tree, look up a member, print it on one
 * line exactly as cJSON_PrintUnformatted does, free it. It has no parser:
 * only the shortener reads JSON, and the core has no shortener. */
#ifndef KVTEST_JSON_H
#define KVTEST_JSON_H

#ifndef KVTEST_CORE
#include <cjson/cJSON.h>
#else

typedef int cJSON_bool;
typedef struct cJSON cJSON;   /* opaque here: nothing reads members */

cJSON *cJSON_CreateObject(void);
cJSON *cJSON_CreateArray(void);
cJSON *cJSON_CreateString(const char *s);
cJSON *cJSON_CreateNumber(double v);
/* Each Add*ToObject creates, appends and returns the new member (NULL on a
 * NULL object, NULL string or out of memory). */
cJSON *cJSON_AddObjectToObject(cJSON *obj, const char *name);
cJSON *cJSON_AddArrayToObject(cJSON *obj, const char *name);
cJSON *cJSON_AddNumberToObject(cJSON *obj, const char *name, double v);
cJSON *cJSON_AddStringToObject(cJSON *obj, const char *name, const char *s);
cJSON *cJSON_AddBoolToObject(cJSON *obj, const char *name, cJSON_bool b);
cJSON *cJSON_AddNullToObject(cJSON *obj, const char *name);
/* Append item (which the tree then owns). 0 if obj or item is NULL. */
cJSON_bool cJSON_AddItemToObject(cJSON *obj, const char *name, cJSON *item);
cJSON_bool cJSON_AddItemToArray(cJSON *arr, cJSON *item);
/* First member called name, or NULL. */
cJSON *cJSON_GetObjectItemCaseSensitive(const cJSON *obj, const char *name);
/* One line, no spaces; malloc'd (free it), NULL on out of memory. */
char *cJSON_PrintUnformatted(const cJSON *item);
void cJSON_Delete(cJSON *item);

#endif
#endif
