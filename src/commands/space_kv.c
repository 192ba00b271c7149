/* space_kv: kvtest stat's and space's figures for an LMDB or RocksDB
 * store: the engine's own (LMDB's pages as mdb_stat counts them, RocksDB's
 * SST files) and the directory's bytes on disk. */
#include <inttypes.h>
#include <stdio.h>

#include "base/cli.h"
#include "commands/space.h"
#include "commands/space_int.h"
#include "stores/layout.h"
#include "stores/kv/store_kv.h"

/* The engine's own figures, as JSON or one text line. */
void space_kv_engine(const char *path, const struct store_kv_facts *f, cJSON *json)
{
    if (layout_prefix_kind(path) == LAYOUT_LMDB) {
        if (json) {
            cJSON *o = cJSON_AddObjectToObject(json, "lmdb");
            cJSON_AddNumberToObject(o, "page_size", (double)f->page_size);
            cJSON_AddNumberToObject(o, "pages_used", (double)f->pages_used);
            cJSON_AddNumberToObject(o, "used_bytes", (double)(f->pages_used * f->page_size));
            cJSON_AddNumberToObject(o, "map_size", (double)f->map_size);
        } else {
            printf("LMDB: page size %" PRId64 ", %" PRId64 " pages used (%" PRId64
                   " bytes), map size %" PRId64 "\n", f->page_size, f->pages_used,
                   f->pages_used * f->page_size, f->map_size);
        }
    } else if (json) {
        cJSON *o = cJSON_AddObjectToObject(json, "rocksdb");
        cJSON_AddNumberToObject(o, "sst_files", (double)f->sst_files);
        cJSON_AddNumberToObject(o, "sst_bytes", (double)f->sst_bytes);
    } else {
        printf("RocksDB: %" PRId64 " SST files, %" PRId64 " bytes\n", f->sst_files,
               f->sst_bytes);
    }
}

int space_stat_kv(const char *path, const struct store_kv_facts *f, cJSON *json)
{
    struct dir_space d;
    char err[4200];
    int rc = space_dir_measure(layout_fs_path(path), &d, err, sizeof err);
    if (rc != 0)
        return cli_fail("stat", "%s", err);
    int64_t total = d.allocated + d.dir_bytes;
    space_kv_engine(path, f, json);
    if (json) {
        space_dir_json(&d, 0, json);
        return 0;
    }
    space_print_int("Number of files:", d.files);
    space_print_int("Apparent bytes:", d.apparent);
    space_print_int("Allocated bytes:", d.allocated);
    space_print_int("Total on disk:", total);
    space_print_int("Blob bytes:", f->value_bytes);
    if (f->value_bytes > 0)
        space_print_pct("Space overhead:", space_pct(total - f->value_bytes, f->value_bytes),
                        "on disk vs blob bytes");
    return 0;
}
