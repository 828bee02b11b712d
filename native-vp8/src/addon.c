/* Node-API entry points of the native VP8 codec: encoder and decoder
 * instances (encoder.c, decoder.c), SSIM, content hashing and frame-header
 * parsing. The TypeScript bridge in src/codec-bridge/ is the public API. */
#include <node_api.h>
#include <stdlib.h>
#include <string.h>

#include "buffer_pool.h"
#include "content_hash.h"
#include "decoder.h"
#include "encoder.h"
#include "frame_header.h"
#include "napi_util.h"
#include "ssim.h"
#include "stream_decoder.h"
#include "vp8_common.h"

/* hash(bytes, seed?) -> bigint */
static napi_value hash_bytes(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  uint8_t *data;
  size_t length;
  uint64_t seed = 0;
  if (argc < 1) return throw_type_error(env, "hash(bytes) needs 1 argument");
  if (arg_bytes(env, argv[0], "bytes", -1, &data, &length)) return NULL;
  if (argc > 1 && !is_null_or_undefined(env, argv[1]) && arg_bigint_u64(env, argv[1], "seed", &seed)) return NULL;
  return make_bigint(env, content_hash(data, length, seed));
}

typedef struct {
  const uint8_t *a, *b;
  int width, height;
  double result[3];
} SsimArgs;

static void ssim_compute(SsimArgs *s) {
  int w = s->width, h = s->height, cw = (w + 1) / 2, ch = (h + 1) / 2;
  size_t luma = (size_t)w * h, chroma = (size_t)cw * ch;
  s->result[0] = ssim_plane(s->a, w, s->b, w, w, h);
  s->result[1] = ssim_plane(s->a + luma, cw, s->b + luma, cw, cw, ch);
  s->result[2] = ssim_plane(s->a + luma + chroma, cw, s->b + luma + chroma, cw, cw, ch);
}

static int ssim_args(napi_env env, napi_callback_info info, SsimArgs *s, napi_value *argv) {
  size_t argc = 4;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 4) {
    throw_type_error(env, "ssim(a, b, width, height) needs 4 arguments");
    return -1;
  }
  int64_t w, h;
  if (arg_int(env, argv[2], "width", 1, 65535, &w) || arg_int(env, argv[3], "height", 1, 65535, &h)) return -1;
  Vp8Geometry g;
  vp8_geometry((int)w, (int)h, &g);
  uint8_t *a, *b;
  size_t la, lb;
  if (arg_bytes(env, argv[0], "a.data", (int64_t)g.picture_bytes, &a, &la) ||
      arg_bytes(env, argv[1], "b.data", (int64_t)g.picture_bytes, &b, &lb))
    return -1;
  s->a = a;
  s->b = b;
  s->width = (int)w;
  s->height = (int)h;
  return 0;
}

static napi_value ssim_result(napi_env env, const SsimArgs *s) {
  napi_value array;
  napi_create_array_with_length(env, 3, &array);
  for (uint32_t i = 0; i < 3; i++) napi_set_element(env, array, i, make_double(env, s->result[i]));
  return array;
}

/* ssim(a, b, width, height) -> [y, u, v] */
static napi_value ssim_sync(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  SsimArgs s;
  if (ssim_args(env, info, &s, argv)) return NULL;
  ssim_compute(&s);
  return ssim_result(env, &s);
}

typedef struct {
  SsimArgs args;
  napi_async_work work;
  napi_deferred deferred;
  napi_ref a_ref, b_ref;
} SsimJob;

static void ssim_execute(napi_env env, void *data) { ssim_compute(&((SsimJob *)data)->args); }

static void ssim_complete(napi_env env, napi_status status, void *data) {
  SsimJob *job = (SsimJob *)data;
  if (status == napi_ok) {
    napi_resolve_deferred(env, job->deferred, ssim_result(env, &job->args));
  } else {
    napi_value message, error;
    napi_create_string_utf8(env, "ssim job was cancelled", NAPI_AUTO_LENGTH, &message);
    napi_create_error(env, NULL, message, &error);
    napi_reject_deferred(env, job->deferred, error);
  }
  napi_delete_reference(env, job->a_ref);
  napi_delete_reference(env, job->b_ref);
  napi_delete_async_work(env, job->work);
  free(job);
}

/* ssimAsync(a, b, width, height) -> Promise<[y, u, v]> (computed on the thread pool) */
static napi_value ssim_async(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  SsimArgs s;
  if (ssim_args(env, info, &s, argv)) return NULL;
  SsimJob *job = (SsimJob *)calloc(1, sizeof(SsimJob));
  if (job == NULL) return throw_error(env, "out of memory queueing an SSIM computation");
  job->args = s;
  napi_create_reference(env, argv[0], 1, &job->a_ref);
  napi_create_reference(env, argv[1], 1, &job->b_ref);
  napi_value promise, name;
  napi_create_promise(env, &job->deferred, &promise);
  napi_create_string_utf8(env, "vp8-ssim", NAPI_AUTO_LENGTH, &name);
  napi_create_async_work(env, NULL, name, ssim_execute, ssim_complete, job, &job->work);
  napi_queue_async_work(env, job->work);
  return promise;
}

