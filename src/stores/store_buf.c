/* store_buf: the content buffer each store reuses for every read and
 * update (store_int.h), grown as blobs need, so the timed loop does not
 * allocate per access. Apart from store.c, the dispatch that knows every
 * store, so the stores that use it do not call back into their caller. */
#include <stdlib.h>

#include "stores/store_int.h"

int store_buf_reserve(struct store_buf *b, int64_t n)
{
    if (n <= b->cap)
        return 0;
    int64_t cap = n + n / 4 + 64;
    unsigned char *p = realloc(b->p, (size_t)cap);
    if (!p)
        return -1;
    b->p = p;
    b->cap = cap;
    return 0;
}

void store_buf_free(struct store_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->cap = 0;
}
