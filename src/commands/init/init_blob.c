/* init_blob: the content of key k, derived from the seed alone. init's
 * filling thread writes it, and run --verify, sweep and the tests derive the
 * same bytes again, so the size draw and the bytes live here, apart from
 * how a database is built (init.c) and filled (init_fill.c). */
#include "commands/init/init.h"
#include "measure/keys/rng.h"
#include "stores/blobsum.h"

int64_t init_blob_size(const struct init_opts *o, int64_t k)
{
    rng_t r;
    rng_seed(&r, rng_mix(o->seed, (uint64_t)k));
    if (o->nsizes)
        return o->sizes[rng_below(&r, (uint64_t)o->nsizes)];
    if (o->variance == 0)
        return o->size;
    return o->size - o->variance + (int64_t)rng_below(&r, (uint64_t)(2 * o->variance + 1));
}

void init_blob_fill(const struct init_opts *o, int64_t k, unsigned char *buf, int64_t n)
{
    rng_t r;
    rng_seed(&r, rng_mix(o->seed, (uint64_t)k));
    if (o->nsizes)
        (void)rng_below(&r, (uint64_t)o->nsizes);               /* the size draw */
    else if (o->variance)
        (void)rng_below(&r, (uint64_t)(2 * o->variance + 1));   /* the size draw */
    rng_fill(&r, buf, (size_t)n);
    blobsum_seal(buf, (size_t)n);
}
