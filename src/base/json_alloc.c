/* json_alloc: cJSON's allocation failures, noted per thread. See json_alloc.h. */
#include "base/json_alloc.h"
#include <stdlib.h>
#ifndef KVTEST_CORE   /* the core build has no cJSON, and so no parser */
#include <cjson/cJSON.h>
#endif

static _Thread_local int failed;

#ifndef KVTEST_CORE

static void *noting_malloc(size_t n)
{
    void *p = malloc(n);
    if (!p)
        failed = 1;
    return p;
}

void json_alloc_init(void)
{
    /* With a malloc of its own, cJSON reallocates by malloc and copy, so
     * every allocation it makes passes here. */
    cJSON_Hooks h = {noting_malloc, free};
    cJSON_InitHooks(&h);
}
#else
void json_alloc_init(void)
{
}
#endif

void json_alloc_reset(void)
{
    failed = 0;
}

int json_alloc_failed(void)
{
    return failed;
}
