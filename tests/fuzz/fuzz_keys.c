/* build: src/shortener/mix/mix_keys.c src/shortener/store/linkid.c src/base/errbuf.c src/measure/sizedist.c -lcjson -lm */
/* libFuzzer target: the data files commands read — a key file of link ids
 * (`shortener load --keys`: mix_keys_read and the parser under it,
 * mix_keys_parse, shortener/mix/mix_keys.h) and --sizes-from's JSON lines
 * (`init --sizes-from`: sizedist_load_json, measure/sizedist.h).
 *
 * Input: a file's content. mix_keys_parse gets it as a buffer; it is also
 * written to a private tmpfs directory (fuzz_tmp.h) as keys.txt for
 * mix_keys_read and sizes.jsonl for sizedist_load_json.
 *
 * Invariants checked:
 *  - mix_keys_parse agrees with its header, read as a reference: lines
 *    split at '\n', white space (isspace) around each trimmed, blank ones
 *    skipped, every other one an id of 1-64 of [A-Za-z0-9] (a NUL byte is
 *    none of those), else -1 with "line N: ..." for the first bad line N;
 *    on success the ids in order, each terminated inside the buffer, and
 *    k owning the buffer; on error k empty and the buffer the caller's.
 *  - mix_keys_read of the same bytes: the same ids, or the same refusal
 *    (its message naming the file), and "no link ids" for a file without.
 *  - sizedist_load_json: the sizes of the first line (getline's lines,
 *    each read up to a NUL as cJSON_Parse reads it) that has
 *    result.size_distribution.sizes, as whole numbers in 0..1e15, or a
 *    refusal with a terminated reason naming the file and no array; the
 *    sizes written back as "kvtest stat --json" writes them (sizedist_own,
 *    sizedist_json) and read again give the same sizes, sorted.
 *
 * Build and run: make fuzz [FUZZ_TIME=30] */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "measure/sizedist.h"
#include "shortener/mix/mix_keys.h"
#include "tests/fuzz/fuzz_tmp.h"

#define FUZZ_NAME "fuzz_keys"
#include "tests/fuzz/fuzz_check.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_tmp_init();
    return 0;
}

/* The key file as mix_keys.h describes it: the ids (start, length into
 * data) in *ids, their number returned; -1 - N when line N is bad. */
static long ref_keys(const uint8_t *d, size_t n, size_t (*ids)[2])
{
    long count = 0, line = 0;
    size_t p = 0;
    while (p < n) {
        size_t e = p;
        while (e < n && d[e] != '\n')
            e++;
        line++;
        size_t s = p, t = e;
        while (s < t && isspace(d[s]))
            s++;
        while (t > s && isspace(d[t - 1]))
            t--;
        p = e < n ? e + 1 : n;
        if (s == t)
            continue;
        int ok = t - s <= 64;
        for (size_t i = s; i < t && ok; i++)
            ok = (d[i] >= 'A' && d[i] <= 'Z') || (d[i] >= 'a' && d[i] <= 'z') ||
                 (d[i] >= '0' && d[i] <= '9');
        if (!ok)
            return -1 - line;
        ids[count][0] = s;
        ids[count][1] = t - s;
        count++;
    }
    return count;
}

static void check_keys(const uint8_t *data, size_t size)
{
    size_t (*ids)[2] = malloc((size / 2 + 1) * sizeof *ids);
    char *buf = malloc(size + 1);
    if (!ids || !buf)
        abort();
    memcpy(buf, data, size);
    long want = ref_keys(data, size, ids);
    struct mix_keys k;
    char err[160];
    int rc = mix_keys_parse(&k, buf, size, err, sizeof err);
    CHECK(rc == 0 || rc == -1, "mix_keys_parse returned neither 0 nor -1");
    if (rc != (want >= 0 ? 0 : -1))
        fprintf(stderr, "fuzz_keys: mix_keys_parse %s, its header says %s (line %ld)\n",
                rc ? "refused" : "accepted", want >= 0 ? "valid" : "invalid", -1 - want);
    CHECK(rc == (want >= 0 ? 0 : -1), "mix_keys_parse differs from its header");
    if (rc == 0) {
        CHECK(k.buf == buf && k.n == (size_t)want, "mix_keys_parse: not the ids of the file");
        for (size_t i = 0; i < k.n; i++)
            CHECK(k.id[i] == buf + ids[i][0] && strlen(k.id[i]) == ids[i][1] &&
                      memcmp(k.id[i], data + ids[i][0], ids[i][1]) == 0,
                  "mix_keys_parse: an id is not the file's");
        mix_keys_free(&k);   /* frees buf */
    } else {
        char expect[160];
        snprintf(expect, sizeof expect, "line %ld: ", -1 - want);
        CHECK(!k.id && !k.buf && k.n == 0, "mix_keys_parse kept something after an error");
        CHECK(strncmp(err, expect, strlen(expect)) == 0, "mix_keys_parse names another line");
        free(buf);
    }

    const char *path = fuzz_tmp_write("keys.txt", data, size);
    char rerr[512];
    int rrc = mix_keys_read(&k, path, rerr, sizeof rerr);
    CHECK(rrc == (want > 0 ? 0 : -1), "mix_keys_read differs from mix_keys_parse");
    if (rrc == 0) {
        CHECK(k.n == (size_t)want, "mix_keys_read: not the ids of the file");
        for (size_t i = 0; i < k.n; i++)
            CHECK(strlen(k.id[i]) == ids[i][1] && memcmp(k.id[i], data + ids[i][0], ids[i][1]) == 0,
                  "mix_keys_read: an id is not the file's");
        mix_keys_free(&k);
    } else {
        CHECK(strncmp(rerr, path, strlen(path)) == 0, "mix_keys_read's message does not name the file");
        CHECK(want != 0 || strstr(rerr, "no link ids"), "mix_keys_read: an empty file not said so");
        CHECK(!k.id && !k.buf && k.n == 0, "mix_keys_read kept something after an error");
    }
    free(ids);
}

