/* A libvpx VP8 encoder instance driven functionally: before each encoding
 * the caller's reference pictures are injected (only where the encoder does
 * not already hold them), afterwards the new last reference is extracted.
 *
 * libvpx's encoder lets reference slots share one buffer (after a key frame
 * all three do); VP8_SET_REFERENCE then writes every slot of that buffer. We
 * track which slots share a buffer and, when the wanted state gives them
 * different contents, first separate them with a throw-away encoding that
 * refreshes only one of them.
 *
 * libvpx 1.12's rate control stops honouring min = max quantizer once it has
 * encoded more than 150 inter frames (it then derives a lower bound from the
 * average quantizer so far, which can lift the asked one by a level). So an
 * instance is replaced by a fresh one before it gets there; the replacement
 * costs one throw-away key frame and up to two separating encodings, and
 * happens at points fixed by the sequence of calls, so runs still repeat. */
#include "encoder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buffer_pool.h"
#include "content_hash.h"
#include "frame_header.h"
#include "napi_util.h"
#include "vp8_common.h"

static const napi_type_tag ENCODER_TAG = {0x6e61746976657670ULL, 0x38656e636f646572ULL};

typedef struct {
  vpx_codec_ctx_t ctx;
  vpx_codec_enc_cfg_t cfg;
  Vp8Geometry geometry;
  int cpu_used;
  int error_resilient, cyclic_refresh;
  int open;
  int started;              /* has encoded a key frame */
  int busy, closing;
  vpx_codec_pts_t pts;
  int group[VP8_SLOTS];     /* slots with equal group share one libvpx buffer */
  int next_group;
  int known[VP8_SLOTS];     /* slot content hash known */
  uint64_t hash[VP8_SLOTS];
  int inter_frames;         /* encoded by this libvpx instance */
} Encoder;

#define RENEW_AFTER_INTER_FRAMES 140

typedef struct {
  napi_async_work work;
  napi_deferred deferred;
  Encoder *encoder;
  napi_ref handle_ref, picture_ref, refs_ref;
  const uint8_t *picture;
  const uint8_t *refs[VP8_SLOTS];
  uint64_t ref_hash[VP8_SLOTS];
  int key;
  int level;
  int plain; /* ordinary stateful encoding: no injection or extraction, libvpx's own reference choices */
  /* results */
  uint8_t *out_reference;
  uint64_t out_hash;
  uint8_t *frame;
  size_t frame_len;
  int q_index;
  int throwaway_encodes;
  double ms_inject, ms_encode, ms_extract, ms_throwaway;
  int failed;
  char error[384];
} EncodeJob;

static void encoder_destroy(Encoder *e) {
  if (e->open) vpx_codec_destroy(&e->ctx);
  e->open = 0;
}

static void finalize_encoder(napi_env env, void *data, void *hint) {
  Encoder *e = (Encoder *)data;
  encoder_destroy(e);
  free(e);
}

/* encoderCreate(width, height, cpuUsed, errorResilient = true, cyclicRefresh = false) -> handle.
 * The last two exist for benchmarks of the settings; the functional codec uses the defaults. */
napi_value encoder_create(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  int64_t width, height, cpu_used;
  int error_resilient = 1, cyclic_refresh = 0;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 3)
    return throw_type_error(env, "encoderCreate(width, height, cpuUsed, errorResilient?, cyclicRefresh?) needs 3 arguments");
  if (argc > 3 && !is_null_or_undefined(env, argv[3]) && arg_bool(env, argv[3], "errorResilient", &error_resilient))
    return NULL;
  if (argc > 4 && !is_null_or_undefined(env, argv[4]) && arg_bool(env, argv[4], "cyclicRefresh", &cyclic_refresh))
    return NULL;
  if (arg_int(env, argv[0], "width", 1, VP8_MAX_DIMENSION, &width)) return NULL;
  if (arg_int(env, argv[1], "height", 1, VP8_MAX_DIMENSION, &height)) return NULL;
  if (arg_int(env, argv[2], "cpuUsed", -16, 16, &cpu_used)) return NULL;
  Encoder *e = (Encoder *)calloc(1, sizeof(Encoder));
  if (e == NULL) return throw_error(env, "out of memory creating an encoder");
  vp8_geometry((int)width, (int)height, &e->geometry);
  e->cpu_used = (int)cpu_used;
  e->error_resilient = error_resilient;
  e->cyclic_refresh = cyclic_refresh;
  char err[256];
  if (functional_encoder_open(&e->ctx, &e->cfg, &e->geometry, e->cpu_used, error_resilient, cyclic_refresh, err, sizeof(err))) {
    free(e);
    return throw_error(env, "%s", err);
  }
  e->open = 1;
  napi_value handle;
  napi_create_external(env, e, finalize_encoder, NULL, &handle);
  napi_type_tag_object(env, handle, &ENCODER_TAG);
  return handle;
}

