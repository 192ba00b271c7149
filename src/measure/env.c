/* env: where a figure was measured (see env.h). */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "measure/env.h"
#include "measure/provenance.h"
#include "base/cli.h"
#include "base/os.h"
#include "sqlite3.h"

int env_fs_type(const char *path, char *buf, int cap)
{
    int rc = os_fs_type(path, buf, cap);
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
        rc = os_fs_type(parent, buf, cap);
    }
    if (rc != 0) {
        snprintf(buf, (size_t)cap, "unknown");
        return -1;
    }
    return 0;
}

void env_cpu_model(char *buf, int cap)
{
    os_cpu_model(buf, cap);
}

cJSON *env_json(const char *path)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    const struct provenance *p = provenance_get();
    cJSON_AddStringToObject(o, "kvtest_version", p->version);
    cJSON_AddStringToObject(o, "commit", p->commit);
    if (p->dirty < 0)
        cJSON_AddNullToObject(o, "dirty");
    else
        cJSON_AddBoolToObject(o, "dirty", p->dirty);
    cJSON_AddStringToObject(o, "build", p->variant);
    cJSON_AddStringToObject(o, "build_flags", p->flags);
    cJSON_AddStringToObject(o, "compiler", p->compiler);
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
