/* An ordinary, stateful libvpx VP8 decoder for reading VP8 files frame after
 * frame (any encoder's output, e.g. the shared test clip). */
#include "stream_decoder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "napi_util.h"
#include "vp8_common.h"

static const napi_type_tag STREAM_TAG = {0x6e61746976657670ULL, 0x3873747265616d64ULL};

typedef struct {
  vpx_codec_ctx_t ctx;
  int open, busy, broken;
} StreamDecoder;

typedef struct {
  napi_async_work work;
  napi_deferred deferred;
  StreamDecoder *decoder;
  napi_ref handle_ref, frame_ref;
  const uint8_t *frame;
  size_t frame_len;
  uint8_t *picture;
  int width, height;
  int failed;
  char error[320];
} StreamJob;

static void finalize_stream(napi_env env, void *data, void *hint) {
  StreamDecoder *d = (StreamDecoder *)data;
  if (d->open) vpx_codec_destroy(&d->ctx);
  free(d);
}

napi_value stream_decoder_create(napi_env env, napi_callback_info info) {
  StreamDecoder *d = (StreamDecoder *)calloc(1, sizeof(StreamDecoder));
  if (d == NULL) return throw_error(env, "out of memory creating a decoder");
  vpx_codec_dec_cfg_t cfg = {1, 0, 0};
  if (vpx_codec_dec_init(&d->ctx, vpx_codec_vp8_dx(), &cfg, 0) != VPX_CODEC_OK) {
    free(d);
    return throw_error(env, "libvpx: cannot open a VP8 decoder");
  }
  d->open = 1;
  napi_value handle;
  napi_create_external(env, d, finalize_stream, NULL, &handle);
  napi_type_tag_object(env, handle, &STREAM_TAG);
  return handle;
}

static void stream_execute(napi_env env, void *data) {
  StreamJob *job = (StreamJob *)data;
  StreamDecoder *d = job->decoder;
  job->failed = 1;
  if (vpx_codec_decode(&d->ctx, job->frame, (unsigned)job->frame_len, NULL, 0) != VPX_CODEC_OK) {
    const char *detail = vpx_codec_error_detail(&d->ctx);
    snprintf(job->error, sizeof(job->error), "frame does not decode: %s%s%s", vpx_codec_error(&d->ctx),
             detail ? ": " : "", detail ? detail : "");
    return;
  }
  vpx_codec_iter_t iter = NULL;
  vpx_image_t *img = vpx_codec_get_frame(&d->ctx, &iter);
  if (img == NULL || img->fmt != VPX_IMG_FMT_I420) {
    snprintf(job->error, sizeof(job->error), "frame decoded to no I420 picture");
    return;
  }
  Vp8Geometry g;
  vp8_geometry((int)img->d_w, (int)img->d_h, &g);
  job->picture = (uint8_t *)malloc(g.picture_bytes);
  if (job->picture == NULL) {
    snprintf(job->error, sizeof(job->error), "out of memory for a decoded picture");
    return;
  }
  int cw = (g.width + 1) / 2, ch = (g.height + 1) / 2;
  uint8_t *out = job->picture;
  for (int y = 0; y < g.height; y++) memcpy(out + (size_t)y * g.width, img->planes[0] + (size_t)y * img->stride[0], g.width);
  out += (size_t)g.width * g.height;
  for (int p = 1; p <= 2; p++) {
    for (int y = 0; y < ch; y++) memcpy(out + (size_t)y * cw, img->planes[p] + (size_t)y * img->stride[p], cw);
    out += (size_t)cw * ch;
  }
  job->width = g.width;
  job->height = g.height;
  job->failed = 0;
}

static void stream_complete(napi_env env, napi_status status, void *data) {
  StreamJob *job = (StreamJob *)data;
  job->decoder->busy = 0;
  if (job->failed || status != napi_ok) {
    napi_value message, error;
    napi_create_string_utf8(env, job->failed ? job->error : "decode job was cancelled", NAPI_AUTO_LENGTH, &message);
    napi_create_error(env, NULL, message, &error);
    napi_reject_deferred(env, job->deferred, error);
    free(job->picture);
  } else {
    napi_value result, picture;
    void *copy;
    Vp8Geometry g;
    vp8_geometry(job->width, job->height, &g);
    napi_create_buffer_copy(env, g.picture_bytes, job->picture, &copy, &picture);
    free(job->picture);
    napi_create_object(env, &result);
    set_named(env, result, "width", make_int(env, job->width));
    set_named(env, result, "height", make_int(env, job->height));
    set_named(env, result, "data", picture);
    napi_resolve_deferred(env, job->deferred, result);
  }
  napi_delete_reference(env, job->frame_ref);
  napi_delete_reference(env, job->handle_ref);
  napi_delete_async_work(env, job->work);
  free(job);
}

/* streamDecode(handle, frame) -> Promise<{ width, height, data }> */
napi_value stream_decoder_decode(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  StreamDecoder *d;
  uint8_t *frame;
  size_t length;
  if (argc < 2) return throw_type_error(env, "streamDecode(handle, frame) needs 2 arguments");
  if (arg_external(env, argv[0], "decoder", &STREAM_TAG, (void **)&d)) return NULL;
  if (arg_bytes(env, argv[1], "frame", -1, &frame, &length)) return NULL;
  if (length == 0 || length > 0x7fffffff) return throw_range_error(env, "frame has %zu bytes", length);
  if (d->busy) return throw_error(env, "decoder is busy: one decoding at a time");
  StreamJob *job = (StreamJob *)calloc(1, sizeof(StreamJob));
  if (job == NULL) return throw_error(env, "out of memory queueing a decoding");
  job->decoder = d;
  job->frame = frame;
  job->frame_len = length;
  napi_create_reference(env, argv[0], 1, &job->handle_ref);
  napi_create_reference(env, argv[1], 1, &job->frame_ref);
  napi_value promise, name;
  napi_create_promise(env, &job->deferred, &promise);
  napi_create_string_utf8(env, "vp8-stream-decode", NAPI_AUTO_LENGTH, &name);
  napi_create_async_work(env, NULL, name, stream_execute, stream_complete, job, &job->work);
  d->busy = 1;
  napi_queue_async_work(env, job->work);
  return promise;
}
