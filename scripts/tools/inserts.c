/* build: @kvtest */
/* inserts: SQLite's own insert rate for the shortener's schema, the
 * in-process reference of POST /link (issue 22: creates/s over HTTP
 * within 1.5x of it). N times links_create (the service's own store
 * code: one autocommit INSERT of a fresh random id, WAL,
 * synchronous=NORMAL) on DBFILE from one thread; prints creates/s.
 *
 * Built by make build/inserts (make test builds it too, so it keeps
 * compiling as the store changes); scripts/study/http/post.sh runs it.
 * Usage: build/inserts DBFILE N */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#include "measure/clock.h"
#include "shortener/store/links.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: inserts DBFILE N\n");
        return 2;
    }
    char err[512];
    long n = atol(argv[2]);
    struct links_store st;
    struct links *l = links_store_parse(argv[1], &st, err, sizeof err) == 0
                          ? links_open_store(&st, err, sizeof err)
                          : NULL;
    if (!l || n <= 0) {
        fprintf(stderr, "inserts: %s\n", l ? "N must be positive" : err);
        return 1;
    }
    static const char url[] = "https://example.com/some/page/of/a/typical/length?q=1";
    char id[LINKS_ID_LEN + 1];
    uint64_t t0 = clock_now_ns();
    for (long i = 0; i < n; i++)
        if (links_create(l, url, sizeof url - 1, id) != LINKS_OK) {
            fprintf(stderr, "inserts: %s\n", links_errmsg(l));
            return 1;
        }
    double s = (double)(clock_now_ns() - t0) / 1e9;
    printf("%.0f\n", (double)n / s);
    links_close(l);
    return 0;
}
