/* cluster_slots: key slots and redirect messages. See cluster_slots.h. */
#include "shortener/cache/cluster_slots.h"

#include <string.h>

#include "base/net.h"

uint16_t cluster_crc16(const char *buf, size_t len)
{
    /* Bit by bit: keys are a few dozen bytes and each lookup pays a
     * network round trip anyway, so a 512-byte table buys nothing. */
    uint16_t crc = 0;
    for (size_t i = 0; i < len; i++) {
        crc ^= (uint16_t)((unsigned char)buf[i] << 8);
        for (int b = 0; b < 8; b++)
            crc = crc & 0x8000 ? (uint16_t)((crc << 1) ^ 0x1021) : (uint16_t)(crc << 1);
    }
    return crc;
}

int cluster_keyslot(const char *key, size_t len)
{
    const char *open = memchr(key, '{', len);
    if (open) {
        size_t from = (size_t)(open - key) + 1;
        const char *close = memchr(key + from, '}', len - from);
        if (close && close > key + from)
            return cluster_crc16(key + from, (size_t)(close - (key + from))) & (CLUSTER_NSLOTS - 1);
    }
    return cluster_crc16(key, len) & (CLUSTER_NSLOTS - 1);
}

int cluster_redirect_parse(const char *msg, size_t len, struct cluster_redirect *out)
{
    size_t skip;
    if (len > 6 && memcmp(msg, "MOVED ", 6) == 0) {
        out->ask = 0;
        skip = 6;
    } else if (len > 4 && memcmp(msg, "ASK ", 4) == 0) {
        out->ask = 1;
        skip = 4;
    } else {
        return -1;
    }
    const char *p = msg + skip, *end = msg + len;
    const char *sp = memchr(p, ' ', (size_t)(end - p));
    long slot, port;
    if (!sp || net_parse_num(p, (size_t)(sp - p), 0, CLUSTER_NSLOTS - 1, &slot) != 0)
        return -1;
    const char *addr = sp + 1, *colon = NULL;
    for (const char *q = addr; q < end; q++)
        if (*q == ':')
            colon = q;
    if (!colon || net_parse_num(colon + 1, (size_t)(end - colon - 1), 1, 65535, &port) != 0)
        return -1;
    size_t hlen = (size_t)(colon - addr);
    if (hlen >= sizeof out->host)
        return -1;
    memcpy(out->host, addr, hlen);
    out->host[hlen] = '\0';
    out->slot = (int)slot;
    out->port = (int)port;
    return 0;
}
