/* blobsum: self-verifying blobs. Every blob kvtest writes (init, update,
 * sweep) ends in an 8-byte tag = hash64(all bytes before it) ^ BLOBSUM_MAGIC,
 * so a reader can check any blob, from any layout, with no side file and
 * no change to the original kv(k, v) schema. */
#ifndef KVTEST_BLOBSUM_H
#define KVTEST_BLOBSUM_H
#include <stddef.h>
#include <stdint.h>

#define BLOBSUM_TAG 8
#define BLOBSUM_MIN 16   /* smaller blobs are left unsealed: unverifiable */

uint64_t blobsum_hash(const void *buf, size_t n);
/* Write the tag into the last 8 bytes (n >= BLOBSUM_MIN; else no-op). */
void blobsum_seal(void *buf, size_t n);
/* 1 = tag matches, 0 = does not match (corrupt, or not made by kvtest),
 * -1 = too small to carry a tag. */
int blobsum_check(const void *buf, size_t n);

#endif
