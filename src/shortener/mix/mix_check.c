/* mix_check: the shortener's answers judged (see mix_check.h). */
#include "shortener/mix/mix_check.h"

#include <string.h>

#include <cjson/cJSON.h>

#include "base/errbuf.h"
#include "shortener/store/linkid.h"

/* The string member `field` of a JSON object body, or NULL (result freed
 * with the returned root in *root). */
static const char *json_string_field(const char *body, size_t len, const char *field,
                                     cJSON **root)
{
    *root = body && len ? cJSON_ParseWithLength(body, len) : NULL;
    if (!*root || !cJSON_IsObject(*root))
        return NULL;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(*root, field);
    return cJSON_IsString(v) && v->valuestring ? v->valuestring : NULL;
}

/* What every answer check starts with: the expected status, a JSON object
 * body and a string member `field` (in *s; *root to delete in any case).
 * LOAD_OK, or the failure with its reason in why. */
static enum load_fail check_reply(long status, long want, const char *body, size_t len,
                                  const char *field, cJSON **root, const char **s,
                                  char *why, size_t whycap)
{
    *root = NULL;
    *s = NULL;
    if (status != want) {
        errbuf_say(why, whycap, "HTTP %ld (expected %ld)", status, want);
        return LOAD_FAIL_STATUS;
    }
    *s = json_string_field(body, len, field, root);
    if (!*root) {
        errbuf_say(why, whycap, "%ld with a body that is not a JSON object", want);
        return LOAD_FAIL_BODY;
    }
    if (!*s) {
        errbuf_say(why, whycap, "%ld without a string \"%s\"", want, field);
        return LOAD_FAIL_BODY;
    }
    return LOAD_OK;
}

enum load_fail mix_check_post(long status, const char *body, size_t len, char *id,
                              size_t idcap, char *why, size_t whycap)
{
    cJSON *root;
    const char *s;
    enum load_fail f = check_reply(status, 201, body, len, "short_link", &root, &s, why, whycap);
    if (f == LOAD_OK) {
        size_t n = strlen(s);
        if (!linkid_valid(s, n)) {
            errbuf_say(why, whycap, "201 with an invalid short_link");
            f = LOAD_FAIL_BODY;
        } else if (n >= idcap) {
            errbuf_say(why, whycap, "201 with a short_link too long to keep");
            f = LOAD_FAIL_BODY;
        } else {
            memcpy(id, s, n + 1);
        }
    }
    cJSON_Delete(root);
    return f;
}

enum load_fail mix_check_get(long status, const char *body, size_t len,
                             const char *expect_url, char *why, size_t whycap)
{
    cJSON *root;
    const char *s;
    enum load_fail f = check_reply(status, 200, body, len, "link", &root, &s, why, whycap);
    if (f == LOAD_OK && expect_url) {
        if (strcmp(s, expect_url) != 0) {
            errbuf_say(why, whycap, "200 with a link other than the one created");
            f = LOAD_FAIL_BODY;
        }
    } else if (f == LOAD_OK && strncmp(s, "http://", 7) != 0 && strncmp(s, "https://", 8) != 0) {
        errbuf_say(why, whycap, "200 with a link that is not an http(s) URL");
        f = LOAD_FAIL_BODY;
    }
    cJSON_Delete(root);
    return f;
}
