/* mix_check: whether the shortener's answers to the load's requests are
 * right, kept apart from the network so it can be unit-tested. */
#ifndef KVTEST_MIX_CHECK_H
#define KVTEST_MIX_CHECK_H
#include <stddef.h>

#include "load/load_scenario.h"

/* A POST /link answer: 201 with {"short_link": "<1-64 of [A-Za-z0-9]>"}.
 * On success copies the id into id[idcap]. On failure writes a short reason
 * into why[whycap] (may be NULL). body need not be NUL-terminated. */
enum load_fail mix_check_post(long status, const char *body, size_t len, char *id,
                              size_t idcap, char *why, size_t whycap);

/* A GET /link/<id> answer: 200 with {"link": URL}. With expect_url the URL
 * must equal it byte for byte (a link this run created); without, it must be
 * a non-empty http(s) URL (an id from --keys whose target we never saw). */
enum load_fail mix_check_get(long status, const char *body, size_t len,
                             const char *expect_url, char *why, size_t whycap);

#endif
