/* order: key sequences shared by every store and by the shortener bench. */
#include "measure/keys/order.h"

static uint64_t mask_of(unsigned bits)
{
    return bits >= 64 ? ~0ULL : ((1ULL << bits) - 1);
}

/* One bijection on [0, 2^bits): rounds of xor-shift, multiply by an odd
 * constant and add a key, each invertible modulo 2^bits. Four rounds mix
 * well enough that consecutive indices land far apart. */
static uint64_t permute_pow2(const struct order *o, uint64_t x)
{
    uint64_t m = mask_of(o->bits);
    unsigned half = o->bits / 2 ? o->bits / 2 : 1;
    for (int r = 0; r < 4; r++) {
        x = (x + o->keys[r]) & m;
        x ^= x >> half;
        x = (x * (o->keys[(r + 1) & 3] | 1)) & m;
        x ^= x >> (half > 1 ? half - 1 : 1);
    }
    return x;
}

uint64_t order_permute(const struct order *o, uint64_t x)
{
    /* Cycle-walking: 2^bits < 2*max_id, so on average fewer than two
     * steps; the walk stays a bijection on [0, max_id). */
    uint64_t y = permute_pow2(o, x);
    while (y >= (uint64_t)o->max_id)
        y = permute_pow2(o, y);
    return y;
}

int order_init(struct order *o, enum order_kind kind, int64_t max_id,
               int64_t start, uint64_t seed, uint64_t stream, double zipf_s)
{
    if (max_id < 1 || start < 0 || start > max_id)
        return -1;
    o->kind = kind;
    o->max_id = max_id;
    o->i = 0;
    o->bits = 1;
    while (o->bits < 63 && (1ULL << o->bits) < (uint64_t)max_id)
        o->bits++;
    rng_seed(&o->rng, rng_mix(seed, stream));
    for (int i = 0; i < 4; i++)
        o->keys[i] = rng_next(&o->rng);
    switch (kind) {
    case ORDER_ASC:
        o->first = start ? start : 1;
        break;
    case ORDER_DESC:
        o->first = start ? start : max_id;
        break;
    case ORDER_RANDOM:
        /* --start shifts where in the permutation the walk begins. */
        o->next = start ? start - 1 : 0;
        break;
    case ORDER_ZIPF:
        if (zipf_init(&o->zipf, (uint64_t)max_id, zipf_s) != 0)
            return -1;
        o->next = 0;
        break;
    default:
        return -1;
    }
    return 0;
}

int64_t order_at(const struct order *o, uint64_t i)
{
    int64_t m = o->max_id, step = (int64_t)(i % (uint64_t)m);
    if (o->kind == ORDER_DESC) {
        int64_t k = o->first - step;
        return k < 1 ? k + m : k;
    }
    return (o->first - 1 + step) % m + 1;
}

int64_t order_next(struct order *o)
{
    o->i++;
    switch (o->kind) {
    case ORDER_ASC:
    case ORDER_DESC:
        return order_at(o, o->i - 1);
    case ORDER_RANDOM: {
        uint64_t idx = (uint64_t)o->next;
        o->next = (o->next + 1) % o->max_id;
        return (int64_t)order_permute(o, idx) + 1;
    }
    case ORDER_ZIPF: {
        /* Rank 1 is hottest; the permutation scatters hot ranks over the
         * whole key range so they do not all sit in the first pages. */
        uint64_t rank = zipf_next(&o->zipf, &o->rng);
        return (int64_t)order_permute(o, rank - 1) + 1;
    }
    }
    return 1;
}
