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

/* What a reader of a built tree (csv's flattener) needs, in both builds:
 * cJSON has no call for a member's name or for walking children without
 * O(n) indexing, so these wrap its fields in the full build. */
enum json_kind { JSON_NULL, JSON_FALSE, JSON_TRUE, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

#ifndef KVTEST_CORE
#include <cjson/cJSON.h>

static inline const cJSON *json_child(const cJSON *j) { return j ? j->child : NULL; }
static inline const cJSON *json_next(const cJSON *j) { return j ? j->next : NULL; }
static inline const char *json_name(const cJSON *j) { return j ? j->string : NULL; }
static inline const char *json_string(const cJSON *j) { return cJSON_GetStringValue(j); }
static inline enum json_kind json_kind_of(const cJSON *j)
{
    return cJSON_IsObject(j) ? JSON_OBJECT : cJSON_IsArray(j) ? JSON_ARRAY
         : cJSON_IsString(j) ? JSON_STRING : cJSON_IsNumber(j) ? JSON_NUMBER
         : cJSON_IsTrue(j) ? JSON_TRUE : cJSON_IsFalse(j) ? JSON_FALSE : JSON_NULL;
}
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

/* The readers declared above for the full build (NULL-safe). */
const cJSON *json_child(const cJSON *j);
const cJSON *json_next(const cJSON *j);
const char *json_name(const cJSON *j);
const char *json_string(const cJSON *j);   /* NULL unless a string */
enum json_kind json_kind_of(const cJSON *j);

#endif
#endif
