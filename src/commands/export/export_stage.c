/* export_stage: an export is built in a directory of its own and takes
 * DIR's place only when it is complete, so DIR never holds part of one.
 *
 * The build directory is a sibling, DIR.kvtest-tmp-XXXXXX, on DIR's
 * filesystem, so that rename() can put it in place:
 *   - DIR missing: rename it to DIR;
 *   - DIR empty, or an earlier export of the same layout: rename DIR aside
 *     (onto an empty DIR.kvtest-old-XXXXXX), rename the build to DIR, then
 *     remove the old one -- DIR ends with the new export only;
 *   - DIR with other content (--force): move each new file into DIR,
 *     replacing files with blob names, leaving everything else.
 * When a sibling cannot be used (DIR is a symlink, a mount point, "." or
 * "..", or its parent is not writable) the build goes inside DIR,
 * .kvtest-tmp-XXXXXX, and is moved in as in the last case. The build
 * directory is built aside (base/aside.h: registered with cleanup), and
 * both renames and the move run in a cleanup critical section, so a signal
 * removes what is temporary and never splits them. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/aside.h"
#include "base/cli.h"
#include "commands/export/export_int.h"
#include "stores/layout.h"

/* DIR's rules (kvtest help export): which content may be written over. */
static int check_existing(struct export_stage *s, const struct export_opts *o,
                          const char *cmd)
{
    int64_t nent = 0;
    int ex = layout_is_export(s->dir, &nent);
    if (ex < 0)
        return cli_fail(cmd, "%s: %s", o->dir, strerror(errno));
    s->how = EXPORT_REPLACE;
    if (nent > 0 && o->kv != LAYOUT_MISSING) {
        /* A store replaces a store of its kind, never anything else: its
         * files cannot be merged into other content. */
        char why[600], named[PATH_MAX + 16];
        snprintf(named, sizeof named, "%s%s", o->kv == LAYOUT_LMDB ? LAYOUT_LMDB_PREFIX
                                                                 : LAYOUT_ROCKSDB_PREFIX, s->dir);
        if (layout_detect(named, why, sizeof why) != o->kv)
            return cli_fail(cmd, "%s is not empty and not an earlier %s store; "
                            "refusing to write into it (use another directory)", o->dir,
                            layout_kind_name(o->kv));
        s->earlier = 1;
    } else if (nent > 0) {
        char why[600];
        enum layout_kind was = layout_detect(s->dir, why, sizeof why);
        int same = ex && (was == LAYOUT_TREE) == (o->tree != 0);
        if (!same && !o->force) {
            if (ex)
                return cli_fail(cmd, "%s holds a %s export; refusing to mix in a %s one "
                                "(use another directory, or --force)", o->dir,
                                layout_kind_name(was), o->tree ? "tree" : "flat");
            return cli_fail(cmd, "%s is not empty and not an earlier export; "
                            "refusing to write into it (use --force)", o->dir);
        }
        s->earlier = same;
        if (!same)
            s->how = EXPORT_MERGE;
    }
    if (access(s->dir, W_OK) != 0)
        return cli_fail(cmd, "%s: %s", o->dir, strerror(errno));
    return 0;
}

/* Can DIR be replaced by a sibling? Not if it is a symlink (the link would
 * be replaced, not what it points to), a mount point, or its parent is
 * read-only for us. */
static int sibling_ok(const char *dir)
{
    const char *base = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
    if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
        return 0;   /* "/", "." and ".." cannot be renamed */
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s", dir);
    char *sl = strrchr(parent, '/');
    if (!sl)
        snprintf(parent, sizeof parent, ".");
    else
        sl[sl == parent] = '\0';
    struct stat a, b;
    if (lstat(dir, &a) != 0 || S_ISLNK(a.st_mode) || stat(parent, &b) != 0)
        return 0;
    return a.st_dev == b.st_dev && access(parent, W_OK) == 0;
}

int export_stage_open(struct export_stage *s, const struct export_opts *o, const char *cmd)
{
    memset(s, 0, sizeof *s);
    size_t n = strlen(o->dir);
    while (n > 1 && o->dir[n - 1] == '/')
        n--;
    if (n + 24 >= sizeof s->dir)
        return cli_usage(cmd, "path too long: %s", o->dir);
    memcpy(s->dir, o->dir, n);
    s->dir[n] = '\0';
    mode_t mask = umask(0);
    umask(mask);
    s->mode = 0755 & ~mask;
    s->how = EXPORT_RENAME;
    struct stat st;
    if (stat(s->dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode))
            return cli_fail(cmd, "%s: exists and is not a directory", o->dir);
        s->mode = st.st_mode & 07777;
        int bad = check_existing(s, o, cmd);
        if (bad)
            return bad;
    } else if (errno != ENOENT) {
        return cli_fail(cmd, "%s: %s", o->dir, strerror(errno));
    } else if (lstat(s->dir, &st) == 0) {
        /* A dangling symlink: renaming onto it would replace the link. */
        return cli_fail(cmd, "cannot create %s: %s", o->dir, strerror(EEXIST));
    }
    const char *fmt = ASIDE_SIBLING;
    if (s->how != EXPORT_RENAME && !sibling_ok(s->dir) && o->kv != LAYOUT_MISSING)
        return cli_fail(cmd, "%s: cannot build a store beside it (a symlink, a mount point, "
                        "or its parent is not writable)", o->dir);
    if (s->how != EXPORT_RENAME && !sibling_ok(s->dir)) {
        fmt = "%s/" ASIDE_INFIX "XXXXXX";   /* DIR/.kvtest-tmp-XXXXXX */
        s->how = EXPORT_MERGE;
    }
    if (aside_create(&s->build, s->dir, fmt, ASIDE_DIR, 0) != 0)
        return cli_fail(cmd, "cannot create %s: %s", o->dir, strerror(errno));
    chmod(s->build.path, s->mode);
    /* A tree is recognised by its 00 directory, even if key 1..99 are absent. */
    if (o->tree) {
        char p[sizeof s->build.path + 4];
        snprintf(p, sizeof p, "%s/00", s->build.path);
        if (mkdir(p, 0755) != 0 && errno != EEXIST) {
            int e = errno;
            export_stage_discard(s);
            return cli_fail(cmd, "cannot create %s/00: %s", o->dir, strerror(e));
        }
    }
    return 0;
}

