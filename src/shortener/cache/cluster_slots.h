/* cluster_slots: the pure parts of the Valkey Cluster protocol, as the
 * cluster specification defines them: which of the 16384 hash slots a key
 * belongs to (CRC16-XMODEM of the key, or of its {hash tag}), and what a
 * -MOVED or -ASK redirect says. No I/O here, so both are unit-tested
 * against the specification's own examples. */
#ifndef KVTEST_SHORTENER_CLUSTER_SLOTS_H
#define KVTEST_SHORTENER_CLUSTER_SLOTS_H
#include <stddef.h>
#include <stdint.h>

#define CLUSTER_NSLOTS 16384

/* CRC16 with polynomial 0x1021, initial value 0, no reflection (XMODEM):
 * crc16("123456789") = 0x31C3. */
uint16_t cluster_crc16(const char *buf, size_t len);

/* The hash slot of key: when the key holds a '{' followed later by a '}'
 * with at least one byte between the first '{' and the first '}' after
 * it, only those bytes are hashed (so related keys share a slot). */
int cluster_keyslot(const char *key, size_t len);

struct cluster_redirect {
    int ask;          /* 1: -ASK (ask once), 0: -MOVED (the slot moved) */
    int slot;
    char host[256];   /* empty: the node that sent the redirect */
    int port;
};

/* Parse an error reply "MOVED <slot> <host>:<port>" or "ASK <slot>
 * <host>:<port>" (the host may be empty or an IPv6 address: the port is
 * after the last ':'). 0 when msg is a redirect, -1 otherwise. */
int cluster_redirect_parse(const char *msg, size_t len, struct cluster_redirect *out);

#endif
