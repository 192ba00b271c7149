/* compare_read: one side of kvtest compare, from a file of --json lines, a
 * results directory or stdin, into groups of samples (compare_int.h). */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/cli.h"
#include "base/json_alloc.h"
#include "commands/compare/compare_int.h"

/* The command whose messages these are: compare, or history reading its
 * series through the same reader. */
static const char *cmd(const struct compare_side *s)
{
    return s->cmd ? s->cmd : "compare";
}

/* One line of FILE (s->where names it). 0, or 2 after the message. */
static int read_line(struct compare_side *s, const char *line, size_t len)
{
    size_t i = 0;
    while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == '\n'))
        i++;
    if (i == len)
        return 0;   /* blank lines are allowed between objects */
    json_alloc_reset();
    cJSON *obj = cJSON_ParseWithLength(line, len);
    if (!obj && json_alloc_failed())
        return cli_fail(cmd(s), "%s: out of memory", s->where);
    if (!obj || !cJSON_IsObject(obj)) {
        cJSON_Delete(obj);
        return cli_usage(cmd(s), "%s: not a JSON object (a line of kvtest --json output "
                         "was expected)", s->where);
    }
    int rc = s->on_object ? s->on_object(s, obj) : 0;
    if (rc) {
        cJSON_Delete(obj);
        return rc;
    }
    const char *command = compare_jstr(obj, "command");
    char err[200] = "";
    if (!command) {
        /* bench.sh stores records of other tools (wrk, valkey-benchmark)
         * beside ours, marked "tool": not kvtest's, not compared. */
        if (compare_jstr(obj, "tool"))
            s->others++;
        else
            rc = cli_usage(cmd(s), "%s: not kvtest JSON (no \"command\")", s->where);
    } else if (compare_jtrue(compare_j(obj, "bench"), "warmup")) {
        s->warmups++;
    } else {
        int e = compare_extract(s, obj, command, err, sizeof err);
        if (e == 0)
            s->objects++;
        else if (e == 1)
            s->others++;
        else if (e == -1)
            rc = cli_usage(cmd(s), "%s: not kvtest JSON (%s)", s->where, err);
        else
            rc = cli_fail(cmd(s), "out of memory");
    }
    cJSON_Delete(obj);
    return rc;
}

/* A file that cannot be read is bad input (exit 2), but out of memory is
 * this run's failure (exit 1), as in every other command. */
static int unreadable(const struct compare_side *s, const char *shown, int err)
{
    if (err == ENOMEM)
        return cli_fail(cmd(s), "%s: %s", shown, strerror(err));
    return cli_usage(cmd(s), "%s: %s", shown, strerror(err));
}

static int read_stream(struct compare_side *s, FILE *f, const char *shown)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long no = 0;
    int rc = 0;
    while (rc == 0) {
        errno = 0;
        if ((len = getline(&line, &cap, f)) < 0) {
            /* the end, or an error: getline's ENOMEM leaves no ferror */
            if (ferror(f) || errno == ENOMEM)
                rc = unreadable(s, shown, errno ? errno : EIO);
            break;
        }
        snprintf(s->where, sizeof s->where, "%s:%ld", shown, ++no);
        rc = read_line(s, line, (size_t)len);
    }
    free(line);
    return rc;
}

static int read_file(struct compare_side *s, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return unreadable(s, path, errno);
    int rc = read_stream(s, f, path);
    fclose(f);
    return rc;
}

/* Why glob could not read a directory (compare reads its sides from one
 * thread, so one variable serves). */
static int glob_errno;

static int note_glob_errno(const char *path, int err)
{
    (void)path;
    glob_errno = err;
    return 1;
}

/* A results directory: the .jsonl files of DIR/raw, or of DIR without raw. */
static int read_dir(struct compare_side *s, const char *dir)
{
    char pat[4096];
    struct stat sb;
    snprintf(pat, sizeof pat, "%s/raw", dir);
    int raw = stat(pat, &sb) == 0 && S_ISDIR(sb.st_mode);
    if (snprintf(pat, sizeof pat, "%s%s/*.jsonl", dir, raw ? "/raw" : "") >= (int)sizeof pat)
        return cli_usage(cmd(s), "%s: path too long", dir);
    /* GLOB_ERR: without it a directory glob cannot open is taken as one
     * with no match, and "no .jsonl files" would hide the real cause. */
    glob_t gl;
    glob_errno = ENOMEM;   /* GLOB_NOSPACE calls no errfunc */
    int g = glob(pat, GLOB_ERR, note_glob_errno, &gl);
    if (g == GLOB_NOMATCH)
        return cli_usage(cmd(s), "%s: no .jsonl files in %s", dir, raw ? "raw/" : "it");
    if (g != 0) {
        globfree(&gl);
        return cli_usage(cmd(s), "%s: cannot list its .jsonl files: %s", dir,
                         strerror(glob_errno));
    }
    int rc = 0;
    for (size_t i = 0; i < gl.gl_pathc && rc == 0; i++)
        rc = read_file(s, gl.gl_pathv[i]);
    globfree(&gl);
    return rc;
}

int compare_side_read(struct compare_side *s, const char *path)
{
    s->name = path;
    if (strcmp(path, "-") == 0)
        return read_stream(s, stdin, "-");
    struct stat sb;
    if (stat(path, &sb) != 0)
        return cli_usage(cmd(s), "%s: %s", path, strerror(errno));
    return S_ISDIR(sb.st_mode) ? read_dir(s, path) : read_file(s, path);
}
