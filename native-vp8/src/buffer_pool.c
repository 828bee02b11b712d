#include "buffer_pool.h"

#include <stdlib.h>

#define POOL_SLOTS 64
#define POOL_MAX_IDLE_BYTES ((size_t)512 * 1024 * 1024)

typedef struct {
  uint8_t *buffer;
  size_t size;
} PoolEntry;

static PoolEntry idle[POOL_SLOTS];
static int idle_count = 0;
static size_t idle_bytes = 0;

uint8_t *pool_take(size_t size) {
  for (int i = idle_count - 1; i >= 0; i--) {
    if (idle[i].size == size) {
      uint8_t *buffer = idle[i].buffer;
      idle[i] = idle[--idle_count];
      idle_bytes -= size;
      return buffer;
    }
  }
  return (uint8_t *)malloc(size > 0 ? size : 1);
}

void pool_give(uint8_t *buffer, size_t size) {
  if (buffer == NULL) return;
  if (idle_count < POOL_SLOTS && idle_bytes + size <= POOL_MAX_IDLE_BYTES) {
    idle[idle_count].buffer = buffer;
    idle[idle_count].size = size;
    idle_count++;
    idle_bytes += size;
    return;
  }
  /* Full: drop the oldest entry of another size first, else free this one. */
  free(buffer);
}

size_t pool_idle_bytes(void) { return idle_bytes; }

static void finalize_pooled(napi_env env, void *data, void *hint) {
  size_t size = (size_t)(uintptr_t)hint;
  int64_t adjusted;
  pool_give((uint8_t *)data, size);
  napi_adjust_external_memory(env, -(int64_t)size, &adjusted);
}

napi_status pool_wrap(napi_env env, uint8_t *buffer, size_t size, napi_value *result) {
  napi_value array_buffer;
  int64_t adjusted;
  napi_status status =
      napi_create_external_arraybuffer(env, buffer, size, finalize_pooled, (void *)(uintptr_t)size, &array_buffer);
  if (status != napi_ok) return status;
  napi_adjust_external_memory(env, (int64_t)size, &adjusted);
  return napi_create_typedarray(env, napi_uint8_array, size, array_buffer, 0, result);
}
