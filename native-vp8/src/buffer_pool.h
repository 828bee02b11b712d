/* A pool of large byte buffers handed to JavaScript as external
 * ArrayBuffers. Fresh multi-megabyte allocations page-fault on first touch
 * (milliseconds per reference picture); recycled ones do not. All pool calls
 * are made on the JavaScript thread only. */
#ifndef NATIVE_VP8_BUFFER_POOL_H
#define NATIVE_VP8_BUFFER_POOL_H
#include <node_api.h>
#include <stddef.h>
#include <stdint.h>

uint8_t *pool_take(size_t size);
void pool_give(uint8_t *buffer, size_t size);
/* Wraps a pool buffer as a Uint8Array whose garbage collection returns it to the pool. */
napi_status pool_wrap(napi_env env, uint8_t *buffer, size_t size, napi_value *result);
/* Bytes currently idle in the pool (for diagnostics). */
size_t pool_idle_bytes(void);

#endif
