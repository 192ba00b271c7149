/* json_core: the core build's JSON writer (see json.h). Compiled only with
 * -DKVTEST_CORE; the full build links libcjson instead. Output matches
 * cJSON_PrintUnformatted byte for byte (same number and string forms), so
 * --json from either build can be compared with results/ by the same
 * scripts. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"

/* json.h's enum json_kind, kept under the short names used below. */
enum kind { J_NULL = JSON_NULL, J_FALSE = JSON_FALSE, J_TRUE = JSON_TRUE, J_NUMBER = JSON_NUMBER,
            J_STRING = JSON_STRING, J_ARRAY = JSON_ARRAY, J_OBJECT = JSON_OBJECT };

struct cJSON {
    enum kind kind;
    char *name;          /* member name inside an object */
    char *str;           /* J_STRING */
    double num;          /* J_NUMBER */
    struct cJSON *child, *last, *next;
};

static cJSON *node(enum kind k)
{
    cJSON *n = calloc(1, sizeof *n);
    if (n)
        n->kind = k;
    return n;
}

cJSON *cJSON_CreateObject(void) { return node(J_OBJECT); }
cJSON *cJSON_CreateArray(void) { return node(J_ARRAY); }

cJSON *cJSON_CreateNumber(double v)
{
    cJSON *n = node(J_NUMBER);
    if (n)
        n->num = v;
    return n;
}

cJSON *cJSON_CreateString(const char *s)
{
    if (!s)
        return NULL;
    cJSON *n = node(J_STRING);
    if (n && !(n->str = strdup(s))) {
        free(n);
        n = NULL;
    }
    return n;
}

void cJSON_Delete(cJSON *item)
{
    while (item) {
        cJSON *next = item->next;
        cJSON_Delete(item->child);
        free(item->name);
        free(item->str);
        free(item);
        item = next;
    }
}

static void append(cJSON *parent, cJSON *item)
{
    if (parent->last)
        parent->last->next = item;
    else
        parent->child = item;
    parent->last = item;
}

cJSON_bool cJSON_AddItemToArray(cJSON *arr, cJSON *item)
{
    if (!arr || !item || arr == item)
        return 0;
    append(arr, item);
    return 1;
}

cJSON_bool cJSON_AddItemToObject(cJSON *obj, const char *name, cJSON *item)
{
    if (!obj || !name || !item || obj == item)
        return 0;
    char *copy = strdup(name);
    if (!copy)
        return 0;
    free(item->name);
    item->name = copy;
    append(obj, item);
    return 1;
}

/* Add a new member; on failure it is freed and NULL returned. */
static cJSON *add(cJSON *obj, const char *name, cJSON *item)
{
    if (!obj || !item || !cJSON_AddItemToObject(obj, name, item)) {
        cJSON_Delete(item);
        return NULL;
    }
    return item;
}

cJSON *cJSON_AddObjectToObject(cJSON *obj, const char *name)
{
    return obj ? add(obj, name, node(J_OBJECT)) : NULL;
}

cJSON *cJSON_AddArrayToObject(cJSON *obj, const char *name)
{
    return obj ? add(obj, name, node(J_ARRAY)) : NULL;
}

cJSON *cJSON_AddNumberToObject(cJSON *obj, const char *name, double v)
{
    return obj ? add(obj, name, cJSON_CreateNumber(v)) : NULL;
}

cJSON *cJSON_AddStringToObject(cJSON *obj, const char *name, const char *s)
{
    return obj ? add(obj, name, cJSON_CreateString(s)) : NULL;
}

cJSON *cJSON_AddBoolToObject(cJSON *obj, const char *name, cJSON_bool b)
{
    return obj ? add(obj, name, node(b ? J_TRUE : J_FALSE)) : NULL;
}

cJSON *cJSON_AddNullToObject(cJSON *obj, const char *name)
{
    return obj ? add(obj, name, node(J_NULL)) : NULL;
}

cJSON *cJSON_GetObjectItemCaseSensitive(const cJSON *obj, const char *name)
{
    if (!obj || !name || obj->kind != J_OBJECT)
        return NULL;
    for (cJSON *c = obj->child; c; c = c->next)
        if (c->name && strcmp(c->name, name) == 0)
            return c;
    return NULL;
}

