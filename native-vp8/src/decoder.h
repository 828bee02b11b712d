#ifndef NATIVE_VP8_DECODER_H
#define NATIVE_VP8_DECODER_H
#include <node_api.h>

napi_value decoder_create(napi_env env, napi_callback_info info);
napi_value decoder_decode(napi_env env, napi_callback_info info);
napi_value decoder_close(napi_env env, napi_callback_info info);
/* 1 when the linked libvpx's VP8 decoder can conceal errors. */
int decoder_has_concealment(void);

#endif