/* Throw-away encodings only set up reference buffers: the coarsest quantizer is the cheapest. */
#define THROWAWAY_LEVEL 63

static int run(Encoder *e, EncodeJob *job, const vpx_image_t *img, vpx_enc_frame_flags_t flags, int keep) {
  uint8_t *frame;
  size_t len;
  if (functional_encoder_run(&e->ctx, &e->cfg, keep ? job->level : THROWAWAY_LEVEL, img, e->pts++, flags, &frame,
                             &len, job->error, sizeof(job->error)))
    return -1;
  if (!(flags & VPX_EFLAG_FORCE_KF)) e->inter_frames++;
  if (keep) {
    job->frame = frame;
    job->frame_len = len;
  } else {
    free(frame);
  }
  return 0;
}

/* Flags for an inter frame that refreshes exactly the slots in `mask`. */
static vpx_enc_frame_flags_t refresh_only(int mask) {
  vpx_enc_frame_flags_t flags = 0;
  if (!(mask & 1)) flags |= VP8_EFLAG_NO_UPD_LAST;
  if (!(mask & 2)) flags |= VP8_EFLAG_NO_UPD_GF;
  if (!(mask & 4)) flags |= VP8_EFLAG_NO_UPD_ARF;
  return flags;
}

static void after_key_frame(Encoder *e) {
  int g = e->next_group++;
  for (int s = 0; s < VP8_SLOTS; s++) {
    e->group[s] = g;
    e->known[s] = 0;
  }
  e->started = 1;
}

/* Makes the encoder's slots hold the job's references. */
static int inject(Encoder *e, EncodeJob *job, const vpx_image_t *picture) {
  double t0 = monotonic_ms();
  if (!e->started) {
    if (run(e, job, picture, VPX_EFLAG_FORCE_KF, 0)) return -1;
    after_key_frame(e);
    job->throwaway_encodes++;
  }
  /* Separate slots that share a buffer but must hold different pictures. */
  for (int round = 0; round < VP8_SLOTS; round++) {
    int split = -1;
    for (int i = 0; i < VP8_SLOTS && split < 0; i++)
      for (int j = i + 1; j < VP8_SLOTS; j++)
        if (e->group[i] == e->group[j] && job->ref_hash[i] != job->ref_hash[j]) {
          split = i;
          break;
        }
    if (split < 0) break;
    if (run(e, job, picture, refresh_only(1 << split), 0)) return -1;
    e->group[split] = e->next_group++;
    e->known[split] = 0;
    job->throwaway_encodes++;
  }
  job->ms_throwaway = monotonic_ms() - t0;
  double t1 = monotonic_ms();
  for (int s = 0; s < VP8_SLOTS; s++) {
    if (e->known[s] && e->hash[s] == job->ref_hash[s]) continue;
    vpx_ref_frame_t ref;
    ref.frame_type = slot_flag(s);
    wrap_reference(&ref.img, job->refs[s], &e->geometry);
    if (vpx_codec_control(&e->ctx, VP8_SET_REFERENCE, &ref) != VPX_CODEC_OK) {
      snprintf(job->error, sizeof(job->error), "libvpx encoder: VP8_SET_REFERENCE(slot %d) failed: %s", s,
               vpx_codec_error(&e->ctx));
      return -1;
    }
    for (int t = 0; t < VP8_SLOTS; t++)
      if (e->group[t] == e->group[s]) {
        e->known[t] = 1;
        e->hash[t] = job->ref_hash[s];
      }
  }
  job->ms_inject = monotonic_ms() - t1;
  return 0;
}

