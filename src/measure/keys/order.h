/* order: the sequence of keys a measured loop visits. Every store (database,
 * flat files, tree) is driven by the same generator, so with the same options
 * each layout is asked for exactly the same keys in the same order. */
#ifndef KVTEST_ORDER_H
#define KVTEST_ORDER_H
#include <stdint.h>
#include "measure/keys/rng.h"
#include "measure/keys/zipf.h"

enum order_kind { ORDER_ASC, ORDER_DESC, ORDER_RANDOM, ORDER_ZIPF };

struct order {
    enum order_kind kind;
    int64_t max_id;      /* keys are 1..max_id */
    int64_t first;       /* asc/desc: the first key */
    int64_t next;        /* random: next index into the permutation */
    uint64_t i;          /* draws so far */
    /* random: a keyed bijection on [0, 2^bits) with cycle-walking into
     * [0, max_id), so each key appears once per max_id draws (no repeats
     * that would flatter a cache) and the walk looks uniform. */
    unsigned bits;
    uint64_t keys[4];
    rng_t rng;           /* zipf draws */
    struct zipf zipf;
};

/* start: first key for asc/desc (0 = default: 1 for asc, max_id for desc);
 * seed: reproducible stream; stream: independent sub-stream (e.g. thread
 * number) of the same seed. zipf_s used only for ORDER_ZIPF.
 * Returns 0, or -1 on bad parameters. */
int order_init(struct order *o, enum order_kind kind, int64_t max_id,
               int64_t start, uint64_t seed, uint64_t stream, double zipf_s);
/* asc/desc: the i-th key (i from 0) of the walk, a pure function of i, so
 * threads that share one index counter visit exactly the keys, in the
 * order, that one thread would. */
int64_t order_at(const struct order *o, uint64_t i);
/* The next key, in [1, max_id]. */
int64_t order_next(struct order *o);
/* For --random and --zipf: the bijection alone, key index -> key index in
 * [0, max_id); zipf uses it to scatter hot ranks over the key range. */
uint64_t order_permute(const struct order *o, uint64_t x);

#endif
