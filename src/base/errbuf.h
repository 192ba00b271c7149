/* errbuf: "format a reason into the caller's buffer, if it gave one", the
 * error convention of the parsers that report why (char *err, size_t errcap),
 * and the two failures a caller may need to tell apart. */
#ifndef KVTEST_ERRBUF_H
#define KVTEST_ERRBUF_H
#include <stddef.h>

/* What a function below the command layer returns when it fails, with the
 * reason in err: ERRBUF_FAIL when doing it failed, ERRBUF_MISUSE when the
 * request itself was wrong before anything was tried (an option that
 * cannot apply here). Only the command line turns them into exit statuses
 * (1 and 2), so a caller elsewhere is never handed an exit status. */
enum errbuf_rc { ERRBUF_FAIL = -1, ERRBUF_MISUSE = -2 };

/* printf into buf[cap]; does nothing when buf is NULL or cap is 0. */
void errbuf_say(char *buf, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
