/* aside: build a result under a temporary name beside its final path, then
 * rename it into place -- so the final path never holds half a result.
 *
 * The temporary is created in the target's directory (same filesystem, so
 * the rename is atomic) and registered with cleanup (base/cleanup.h) in
 * the same critical section that creates it: a Ctrl-C or SIGTERM at any
 * moment removes it, and the rename in aside_commit is another critical
 * section, so the watcher sees the result either aside or in place, never
 * both or neither. A database built aside also gets its -wal, -shm and
 * -journal registered, since SQLite creates those beside the file.
 *
 * Usage: aside_create, fill a->path, then aside_commit (fsync, rename,
 * directory fsync) or aside_discard (remove). Either releases the
 * registrations. */
#ifndef KVTEST_ASIDE_H
#define KVTEST_ASIDE_H
#include <sys/types.h>

/* What every temporary name has between the target and its XXXXXX: other
 * code (sweep) recognises leftovers by it. */
#define ASIDE_INFIX ".kvtest-tmp-"
/* The usual template: TARGET.kvtest-tmp-XXXXXX. */
#define ASIDE_SIBLING "%s" ASIDE_INFIX "XXXXXX"

#define ASIDE_PATH 4096

enum aside_kind {
    ASIDE_FILE,      /* a plain file */
    ASIDE_SQLITE,    /* a database file: its SQLite siblings come and go too */
    ASIDE_DIR,       /* a directory, removed with its content */
};

#define ASIDE_NSIBLINGS 3   /* -wal, -shm, -journal */

struct aside {
    enum aside_kind kind;
    char target[ASIDE_PATH];
    char path[ASIDE_PATH + 64];    /* the temporary being filled */
    char dir[ASIDE_PATH];          /* target's directory (fsync, messages) */
    int h;                         /* cleanup handle of path, -1 once released */
    int hs[ASIDE_NSIBLINGS];       /* of path's SQLite siblings (ASIDE_SQLITE) */
};

/* Create the temporary: tmpl is a printf format taking the target once and
 * ending in XXXXXX (ASIDE_SIBLING, or e.g. "%s/.kvtest-tmp-XXXXXX" inside
 * a directory). A file gets mode & ~umask, a directory the mode mkdtemp
 * gives (0700; chmod it as needed). Returns 0, or -1 with errno
 * (ENAMETOOLONG if the name does not fit); nothing is left on failure. */
int aside_create(struct aside *a, const char *target, const char *tmpl, enum aside_kind kind,
                 mode_t mode);

/* Finish: fsync the file (or the directory's entries), rename it onto the
 * target (a database's stale -wal/-shm/-journal at the target belong to
 * the file being replaced and are removed first), fsync the target's
 * directory. 0, or -1 with errno and the temporary removed. */
int aside_commit(struct aside *a);

/* Finish another way: put() moves a->path into place itself (merging,
 * swapping directories...) and returns 0, or -1 with errno, leaving
 * a->path where it was. It runs in a cleanup critical section. On success
 * the temporary is forgotten (what is left of it, nothing is removed), on
 * failure it is removed. Returns put's result, errno preserved. */
int aside_commit_with(struct aside *a, int (*put)(struct aside *a, void *arg), void *arg);

/* Forget the temporary without removing it: it has become the user's
 * (e.g. renamed back to where the user had it). Callable inside a cleanup
 * critical section (put above). */
void aside_keep(struct aside *a);

/* Failure path: remove the temporary (and its siblings) and forget it. */
void aside_discard(struct aside *a);

/* fsync a file (dir 0) or a directory's entries (dir 1). 0 or -1, errno. */
int aside_fsync_path(const char *path, int dir);

#endif
