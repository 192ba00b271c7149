/* linkid: the one rule for what a link id looks like, shared by the
 * service (which answers 400 to anything else), the load generator (which
 * refuses such ids in a --keys file) and the tests. */
#ifndef KVTEST_SHORTENER_LINKID_H
#define KVTEST_SHORTENER_LINKID_H
#include <stddef.h>

#include "shortener/store/links.h"

/* 1 if id (len bytes, need not be NUL-terminated) is 1..LINKS_ID_MAX
 * characters of [A-Za-z0-9], else 0. ASCII only, whatever the locale. */
int linkid_valid(const char *id, size_t len);

#endif