void export_stage_discard(struct export_stage *s)
{
    aside_discard(&s->build);
}

static int is_dir(const char *p)
{
    struct stat sb;
    return lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* Move everything in src into dst (same filesystem): a directory that dst
 * already has is merged, a file replaces dst's. src is removed. A pass
 * may miss entries renamed away under readdir, hence the repeat. */
static int merge_into(const char *src, const char *dst)
{
    for (int pass = 0; pass < 4; pass++) {
        DIR *d = opendir(src);
        if (!d)
            return -1;
        struct dirent *e;
        int rc = 0;
        while (rc == 0 && (e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char a[PATH_MAX], b[PATH_MAX];
            if (snprintf(a, sizeof a, "%s/%s", src, e->d_name) >= (int)sizeof a ||
                snprintf(b, sizeof b, "%s/%s", dst, e->d_name) >= (int)sizeof b) {
                errno = ENAMETOOLONG;
                rc = -1;
            } else if (rename(a, b) != 0) {
                int again = (errno == EEXIST || errno == ENOTEMPTY) && is_dir(a) && is_dir(b);
                rc = again ? merge_into(a, b) : -1;
            }
        }
        int e2 = errno;
        closedir(d);
        if (rc != 0) {
            errno = e2;
            return -1;
        }
        if (rmdir(src) == 0)
            return 0;
        if (errno != ENOTEMPTY && errno != EEXIST)
            return -1;
    }
    return -1;
}

/* Files of an earlier export whose keys are beyond the database's: in
 * DIR they would make "run" pick a larger max-id than the data has. */
static int64_t stale_files(const char *dir, int tree, int64_t maxk, int unlink_them)
{
    int64_t n = 0, top = layout_max_key(dir, tree);
    char p[PATH_MAX];
    struct stat sb;
    for (int64_t k = maxk + 1; k <= top; k++)
        if (layout_path(p, sizeof p, dir, tree, k) > 0 &&
            (unlink_them ? unlink(p) == 0 : lstat(p, &sb) == 0))
            n++;
    return n;
}

/* DIR aside (onto old, an empty directory), the build in its place; if
 * the second rename fails, DIR is put back. In a critical section. */
static int swap_dirs(struct aside *build, void *arg)
{
    struct aside *old = arg;
    if (rename(build->target, old->path) != 0)
        return -1;
    if (rename(build->path, build->target) == 0)
        return 0;
    int e = errno;
    if (rename(old->path, build->target) != 0)
        aside_keep(old);   /* old is the user's DIR now: never removed */
    errno = e;
    return -1;
}

/* DIR aside, the build in its place, the old one gone. */
static int replace_dir(struct export_stage *s, const struct export_opts *o, int64_t maxk,
                       int64_t *stale)
{
    struct aside old;
    if (aside_create(&old, s->dir, "%s.kvtest-old-XXXXXX", ASIDE_DIR, 0) != 0)
        return -1;
    int rc = aside_commit_with(&s->build, swap_dirs, &old);
    int e = errno;
    if (rc == 0 && s->earlier && o->kv == LAYOUT_MISSING)
        *stale = stale_files(old.path, o->tree, maxk, 0);
    aside_discard(&old);
    errno = e;
    return rc;
}

static int put_merge(struct aside *build, void *arg)
{
    (void)arg;
    return merge_into(build->path, build->target);
}

static int put_rename(struct aside *build, void *arg)
{
    (void)arg;
    return rename(build->path, build->target);
}

int export_stage_commit(struct export_stage *s, const struct export_opts *o, int64_t maxk,
                        int64_t *stale, const char *cmd)
{
    *stale = 0;
    int rc = 0;
    if (s->how == EXPORT_REPLACE) {
        rc = replace_dir(s, o, maxk, stale);
    } else {
        rc = aside_commit_with(&s->build, s->how == EXPORT_RENAME ? put_rename : put_merge,
                               NULL);
        int e = errno;
        if (rc == 0 && s->how == EXPORT_MERGE && s->earlier)
            *stale = stale_files(s->dir, o->tree, maxk, 1);
        errno = e;
    }
    if (rc == 0)
        return 0;
    int e = errno;
    export_stage_discard(s);
    return cli_fail(cmd, "%s: %s", o->dir, strerror(e));
}
