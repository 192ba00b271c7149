/* inject: see inject.h. Empty unless compiled with -DKVTEST_INJECT. */
#include "measure/inject.h"

#ifdef KVTEST_INJECT
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/clock.h"

enum { INJ_OFF, INJ_NS, INJ_ITER };
static int mode = INJ_OFF;
static uint64_t amount;
/* volatile: the counting loop must not be folded into one addition. */
static volatile uint64_t sink;

void inject_arm(const char *path)
{
    const char *e = getenv("KVTEST_INJECT");
    size_t n = strlen(path);
    if (!e || !*e || strncmp(e, path, n) != 0 || e[n] != ':')
        return;
    const char *m = e + n + 1;
    char *end = NULL;
    int kind = strncmp(m, "ns:", 3) == 0 ? INJ_NS : strncmp(m, "iter:", 5) == 0 ? INJ_ITER : 0;
    const char *num = kind == INJ_NS ? m + 3 : m + 5;
    unsigned long long v = kind ? strtoull(num, &end, 10) : 0;
    if (!kind || end == num || *end != '\0' || v > 1000000000ULL) {
        fprintf(stderr, "kvtest: bad KVTEST_INJECT '%s' (expected PATH:ns:N or PATH:iter:N)\n", e);
        exit(2);
    }
    mode = kind;
    amount = v;
    fprintf(stderr, "kvtest: KVTEST_INJECT: %s slowed down by %s %llu per operation (test build)\n",
            path, kind == INJ_NS ? "a spin of ns" : "a loop of iterations", v);
}

void inject_op(void)
{
    if (mode == INJ_NS) {
        uint64_t until = clock_now_ns() + amount;
        while (clock_now_ns() < until)
            ;
    } else if (mode == INJ_ITER) {
        for (uint64_t i = 0; i < amount; i++)
            sink = sink + i;
    }
}
#endif
