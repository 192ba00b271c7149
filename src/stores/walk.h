/* walk: the regular files under a user's directory, in a reproducible
 * order, for "kvtest init --from" and the size distribution of "kvtest
 * stat DIR". Symbolic links are never followed (a link could lead out of
 * the directory or into a loop); everything that is not a regular file is
 * counted, not listed. */
#ifndef KVTEST_WALK_H
#define KVTEST_WALK_H
#include <stddef.h>
#include <stdint.h>

struct walk_file {
    char *rel;       /* path relative to the top directory, "a/b.jpg" */
    int64_t size;    /* st_size when walked */
};

struct walk {
    struct walk_file *f;   /* sorted by rel in byte order (strcmp) */
    int64_t n, cap;
    int64_t bytes;         /* sum of size over f */
    /* Left out, and why. */
    int64_t symlinks;      /* not followed */
    int64_t special;       /* sockets, fifos, devices */
    int64_t empty;         /* regular files of 0 bytes */
    int64_t too_large;     /* regular files over max_size */
    int64_t unreadable;    /* directories that could not be opened or read */
    int64_t dirs;          /* directories walked, the top one included */
};

/* Walk dir. Files of 1..max_size bytes go to w->f (sorted), the others are
 * counted. A subdirectory that cannot be read is counted in unreadable and
 * skipped; only the top directory failing is an error. Returns 0, or -1
 * with one line in err (errno text, or "not a directory"). Free with
 * walk_free() in both cases. */
int walk_dir(const char *dir, int64_t max_size, struct walk *w, char *err, size_t errcap);
void walk_free(struct walk *w);

#endif
