/* csv: flattening built JSON trees into CSV rows (see csv.h). */
#include <stdlib.h>
#include <string.h>

#include "base/csv.h"

struct csv_row {
    char **cells;   /* by column index; NULL = empty */
    size_t n;       /* cells allocated */
};

struct csv_table {
    char **cols;
    size_t ncols, capcols;
    struct csv_row *rows;
    size_t nrows, caprows;
    int oom;        /* set by any failed allocation while adding */
};

struct csv_table *csv_table_new(void) { return calloc(1, sizeof(struct csv_table)); }

static void row_free(struct csv_row *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->cells[i]);
    free(r->cells);
}

void csv_table_free(struct csv_table *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->ncols; i++)
        free(t->cols[i]);
    for (size_t i = 0; i < t->nrows; i++)
        row_free(&t->rows[i]);
    free(t->cols);
    free(t->rows);
    free(t);
}

/* Grow *p (elements of size sz) to hold at least need; 0 or -1. */
static int grow(void **p, size_t *cap, size_t need, size_t sz)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap * 2 : 16;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * sz);
    if (!q)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

/* Index of column name, added at the end when new (first-seen order);
 * (size_t)-1 on out of memory. A linear search: tables have some hundred
 * columns at most, and this runs once per cell of a short report. */
static size_t column(struct csv_table *t, const char *name)
{
    for (size_t i = 0; i < t->ncols; i++)
        if (strcmp(t->cols[i], name) == 0)
            return i;
    char *copy = strdup(name);
    if (!copy || grow((void **)&t->cols, &t->capcols, t->ncols + 1, sizeof *t->cols) != 0) {
        free(copy);
        return (size_t)-1;
    }
    t->cols[t->ncols] = copy;
    return t->ncols++;
}

/* Put value (malloc'd, taken over; NULL = out of memory) in row under name. */
static void set_cell(struct csv_table *t, struct csv_row *r, const char *name, char *value)
{
    size_t c = value ? column(t, *name ? name : "value") : (size_t)-1;
    if (c == (size_t)-1) {
        free(value);
        t->oom = 1;
        return;
    }
    if (c >= r->n) {
        char **cells = realloc(r->cells, (c + 1) * sizeof *cells);
        if (!cells) {
            free(value);
            t->oom = 1;
            return;
        }
        memset(cells + r->n, 0, (c + 1 - r->n) * sizeof *cells);
        r->cells = cells;
        r->n = c + 1;
    }
    free(r->cells[c]);   /* a repeated name: the last value wins, as in a JSON reader */
    r->cells[c] = value;
}

/* A scalar's cell text, malloc'd: numbers exactly as --json prints them. */
static char *scalar_text(const cJSON *j)
{
    switch (json_kind_of(j)) {
    case JSON_STRING: return strdup(json_string(j));
    case JSON_NUMBER: return cJSON_PrintUnformatted(j);
    case JSON_TRUE:   return strdup("true");
    case JSON_FALSE:  return strdup("false");
    default:          return strdup("");
    }
}

static int is_scalar(const cJSON *j) { return json_kind_of(j) < JSON_ARRAY; }

/* An array of scalars as one cell, its values joined by spaces. */
static char *joined(const cJSON *arr)
{
    size_t len = 0, cap = 0;
    char *out = NULL;
    if (grow((void **)&out, &cap, 1, 1) != 0)
        return NULL;
    out[0] = '\0';
    for (const cJSON *c = json_child(arr); c; c = json_next(c)) {
        char *s = scalar_text(c);
        size_t n = s ? strlen(s) : 0;
        if (!s || grow((void **)&out, &cap, len + n + 2, 1) != 0) {
            free(s);
            free(out);
            return NULL;
        }
        if (len)
            out[len++] = ' ';
        memcpy(out + len, s, n + 1);
        len += n;
        free(s);
    }
    return out;
}

static char *join_name(const char *prefix, const char *name)
{
    size_t a = strlen(prefix), b = strlen(name);
    char *s = malloc(a + b + 2);
    if (s) {
        memcpy(s, prefix, a);
        s[a] = a ? '.' : '\0';
        memcpy(s + (a ? a + 1 : 0), name, b + 1);
    }
    return s;
}

/* Flatten j, named prefix, into r. rows is the measurement array: in its
 * place goes elem (the row's element), under the array's own name. */
static void flatten(struct csv_table *t, struct csv_row *r, const cJSON *j, const char *prefix,
                    const cJSON *rows, const cJSON *elem)
{
    enum json_kind k = json_kind_of(j);
    if (j == rows) {
        if (elem)
            flatten(t, r, elem, prefix, NULL, NULL);
        return;
    }
    if (is_scalar(j)) {
        set_cell(t, r, prefix, scalar_text(j));
        return;
    }
    int all_scalars = 1;
    for (const cJSON *c = json_child(j); c && all_scalars; c = json_next(c))
        all_scalars = is_scalar(c);
    if (k == JSON_ARRAY && all_scalars) {
        set_cell(t, r, prefix, joined(j));
        return;
    }
    size_t i = 0;
    for (const cJSON *c = json_child(j); c; c = json_next(c), i++) {
        char idx[24];
        snprintf(idx, sizeof idx, "%zu", i);
        char *name = join_name(prefix, k == JSON_OBJECT && json_name(c) ? json_name(c) : idx);
        if (!name) {
            t->oom = 1;
            return;
        }
        flatten(t, r, c, name, rows, elem);
        free(name);
    }
}

/* The array at dotted path under obj, or NULL. */
static const cJSON *find_rows(const cJSON *obj, const char *path)
{
    char *copy = path && *path ? strdup(path) : NULL;
    if (!copy)
        return NULL;
    const cJSON *j = obj;
    char *save = NULL;
    for (char *part = strtok_r(copy, ".", &save); part && j; part = strtok_r(NULL, ".", &save))
        j = cJSON_GetObjectItemCaseSensitive(j, part);
    free(copy);
    return json_kind_of(j) == JSON_ARRAY && json_child(j) ? j : NULL;
}

int csv_table_add(struct csv_table *t, const cJSON *obj, const char *rows_path)
{
    if (!t || !obj)
        return -1;
    const cJSON *rows = find_rows(obj, rows_path);
    const cJSON *elem = json_child(rows);
    t->oom = 0;
    do {
        if (grow((void **)&t->rows, &t->caprows, t->nrows + 1, sizeof *t->rows) != 0)
            return -1;
        struct csv_row *r = &t->rows[t->nrows];
        memset(r, 0, sizeof *r);
        flatten(t, r, obj, "", rows, elem);
        if (t->oom) {
            row_free(r);
            return -1;
        }
        t->nrows++;
        elem = json_next(elem);
    } while (elem);
    return 0;
}

void csv_write_field(FILE *f, const char *s)
{
    if (!s)
        return;
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

int csv_table_write(const struct csv_table *t, FILE *f)
{
    if (!t || t->nrows == 0)
        return 0;
    for (size_t c = 0; c < t->ncols; c++) {
        if (c)
            fputc(',', f);
        csv_write_field(f, t->cols[c]);
    }
    fputc('\n', f);
    for (size_t i = 0; i < t->nrows; i++) {
        const struct csv_row *r = &t->rows[i];
        for (size_t c = 0; c < t->ncols; c++) {
            if (c)
                fputc(',', f);
            csv_write_field(f, c < r->n ? r->cells[c] : NULL);
        }
        fputc('\n', f);
    }
    return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}