static void encode_execute(napi_env env, void *data) {
  EncodeJob *job = (EncodeJob *)data;
  Encoder *e = job->encoder;
  vpx_image_t picture;
  wrap_picture(&picture, job->picture, &e->geometry);
  job->failed = 1;
  if (job->plain) {
    double t = monotonic_ms();
    if (run(e, job, &picture, job->key ? VPX_EFLAG_FORCE_KF : 0, 1)) return;
    job->ms_encode = monotonic_ms() - t;
    e->started = 0; /* references no longer tracked */
    vpx_codec_control(&e->ctx, VP8E_GET_LAST_QUANTIZER, &job->q_index);
    job->failed = 0;
    return;
  }
  if (e->inter_frames >= RENEW_AFTER_INTER_FRAMES) {
    char err[256];
    encoder_destroy(e);
    if (functional_encoder_open(&e->ctx, &e->cfg, &e->geometry, e->cpu_used, e->error_resilient, e->cyclic_refresh, err,
                                sizeof(err))) {
      snprintf(job->error, sizeof(job->error), "renewing the encoder: %s", err);
      return;
    }
    e->open = 1;
    e->started = 0;
    e->inter_frames = 0;
  }
  if (!job->key && inject(e, job, &picture)) {
    e->started = 0; /* state unknown after a failure: start over next time */
    return;
  }
  double t0 = monotonic_ms();
  vpx_enc_frame_flags_t flags = job->key ? VPX_EFLAG_FORCE_KF : refresh_only(1);
  if (run(e, job, &picture, flags, 1)) {
    e->started = 0;
    return;
  }
  job->ms_encode = monotonic_ms() - t0;

  Vp8FrameHeader header;
  char err[256];
  if (vp8_parse_frame_header(job->frame, job->frame_len, &header, err, sizeof(err))) {
    snprintf(job->error, sizeof(job->error), "libvpx produced an unreadable frame: %s", err);
    e->started = 0;
    return;
  }
  if (header.key_frame != job->key || (!job->key && header.updated_refs != 1) || header.refresh_entropy_probs ||
      header.segmentation_enabled) {
    snprintf(job->error, sizeof(job->error),
             "libvpx did not follow the functional settings: key=%d (wanted %d), refs updated mask %d, "
             "refresh_entropy_probs=%d, segmentation=%d",
             header.key_frame, job->key, header.updated_refs, header.refresh_entropy_probs,
             header.segmentation_enabled);
    e->started = 0;
    return;
  }
  job->q_index = header.y_ac_qi;
  if (job->key) after_key_frame(e);
  else e->group[0] = e->next_group++;

  double t1 = monotonic_ms();
  vpx_ref_frame_t ref;
  ref.frame_type = VP8_LAST_FRAME;
  wrap_reference(&ref.img, job->out_reference, &e->geometry);
  if (vpx_codec_control(&e->ctx, VP8_COPY_REFERENCE, &ref) != VPX_CODEC_OK) {
    snprintf(job->error, sizeof(job->error), "libvpx encoder: VP8_COPY_REFERENCE failed: %s", vpx_codec_error(&e->ctx));
    e->started = 0;
    return;
  }
  job->out_hash = content_hash(job->out_reference, e->geometry.reference_bytes, 0);
  for (int s = 0; s < VP8_SLOTS; s++)
    if (e->group[s] == e->group[0]) {
      e->known[s] = 1;
      e->hash[s] = job->out_hash;
    }
  job->ms_extract = monotonic_ms() - t1;
  job->failed = 0;
}

static void encode_complete(napi_env env, napi_status status, void *data) {
  EncodeJob *job = (EncodeJob *)data;
  Encoder *e = job->encoder;
  e->busy = 0;
  if (status != napi_ok && !job->failed) {
    job->failed = 1;
    snprintf(job->error, sizeof(job->error), "encode job was cancelled");
  }
  if (job->failed) {
    pool_give(job->out_reference, e->geometry.reference_bytes);
    free(job->frame);
    napi_value message, error;
    napi_create_string_utf8(env, job->error, NAPI_AUTO_LENGTH, &message);
    napi_create_error(env, NULL, message, &error);
    napi_reject_deferred(env, job->deferred, error);
  } else {
    napi_value result, frame, reference;
    napi_create_object(env, &result);
    void *frame_data;
    napi_create_buffer_copy(env, job->frame_len, job->frame, &frame_data, &frame);
    free(job->frame);
    if (job->plain) {
      pool_give(job->out_reference, e->geometry.reference_bytes);
      napi_get_null(env, &reference);
    } else {
      pool_wrap(env, job->out_reference, e->geometry.reference_bytes, &reference);
    }
    set_named(env, result, "frame", frame);
    set_named(env, result, "reference", reference);
    set_named(env, result, "hash", make_bigint(env, job->out_hash));
    set_named(env, result, "quantizer", make_int(env, job->q_index));
    set_named(env, result, "keyFrame", make_bool(env, job->key));
    set_named(env, result, "throwawayEncodes", make_int(env, job->throwaway_encodes));
    set_named(env, result, "msInject", make_double(env, job->ms_inject));
    set_named(env, result, "msThrowaway", make_double(env, job->ms_throwaway));
    set_named(env, result, "msEncode", make_double(env, job->ms_encode));
    set_named(env, result, "msExtract", make_double(env, job->ms_extract));
    napi_resolve_deferred(env, job->deferred, result);
  }
  napi_delete_reference(env, job->picture_ref);
  if (job->refs_ref) napi_delete_reference(env, job->refs_ref);
  napi_delete_reference(env, job->handle_ref);
  napi_delete_async_work(env, job->work);
  if (e->closing) encoder_destroy(e);
  free(job);
}

