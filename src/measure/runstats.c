/* runstats: counters for "run --stats" (see runstats.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/runstats.h"
#include "base/os.h"

const struct runstats_label runstats_io_labels[7] = {
    {"rchar", "Bytes received by read():"},
    {"wchar", "Bytes sent to write():"},
    {"syscr", "Read() system calls:"},
    {"syscw", "Write() system calls:"},
    {"read_bytes", "Bytes read from storage:"},
    {"write_bytes", "Bytes written to storage:"},
    {"cancelled_write_bytes", "Cancelled write bytes:"},
};

void runstats_io_read(struct io_counters *c)
{
    const char *keys[7];
    for (int i = 0; i < 7; i++)
        keys[i] = runstats_io_labels[i].key;
    memset(c, 0, sizeof *c);
    c->ok = os_io_counters(keys, 7, c->v) == 0;
}

void runstats_sql_take(struct sql_stats *s, sqlite3 *db)
{
    sqlite3_int64 c, h;
    s->have = 1;
    sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &c, &h, 0);
    s->mem[0] = c, s->mem[1] = h;
    sqlite3_status64(SQLITE_STATUS_MALLOC_COUNT, &c, &h, 0);
    s->allocs[0] = c, s->allocs[1] = h;
    sqlite3_status64(SQLITE_STATUS_PAGECACHE_USED, &c, &h, 0);
    s->pc_used[0] = c, s->pc_used[1] = h;
    sqlite3_status64(SQLITE_STATUS_PAGECACHE_OVERFLOW, &c, &h, 0);
    s->pc_over[0] = c, s->pc_over[1] = h;
    sqlite3_status64(SQLITE_STATUS_MALLOC_SIZE, &c, &h, 0);
    s->big_alloc = h;
    sqlite3_status64(SQLITE_STATUS_PAGECACHE_SIZE, &c, &h, 0);
    s->big_pc = h;
    if (db) {
        int ic, ih;
        sqlite3_db_status(db, SQLITE_DBSTATUS_CACHE_USED, &ic, &ih, 0);
        s->heap = ic;
        sqlite3_db_status(db, SQLITE_DBSTATUS_CACHE_HIT, &ic, &ih, 1);
        s->hits = ic;
        sqlite3_db_status(db, SQLITE_DBSTATUS_CACHE_MISS, &ic, &ih, 1);
        s->misses = ic;
        sqlite3_db_status(db, SQLITE_DBSTATUS_CACHE_WRITE, &ic, &ih, 1);
        s->writes = ic;
    }
}

void runstats_print(const struct sql_stats *s, const struct io_counters *io)
{
    printf("\n");
    if (s->have) {
        printf("Memory Used:                         %lld (max %lld) bytes\n",
               (long long)s->mem[0], (long long)s->mem[1]);
        printf("Number of Outstanding Allocations:   %lld (max %lld)\n",
               (long long)s->allocs[0], (long long)s->allocs[1]);
        printf("Number of Pcache Pages Used:         %lld (max %lld) pages\n",
               (long long)s->pc_used[0], (long long)s->pc_used[1]);
        printf("Number of Pcache Overflow Bytes:     %lld (max %lld) bytes\n",
               (long long)s->pc_over[0], (long long)s->pc_over[1]);
        printf("Largest Allocation:                  %lld bytes\n", (long long)s->big_alloc);
        printf("Largest Pcache Allocation:           %lld bytes\n", (long long)s->big_pc);
        printf("Pager Heap Usage:                    %d bytes\n", s->heap);
        printf("Page cache hits:                     %d\n", s->hits);
        printf("Page cache misses:                   %d\n", s->misses);
        printf("Page cache writes:                   %d\n", s->writes);
    }
    if (io->ok)
        for (int i = 0; i < 7; i++)
            printf("%-36s %lld\n", runstats_io_labels[i].label, (long long)io->v[i]);
}
