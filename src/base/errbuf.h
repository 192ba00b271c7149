/* errbuf: "format a reason into the caller's buffer, if it gave one", the
 * error convention of the parsers that report why (char *err, size_t errcap). */
#ifndef KVTEST_ERRBUF_H
#define KVTEST_ERRBUF_H
#include <stddef.h>

/* printf into buf[cap]; does nothing when buf is NULL or cap is 0. */
void errbuf_say(char *buf, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