/* parseFrameHeader(frame) -> { keyFrame, width, height, showFrame, quantizer, updatedRefs, ... } */
static napi_value parse_frame_header(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  uint8_t *data;
  size_t length;
  if (argc < 1) return throw_type_error(env, "parseFrameHeader(frame) needs 1 argument");
  if (arg_bytes(env, argv[0], "frame", -1, &data, &length)) return NULL;
  Vp8FrameHeader h;
  char err[256];
  if (vp8_parse_frame_header(data, length, &h, err, sizeof(err))) return throw_error(env, "%s", err);
  napi_value r;
  napi_create_object(env, &r);
  set_named(env, r, "keyFrame", make_bool(env, h.key_frame));
  set_named(env, r, "version", make_int(env, h.version));
  set_named(env, r, "showFrame", make_bool(env, h.show_frame));
  set_named(env, r, "firstPartitionSize", make_int(env, h.first_partition_size));
  set_named(env, r, "width", make_int(env, h.width));
  set_named(env, r, "height", make_int(env, h.height));
  set_named(env, r, "quantizer", make_int(env, h.y_ac_qi));
  set_named(env, r, "segmentationEnabled", make_bool(env, h.segmentation_enabled));
  set_named(env, r, "loopFilterLevel", make_int(env, h.loop_filter_level));
  set_named(env, r, "refreshEntropyProbs", make_bool(env, h.refresh_entropy_probs));
  set_named(env, r, "refreshGolden", make_bool(env, h.refresh_golden));
  set_named(env, r, "refreshAltRef", make_bool(env, h.refresh_alt));
  set_named(env, r, "copyToGolden", make_int(env, h.copy_to_golden));
  set_named(env, r, "copyToAltRef", make_int(env, h.copy_to_alt));
  set_named(env, r, "refreshLast", make_bool(env, h.refresh_last));
  set_named(env, r, "updatedRefs", make_int(env, h.updated_refs));
  return r;
}

static napi_value level_table(napi_env env, napi_callback_info info) {
  napi_value array;
  napi_create_array_with_length(env, 64, &array);
  for (uint32_t i = 0; i < 64; i++) napi_set_element(env, array, i, make_int(env, vp8_level_to_index[i]));
  return array;
}

static napi_value idle_pool_bytes(napi_env env, napi_callback_info info) {
  return make_double(env, (double)pool_idle_bytes());
}

static napi_value libvpx_version(napi_env env, napi_callback_info info) {
  return make_string(env, vpx_codec_version_str());
}

static napi_value error_concealment(napi_env env, napi_callback_info info) {
  return make_bool(env, decoder_has_concealment());
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"encoderCreate", NULL, encoder_create, NULL, NULL, NULL, napi_default, NULL},
      {"encoderEncode", NULL, encoder_encode, NULL, NULL, NULL, napi_default, NULL},
      {"encoderClose", NULL, encoder_close, NULL, NULL, NULL, napi_default, NULL},
      {"decoderCreate", NULL, decoder_create, NULL, NULL, NULL, napi_default, NULL},
      {"decoderDecode", NULL, decoder_decode, NULL, NULL, NULL, napi_default, NULL},
      {"decoderClose", NULL, decoder_close, NULL, NULL, NULL, napi_default, NULL},
      {"streamDecoderCreate", NULL, stream_decoder_create, NULL, NULL, NULL, napi_default, NULL},
      {"streamDecode", NULL, stream_decoder_decode, NULL, NULL, NULL, napi_default, NULL},
      {"hash", NULL, hash_bytes, NULL, NULL, NULL, napi_default, NULL},
      {"ssim", NULL, ssim_sync, NULL, NULL, NULL, napi_default, NULL},
      {"ssimAsync", NULL, ssim_async, NULL, NULL, NULL, napi_default, NULL},
      {"parseFrameHeader", NULL, parse_frame_header, NULL, NULL, NULL, napi_default, NULL},
      {"levelTable", NULL, level_table, NULL, NULL, NULL, napi_default, NULL},
      {"poolIdleBytes", NULL, idle_pool_bytes, NULL, NULL, NULL, napi_default, NULL},
      {"libvpxVersion", NULL, libvpx_version, NULL, NULL, NULL, napi_default, NULL},
      {"errorConcealment", NULL, error_concealment, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof(props) / sizeof(props[0]), props);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
