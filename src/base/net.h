/* net: the small pieces every network client here needs, in one copy:
 * splitting "host:port" (IPv6 in brackets), reading a plain decimal number
 * out of a URL, and raising the open-file limit for many sockets. */
#ifndef KVTEST_NET_H
#define KVTEST_NET_H
#include <stddef.h>
#include <stdint.h>

/* The host and port of an authority "HOST[:PORT]" or "[IPV6][:PORT]"
 * (a[0..n), not NUL-terminated): spans into a, the host without brackets.
 * port is NULL when none was written (then plen is 0). */
struct net_hostport {
    const char *host, *port;
    size_t hlen, plen;
    int bracketed;     /* the host was written [in brackets] */
};

/* 0 ok; -1 with a short reason in err ("unclosed '[' in the host", "junk
 * after ']' in the host"). The host may be empty: the caller says whether
 * that is an error, and in its words. */
int net_hostport_split(const char *a, size_t n, struct net_hostport *hp, char *err,
                       size_t errcap);

/* s[0..n) as a decimal number in [lo, hi]: 1 to 9 digits, nothing else
 * (no sign, no suffix, no spaces). 0 ok, -1 otherwise. */
int net_parse_num(const char *s, size_t n, long lo, long hi, long *out);

/* The soft open-file limit, before and after net_fd_limit_raise. Limits
 * without bound read as UINT64_MAX. */
struct net_fdlimit {
    uint64_t was, now;
    uint64_t tried;    /* the soft limit asked for, when err is set */
    int err;           /* errno of a refused setrlimit, else 0 */
};

/* Raise the soft limit toward `want` (never above the hard limit, never
 * lowered): one descriptor per socket, and the default soft limit (often
 * 1024) is reached by a few hundred connections. 0, or -1 when the limit
 * cannot even be read. l->now < want says the limit stayed short. */
int net_fd_limit_raise(uint64_t want, struct net_fdlimit *l);

#endif
