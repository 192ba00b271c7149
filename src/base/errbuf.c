/* errbuf: see errbuf.h. */
#include "base/errbuf.h"

#include <stdarg.h>
#include <stdio.h>

void errbuf_say(char *buf, size_t cap, const char *fmt, ...)
{
    if (!buf || cap == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
}
