/* A fast 64-bit content hash (not cryptographic): equal bytes give equal
 * hashes on every machine (bytes are read little-endian explicitly). */
#ifndef NATIVE_VP8_CONTENT_HASH_H
#define NATIVE_VP8_CONTENT_HASH_H
#include <stddef.h>
#include <stdint.h>

uint64_t content_hash(const uint8_t *data, size_t length, uint64_t seed);

#endif
