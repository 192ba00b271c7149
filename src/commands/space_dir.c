/* space_dir: a directory's bytes, as stat and space count them for an
 * export (flat or tree) and for an LMDB or RocksDB store's directory: files,
 * apparent and allocated bytes, and the directories' own blocks, which a
 * database does not spend (space.h says why both are shown). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands/space_int.h"

/* Directory trees are shallow (a tree export has three levels), but a user
 * may point us anywhere: bound the depth instead of trusting it. */
#define MAX_DEPTH 64

static int scan_dir(int dfd, const char *shown, int depth, struct dir_space *d,
                    char *err, size_t errcap)
{
    struct stat sb;
    if (fstat(dfd, &sb) != 0) {
        snprintf(err, errcap, "%s: %s", shown, strerror(errno));
        close(dfd);
        return -1;
    }
    d->dirs++;
    d->dir_bytes += (int64_t)sb.st_blocks * 512;
    DIR *dir = fdopendir(dfd);
    if (!dir) {
        snprintf(err, errcap, "%s: %s", shown, strerror(errno));
        close(dfd);
        return -1;
    }
    int rc = 0;
    struct dirent *e;
    errno = 0;
    while ((e = readdir(dir)) != NULL) {
        const char *n = e->d_name;
        if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
            continue;
        struct stat es;
        if (fstatat(dirfd(dir), n, &es, AT_SYMLINK_NOFOLLOW) != 0) {
            snprintf(err, errcap, "%s/%s: %s", shown, n, strerror(errno));
            rc = -1;
            break;
        }
        if (S_ISREG(es.st_mode)) {
            d->files++;
            d->apparent += (int64_t)es.st_size;
            d->allocated += (int64_t)es.st_blocks * 512;
        } else if (S_ISDIR(es.st_mode)) {
            if (depth == 0 && strcmp(n, "00") == 0)
                d->tree = 1;
            if (depth + 1 >= MAX_DEPTH) {
                snprintf(err, errcap, "%s/%s: directories nested too deep", shown, n);
                rc = -1;
                break;
            }
            int sub = openat(dirfd(dir), n, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", shown, n);
            if (sub < 0) {
                snprintf(err, errcap, "%s: %s", path, strerror(errno));
                rc = -1;
                break;
            }
            if (scan_dir(sub, path, depth + 1, d, err, errcap) != 0) {
                rc = -1;
                break;
            }
        } else {
            d->others++;
        }
        errno = 0;
    }
    if (rc == 0 && errno != 0) {
        snprintf(err, errcap, "%s: %s", shown, strerror(errno));
        rc = -1;
    }
    closedir(dir);
    return rc;
}

/* 0 ok; 1 runtime failure; 2 not a directory. err gets one line. */
int space_dir_measure(const char *path, struct dir_space *d, char *err, size_t errcap)
{
    memset(d, 0, sizeof *d);
    struct stat sb;
    if (stat(path, &sb) != 0) {
        snprintf(err, errcap, "%s: %s", path, strerror(errno));
        return 1;
    }
    if (!S_ISDIR(sb.st_mode)) {
        snprintf(err, errcap, "%s: not a directory", path);
        return 2;
    }
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errcap, "%s: %s", path, strerror(errno));
        return 1;
    }
    return scan_dir(fd, path, 0, d, err, errcap) == 0 ? 0 : 1;
}

/* A directory's bytes, as stat --json gives them for any layout (an
 * export's also with its directory and other entry counts). */
void space_dir_json(const struct dir_space *d, int entries, cJSON *json)
{
    cJSON_AddNumberToObject(json, "files", (double)d->files);
    if (entries) {
        cJSON_AddNumberToObject(json, "directories", (double)d->dirs);
        cJSON_AddNumberToObject(json, "other_entries", (double)d->others);
    }
    cJSON_AddNumberToObject(json, "apparent_bytes", (double)d->apparent);
    cJSON_AddNumberToObject(json, "allocated_bytes", (double)d->allocated);
    cJSON_AddNumberToObject(json, "directory_bytes", (double)d->dir_bytes);
    cJSON_AddNumberToObject(json, "total_bytes", (double)(d->allocated + d->dir_bytes));
}
