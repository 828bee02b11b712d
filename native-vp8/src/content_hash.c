/* Four independent multiply-rotate lanes over 32-byte blocks, then a tail
 * and a final avalanche. Written for speed on reference pictures (MBs). */
#include "content_hash.h"

static const uint64_t K1 = 0x9E3779B185EBCA87ULL;
static const uint64_t K2 = 0xC2B2AE3D27D4EB4FULL;
static const uint64_t K3 = 0x165667B19E3779F9ULL;

static inline uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static inline uint64_t load_le64(const uint8_t *p) {
  return (uint64_t)p[0] | ((uint64_t)p[1] << 8) | ((uint64_t)p[2] << 16) | ((uint64_t)p[3] << 24) |
         ((uint64_t)p[4] << 32) | ((uint64_t)p[5] << 40) | ((uint64_t)p[6] << 48) | ((uint64_t)p[7] << 56);
}

static inline uint64_t mix_lane(uint64_t acc, uint64_t word) {
  acc += word * K2;
  acc = rotl(acc, 31);
  return acc * K1;
}

static inline uint64_t avalanche(uint64_t h) {
  h ^= h >> 33;
  h *= K2;
  h ^= h >> 29;
  h *= K3;
  h ^= h >> 32;
  return h;
}

uint64_t content_hash(const uint8_t *data, size_t length, uint64_t seed) {
  uint64_t a = seed + K1 + K2, b = seed + K2, c = seed, d = seed - K1;
  size_t i = 0;
  for (; i + 32 <= length; i += 32) {
    a = mix_lane(a, load_le64(data + i));
    b = mix_lane(b, load_le64(data + i + 8));
    c = mix_lane(c, load_le64(data + i + 16));
    d = mix_lane(d, load_le64(data + i + 24));
  }
  uint64_t h = rotl(a, 1) + rotl(b, 7) + rotl(c, 12) + rotl(d, 18);
  h ^= (uint64_t)length * K3;
  for (; i + 8 <= length; i += 8) h = rotl(h ^ mix_lane(0, load_le64(data + i)), 27) * K1 + K3;
  for (; i < length; i++) h = rotl(h ^ ((uint64_t)data[i] * K3), 11) * K1;
  return avalanche(h);
}