/* encoderEncode(handle, picture, refs: [Uint8Array x3] | null, hashes: [bigint x3] | null, level 0..63, plain?)
 * -> Promise<{ frame, reference, hash, quantizer, keyFrame, ... }>. No refs means a key frame.
 * plain = true encodes the ordinary stateful way (benchmark baseline); refs then only select a key frame
 * (null) or not. */
napi_value encoder_encode(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 5) return throw_type_error(env, "encoderEncode(handle, picture, refs, hashes, level) needs 5 arguments");
  int plain = 0;
  if (argc > 5 && !is_null_or_undefined(env, argv[5]) && arg_bool(env, argv[5], "plain", &plain)) return NULL;
  Encoder *e;
  if (arg_external(env, argv[0], "encoder", &ENCODER_TAG, (void **)&e)) return NULL;
  if (!e->open || e->closing) return throw_error(env, "encoder is closed");
  if (e->busy) return throw_error(env, "encoder is busy: one encoding at a time per encoder instance");
  EncodeJob job;
  memset(&job, 0, sizeof(job));
  uint8_t *picture;
  size_t length;
  if (arg_bytes(env, argv[1], "picture.data", (int64_t)e->geometry.picture_bytes, &picture, &length)) return NULL;
  job.picture = picture;
  job.key = is_null_or_undefined(env, argv[2]);
  job.plain = plain;
  if (!job.key && !plain) {
    bool is_array;
    uint32_t n = 0, m = 0;
    napi_is_array(env, argv[2], &is_array);
    if (is_array) napi_get_array_length(env, argv[2], &n);
    if (!is_array || n != VP8_SLOTS) return throw_type_error(env, "refs must be an array of 3 Uint8Arrays or null");
    napi_is_array(env, argv[3], &is_array);
    if (is_array) napi_get_array_length(env, argv[3], &m);
    if (!is_array || m != VP8_SLOTS) return throw_type_error(env, "hashes must be an array of 3 bigints");
    for (uint32_t s = 0; s < VP8_SLOTS; s++) {
      napi_value item;
      static const char *ref_names[3] = {"refs[0] (last)", "refs[1] (golden)", "refs[2] (alt-ref)"};
      static const char *hash_names[3] = {"hashes[0]", "hashes[1]", "hashes[2]"};
      napi_get_element(env, argv[2], s, &item);
      if (arg_bytes(env, item, ref_names[s], (int64_t)e->geometry.reference_bytes, &picture, &length)) return NULL;
      job.refs[s] = picture;
      napi_get_element(env, argv[3], s, &item);
      if (arg_bigint_u64(env, item, hash_names[s], &job.ref_hash[s])) return NULL;
    }
  }
  int64_t level;
  if (arg_int(env, argv[4], "level", 0, 63, &level)) return NULL;
  job.level = (int)level;

  EncodeJob *heap = (EncodeJob *)malloc(sizeof(EncodeJob));
  uint8_t *out = pool_take(e->geometry.reference_bytes);
  if (heap == NULL || out == NULL) {
    free(heap);
    pool_give(out, e->geometry.reference_bytes);
    return throw_error(env, "out of memory queueing an encoding");
  }
  *heap = job;
  heap->encoder = e;
  heap->out_reference = out;
  napi_create_reference(env, argv[0], 1, &heap->handle_ref);
  napi_create_reference(env, argv[1], 1, &heap->picture_ref);
  if (!job.key && !plain) napi_create_reference(env, argv[2], 1, &heap->refs_ref);
  napi_value promise, name;
  napi_create_promise(env, &heap->deferred, &promise);
  napi_create_string_utf8(env, "vp8-encode", NAPI_AUTO_LENGTH, &name);
  napi_create_async_work(env, NULL, name, encode_execute, encode_complete, heap, &heap->work);
  e->busy = 1;
  napi_queue_async_work(env, heap->work);
  return promise;
}

/* encoderClose(handle): releases libvpx now (or after the running job). */
napi_value encoder_close(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  Encoder *e;
  if (argc < 1 || arg_external(env, argv[0], "encoder", &ENCODER_TAG, (void **)&e)) return NULL;
  if (e->busy) e->closing = 1;
  else encoder_destroy(e);
  return NULL;
}