const cJSON *json_child(const cJSON *j) { return j ? j->child : NULL; }
const cJSON *json_next(const cJSON *j) { return j ? j->next : NULL; }
const char *json_name(const cJSON *j) { return j ? j->name : NULL; }
const char *json_string(const cJSON *j) { return j && j->kind == J_STRING ? j->str : NULL; }
enum json_kind json_kind_of(const cJSON *j) { return j ? (enum json_kind)j->kind : JSON_NULL; }

/* ---- printing ---- */

struct out {
    char *p;
    size_t len, cap;
    int oom;
};

static void put(struct out *o, const char *s, size_t n)
{
    if (o->oom)
        return;
    if (o->len + n + 1 > o->cap) {
        size_t cap = o->cap ? o->cap : 256;
        while (o->len + n + 1 > cap)
            cap *= 2;
        char *p = realloc(o->p, cap);
        if (!p) {
            o->oom = 1;
            return;
        }
        o->p = p, o->cap = cap;
    }
    memcpy(o->p + o->len, s, n);
    o->len += n;
    o->p[o->len] = '\0';
}

static void puts_(struct out *o, const char *s) { put(o, s, strlen(s)); }

/* cJSON's forms: integral values in int range as %d, others %1.15g unless
 * that reads back further than one DBL_EPSILON (relative) from the value,
 * then %1.17g; NaN and infinities as null (JSON has no spelling for them). */
static void put_number(struct out *o, double d)
{
    char buf[64];
    if (!isfinite(d))
        snprintf(buf, sizeof buf, "null");
    else if (d == floor(d) && d >= -2147483648.0 && d <= 2147483647.0)
        snprintf(buf, sizeof buf, "%d", (int)d);
    else {
        snprintf(buf, sizeof buf, "%1.15g", d);
        double back = strtod(buf, NULL);
        double big = fabs(back) > fabs(d) ? fabs(back) : fabs(d);
        if (fabs(back - d) > big * DBL_EPSILON)
            snprintf(buf, sizeof buf, "%1.17g", d);
    }
    puts_(o, buf);
}

static void put_string(struct out *o, const char *s)
{
    put(o, "\"", 1);
    for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; c++) {
        char esc[8];
        switch (*c) {
        case '"': puts_(o, "\\\""); break;
        case '\\': puts_(o, "\\\\"); break;
        case '\b': puts_(o, "\\b"); break;
        case '\f': puts_(o, "\\f"); break;
        case '\n': puts_(o, "\\n"); break;
        case '\r': puts_(o, "\\r"); break;
        case '\t': puts_(o, "\\t"); break;
        default:
            if (*c < 32) {
                snprintf(esc, sizeof esc, "\\u%04x", (unsigned)*c);
                puts_(o, esc);
            } else {
                put(o, (const char *)c, 1);
            }
        }
    }
    put(o, "\"", 1);
}

static void put_item(struct out *o, const cJSON *it)
{
    switch (it->kind) {
    case J_NULL: puts_(o, "null"); break;
    case J_FALSE: puts_(o, "false"); break;
    case J_TRUE: puts_(o, "true"); break;
    case J_NUMBER: put_number(o, it->num); break;
    case J_STRING: put_string(o, it->str); break;
    case J_ARRAY:
    case J_OBJECT:
        put(o, it->kind == J_ARRAY ? "[" : "{", 1);
        for (const cJSON *c = it->child; c; c = c->next) {
            if (it->kind == J_OBJECT) {
                put_string(o, c->name);
                put(o, ":", 1);
            }
            put_item(o, c);
            if (c->next)
                put(o, ",", 1);
        }
        put(o, it->kind == J_ARRAY ? "]" : "}", 1);
        break;
    }
}

char *cJSON_PrintUnformatted(const cJSON *item)
{
    if (!item)
        return NULL;
    struct out o = {0};
    put_item(&o, item);
    if (o.oom) {
        free(o.p);
        return NULL;
    }
    return o.p;
}
