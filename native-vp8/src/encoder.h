#ifndef NATIVE_VP8_ENCODER_H
#define NATIVE_VP8_ENCODER_H
#include <node_api.h>

napi_value encoder_create(napi_env env, napi_callback_info info);
napi_value encoder_encode(napi_env env, napi_callback_info info);
napi_value encoder_close(napi_env env, napi_callback_info info);

#endif