/* The sizes a line (up to its NUL) holds, as sizedist.h describes them:
 * 1 with them in *v, *n; 0 when it has no sizes array; -1 when the array
 * holds something else than whole numbers in 0..1e15. */
static int ref_line(const char *line, int64_t **v, int64_t *n)
{
    cJSON *j = cJSON_Parse(line);
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "result"),
                                         "size_distribution"),
        "sizes");
    int rc = 0;
    if (cJSON_IsArray(a)) {
        int m = cJSON_GetArraySize(a);
        *v = malloc((size_t)(m ? m : 1) * sizeof **v);
        if (!*v)
            abort();
        *n = 0;
        rc = 1;
        const cJSON *e;
        cJSON_ArrayForEach(e, a) {
            if (!cJSON_IsNumber(e) || !(e->valuedouble >= 0 && e->valuedouble <= 1e15) ||
                e->valuedouble != floor(e->valuedouble)) {
                rc = -1;
                break;
            }
            (*v)[(*n)++] = (int64_t)e->valuedouble;
        }
        if (rc < 0) {
            free(*v);
            *v = NULL;
        }
    }
    cJSON_Delete(j);
    return rc;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void check_sizes(const uint8_t *data, size_t size)
{
    /* The reference: getline's lines, each up to its first NUL. */
    int64_t *want = NULL, nwant = 0;
    int found = 0;
    for (size_t p = 0; p < size && !found;) {
        size_t e = p;
        while (e < size && data[e] != '\n')
            e++;
        size_t len = e - p;
        char *line = malloc(len + 1);
        if (!line)
            abort();
        memcpy(line, data + p, len);
        line[len] = '\0';
        found = ref_line(line, &want, &nwant);
        free(line);
        p = e + 1;
    }
    const char *path = fuzz_tmp_write("sizes.jsonl", data, size);
    static int64_t not_set;
    int64_t *v = &not_set, n = -1;   /* to see that a failure clears them */
    char err[512];
    int rc = sizedist_load_json(path, &v, &n, err, sizeof err);
    CHECK(rc == (found == 1 ? 0 : -1), "sizedist_load_json differs from its header");
    if (rc != 0) {
        CHECK(!v && n == 0, "sizedist_load_json failed and left sizes");
        CHECK(memchr(err, '\0', sizeof err) && strncmp(err, path, strlen(path)) == 0 && !strchr(err, '\n'),
              "sizedist_load_json's reason: not one line naming the file");
        free(want);
        return;
    }
    CHECK(v && n == nwant && memcmp(v, want, (size_t)n * sizeof *v) == 0,
          "sizedist_load_json: not the first sizes array of the file");
    /* Written back as kvtest stat --json writes it, and read again. */
    struct sizedist d;
    sizedist_own(&d, v, n);   /* sorts */
    qsort(want, (size_t)nwant, sizeof *want, cmp_i64);
    CHECK(memcmp(d.v, want, (size_t)n * sizeof *want) == 0, "sizedist_own: not the sizes, sorted");
    cJSON *root = cJSON_CreateObject(), *result = cJSON_AddObjectToObject(root, "result");
    sizedist_json(&d, result);
    char *text = cJSON_PrintUnformatted(root);
    CHECK(text != NULL, "sizedist_json's text");
    const char *path2 = fuzz_tmp_write("sizes2.jsonl", text, strlen(text));
    int64_t *v2 = NULL, n2 = -1;
    CHECK(sizedist_load_json(path2, &v2, &n2, err, sizeof err) == 0 && n2 == n &&
              memcmp(v2, d.v, (size_t)n * sizeof *v2) == 0,
          "sizes written by sizedist_json do not read back the same");
    free(v2);
    cJSON_free(text);
    cJSON_Delete(root);
    sizedist_free(&d);
    free(want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_keys(data, size);
    check_sizes(data, size);
    return 0;
}
