/* net: see net.h. */
#include "base/net.h"

#include <errno.h>
#include <string.h>
#include <sys/resource.h>

#include "base/errbuf.h"
#include "base/units.h"

int net_hostport_split(const char *a, size_t n, struct net_hostport *hp, char *err,
                       size_t errcap)
{
    memset(hp, 0, sizeof(*hp));
    const char *end = a + n, *hend;
    hp->host = a;
    if (n > 0 && *a == '[') {
        hend = memchr(a, ']', n);
        if (!hend) {
            errbuf_say(err, errcap, "unclosed '[' in the host");
            return -1;
        }
        hp->host = a + 1;
        hp->bracketed = 1;
        if (hend + 1 < end) {
            if (hend[1] != ':') {
                errbuf_say(err, errcap, "junk after ']' in the host");
                return -1;
            }
            hp->port = hend + 2;
        }
    } else {
        hend = memchr(a, ':', n);
        if (hend)
            hp->port = hend + 1;
        else
            hend = end;
    }
    hp->hlen = (size_t)(hend - hp->host);
    hp->plen = hp->port ? (size_t)(end - hp->port) : 0;
    return 0;
}

int net_parse_num(const char *s, size_t n, long lo, long hi, long *out)
{
    if (n == 0 || n > 9)
        return -1;
    long v = (long)units_parse_digits(s, n);
    if (v < 0 || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static uint64_t lim64(rlim_t r)
{
    return r == RLIM_INFINITY ? UINT64_MAX : (uint64_t)r;
}

int net_fd_limit_raise(uint64_t want, struct net_fdlimit *l)
{
    memset(l, 0, sizeof(*l));
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return -1;
    l->was = l->now = lim64(rl.rlim_cur);
    if (l->now >= want)
        return 0;
    uint64_t target = lim64(rl.rlim_max) < want ? lim64(rl.rlim_max) : want;
    if (target <= l->now)
        return 0;
    struct rlimit up = {(rlim_t)target, rl.rlim_max};
    if (setrlimit(RLIMIT_NOFILE, &up) == 0) {
        l->now = target;
    } else {
        l->err = errno;
        l->tried = target;
    }
    return 0;
}
