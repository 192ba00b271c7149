/* store_kv_key: the key both engines store a blob under (store_int.h):
 * the kv table's integer key as 8 big-endian bytes, so that their
 * byte-wise comparison is key order. Apart from store_kv.c, the dispatch
 * to the engines, so the engines do not call back into it. */
#include <stddef.h>
#include <stdint.h>

#include "stores/store_int.h"

void store_kv_key(unsigned char out[8], int64_t key)
{
    uint64_t u = (uint64_t)key;
    for (int i = 7; i >= 0; i--) {
        out[i] = (unsigned char)(u & 0xff);
        u >>= 8;
    }
}

int64_t store_kv_key_parse(const void *p, size_t n)
{
    if (n != 8)
        return -1;
    const unsigned char *b = p;
    uint64_t u = 0;
    for (int i = 0; i < 8; i++)
        u = u << 8 | b[i];
    return (int64_t)u;
}
