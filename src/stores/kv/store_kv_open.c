/* store_kv_open: the table of open key-value stores (store_kv_open.h). */
#include <stdio.h>
#include <string.h>

#include "stores/kv/store_kv_open.h"

int store_kv_open_get(struct store_kv_open_table *t, const char *dir, const void *want,
                      char *err, size_t errcap)
{
    pthread_mutex_lock(&t->mu);
    int got = -1, free_slot = -1, clash = 0;
    for (int i = 0; i < STORE_KV_OPEN_MAX; i++) {
        if (t->refs[i] > 0 && strcmp(t->dir[i], dir) == 0) {
            if (t->same(i, want))
                got = i;
            else
                clash = 1;
            break;
        }
        if (t->refs[i] == 0 && free_slot < 0)
            free_slot = i;
    }
    if (clash) {
        snprintf(err, errcap, "%s: already open with other settings", dir);
    } else if (got < 0 && (free_slot < 0 || strlen(dir) >= sizeof t->dir[0])) {
        snprintf(err, errcap, "%s: too many %s open", dir, t->what);
    } else if (got < 0) {
        snprintf(t->dir[free_slot], sizeof t->dir[free_slot], "%s", dir);
        if (t->open(free_slot, t->dir[free_slot], want, err, errcap) == 0)
            got = free_slot;
        else
            t->dir[free_slot][0] = '\0';
    }
    if (got >= 0)
        t->refs[got]++;
    pthread_mutex_unlock(&t->mu);
    return got;
}

void store_kv_open_put(struct store_kv_open_table *t, int i)
{
    pthread_mutex_lock(&t->mu);
    if (--t->refs[i] == 0) {
        t->close(i);
        t->dir[i][0] = '\0';
    }
    pthread_mutex_unlock(&t->mu);
}
