#ifndef NATIVE_VP8_STREAM_DECODER_H
#define NATIVE_VP8_STREAM_DECODER_H
#include <node_api.h>

napi_value stream_decoder_create(napi_env env, napi_callback_info info);
napi_value stream_decoder_decode(napi_env env, napi_callback_info info);

#endif
