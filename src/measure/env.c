/* env: where a figure was measured (see env.h). */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/statfs.h>
#include <sys/utsname.h>

#include "measure/env.h"
#include "base/cli.h"
#include "sqlite3.h"

static const struct {
    unsigned long magic;
    const char *name;
} fs_names[] = {
    {0xEF53, "ext4"},          /* ext2/3/4 share the magic */
    {0x58465342, "xfs"},
    {0x9123683E, "btrfs"},
    {0x01021994, "tmpfs"},
    {0x794C7630, "overlay"},
    {0x2FC12FC1, "zfs"},
    {0x6969, "nfs"},
    {0xFF534D42, "cifs"},
    {0xFE534D42, "smb2"},
    {0x65735546, "fuse"},
    {0x4D44, "vfat"},
    {0x5346544E, "ntfs"},
    {0xF2F52010, "f2fs"},
    {0x01021997, "9p"},
    {0x137D, "ext"},
    {0x52654973, "reiserfs"},
    {0x3153464A, "jfs"},
    {0x9FA0, "proc"},
    {0x62656572, "sysfs"},
    {0xCA451A4E, "bcachefs"},
    {0x858458F6, "ramfs"},
};

int env_fs_type(const char *path, char *buf, int cap)
{
    struct statfs sf;
    int rc = statfs(path, &sf);
    if (rc != 0) {
        /* Not created yet: the filesystem it will land on is its parent's. */
        char parent[4096];
        snprintf(parent, sizeof parent, "%s", path);
        char *slash = strrchr(parent, '/');
        if (slash == parent)
            slash[1] = '\0';
        else if (slash)
            *slash = '\0';
        else
            snprintf(parent, sizeof parent, ".");
        rc = statfs(parent, &sf);
    }
    if (rc != 0) {
        snprintf(buf, (size_t)cap, "unknown");
        return -1;
    }
    unsigned long m = (unsigned long)sf.f_type & 0xFFFFFFFFul;
    for (size_t i = 0; i < sizeof fs_names / sizeof fs_names[0]; i++)
        if (fs_names[i].magic == m) {
            snprintf(buf, (size_t)cap, "%s", fs_names[i].name);
            return 0;
        }
    snprintf(buf, (size_t)cap, "0x%lx", m);
    return 0;
}

void env_cpu_model(char *buf, int cap)
{
    snprintf(buf, (size_t)cap, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        /* x86 says "model name", arm64 often only "Hardware"/"CPU part". */
        if (strncmp(line, "model name", 10) == 0 || strncmp(line, "Hardware", 8) == 0) {
            char *c = strchr(line, ':');
            if (!c)
                continue;
            c++;
            while (*c == ' ' || *c == '\t')
                c++;
            c[strcspn(c, "\n")] = '\0';
            snprintf(buf, (size_t)cap, "%s", c);
            break;
        }
    }
    fclose(f);
}

cJSON *env_json(const char *path)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "sqlite_version", sqlite3_libversion());
    cJSON_AddStringToObject(o, "sqlite_source_id", sqlite3_sourceid());
    cJSON *opts = cJSON_AddArrayToObject(o, "sqlite_compile_options");
    const char *co;
    for (int i = 0; opts && (co = sqlite3_compileoption_get(i)) != NULL; i++)
        cJSON_AddItemToArray(opts, cJSON_CreateString(co));

    struct utsname u;
    char buf[1024];
    if (uname(&u) == 0) {
        snprintf(buf, sizeof buf, "%s %s %s %s", u.sysname, u.release, u.version, u.machine);
        cJSON_AddStringToObject(o, "kernel", buf);
    }
    if (path) {
        env_fs_type(path, buf, sizeof buf);
        cJSON_AddStringToObject(o, "fs_type", buf);
    }
    env_cpu_model(buf, sizeof buf);
    cJSON_AddStringToObject(o, "cpu_model", buf);
    cJSON_AddNumberToObject(o, "cpus", (double)sysconf(_SC_NPROCESSORS_ONLN));
    cJSON_AddStringToObject(o, "cmdline", cli_cmdline());

    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    cJSON_AddStringToObject(o, "time_utc", buf);
    return o;
}
