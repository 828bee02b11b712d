/* A libvpx VP8 decoder instance driven functionally: the caller's reference
 * pictures are injected before each inter frame, the references the frame
 * updates are extracted afterwards.
 *
 * libvpx's decoder accepts injected references only after it has decoded a
 * key frame of the right size, so each instance is first "primed" with a
 * flat key frame made by our own encoder. After any failed or suspicious
 * decode the instance is thrown away and a fresh one primed before the next
 * use: corrupt headers can leave state behind that injected references do not
 * overwrite, and the reference controls keep reporting an old error.
 *
 * A frame is rejected when it would change decoder state that the functional
 * state does not carry: persistent entropy probabilities
 * (refresh_entropy_probs), segmentation maps, or loop-filter deltas other than
 * the ones our key frames set. Our encoder never produces such frames.
 *
 * When libvpx was built with error concealment (--enable-error-concealment;
 * Debian's is not), every instance is opened with
 * VPX_CODEC_USE_ERROR_CONCEALMENT, and a decode asked to conceal accepts the
 * received prefix of a frame (its packets up to the first missing one, as
 * alfalfa's receiver passed them): libvpx treats the rest of each partition
 * as missing, estimates the missing macroblocks' motion from those around
 * them and from the modes of the frame this instance decoded before, and
 * marks the frame corrupted; the picture and the references it wrote are
 * returned as usual, with `concealed` set. That estimate reads the previous
 * frame's modes, which the functional state does not carry: a concealed
 * decode is a function of the state, the bytes and the frame this instance
 * decoded last (for the receiver, the frame before it). */
#include "decoder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buffer_pool.h"
#include "content_hash.h"
#include "frame_header.h"
#include "napi_util.h"
#include "vp8_common.h"

static const napi_type_tag DECODER_TAG = {0x6e61746976657670ULL, 0x386465636f646572ULL};

typedef struct {
  vpx_codec_ctx_t ctx;
  Vp8Geometry geometry;
  int cpu_used;
  int open;
  int busy, closing;
  uint8_t *primer;
  size_t primer_len;
  uint8_t *primer_inter; /* with concealment: an inter frame after the primer (libvpx conceals only after one) */
  size_t primer_inter_len;
  int primer_ref_delta[4], primer_mode_delta[4];
  int known[VP8_SLOTS];
  uint64_t hash[VP8_SLOTS];
  int resets;
  int concealment; /* libvpx has error concealment: instances are opened with it */
} Decoder;

typedef struct {
  napi_async_work work;
  napi_deferred deferred;
  Decoder *decoder;
  napi_ref handle_ref, frame_ref, refs_ref;
  const uint8_t *frame;
  size_t frame_len;
  int has_refs;
  int conceal; /* the frame may be cut short: decode what there is with error concealment */
  int concealed; /* result: libvpx marked the frame corrupted and concealed it */
  const uint8_t *refs[VP8_SLOTS];
  uint64_t ref_hash[VP8_SLOTS];
  /* results */
  uint8_t *picture;
  uint8_t *out_refs[VP8_SLOTS]; /* taken from the pool; used where updated */
  uint64_t out_hash[VP8_SLOTS];
  int updated; /* mask of slots with new contents */
  int key, q_index;
  double ms_reset, ms_inject, ms_decode, ms_extract;
  int failed;
  char error[384];
} DecodeJob;

static void decoder_shutdown(Decoder *d) {
  if (d->open) vpx_codec_destroy(&d->ctx);
  d->open = 0;
}

static void finalize_decoder(napi_env env, void *data, void *hint) {
  Decoder *d = (Decoder *)data;
  decoder_shutdown(d);
  free(d->primer);
  free(d->primer_inter);
  free(d);
}

/* Loop-filter deltas after a frame: key frames start from zero, inter frames
 * from the deltas our key frames set. */
static void resulting_deltas(const Vp8FrameHeader *h, const int *base_ref, const int *base_mode, int *ref, int *mode) {
  for (int i = 0; i < 4; i++) {
    ref[i] = h->key_frame ? 0 : base_ref[i];
    mode[i] = h->key_frame ? 0 : base_mode[i];
    if (h->lf_delta_update && h->ref_lf_delta_set[i]) ref[i] = h->ref_lf_delta[i];
    if (h->lf_delta_update && h->mode_lf_delta_set[i]) mode[i] = h->mode_lf_delta[i];
  }
}

static int make_primer(Decoder *d, char *err, size_t err_size) {
  vpx_codec_ctx_t ctx;
  vpx_codec_enc_cfg_t cfg;
  if (functional_encoder_open(&ctx, &cfg, &d->geometry, d->cpu_used, 1, 0, err, err_size)) return -1;
  uint8_t *flat = (uint8_t *)malloc(d->geometry.picture_bytes);
  if (flat == NULL) {
    vpx_codec_destroy(&ctx);
    snprintf(err, err_size, "out of memory making a primer key frame");
    return -1;
  }
  memset(flat, 128, d->geometry.picture_bytes);
  vpx_image_t img;
  wrap_picture(&img, flat, &d->geometry);
  int rc = functional_encoder_run(&ctx, &cfg, 63, &img, 0, VPX_EFLAG_FORCE_KF, &d->primer, &d->primer_len, err,
                                  err_size);
  /* libvpx turns its concealment on while it parses an inter frame (decodeframe.c: ec_active), so a cut
   * frame right after the key frame would not be concealed: a flat inter frame follows the primer. */
  if (rc == 0 && d->concealment) {
    rc = functional_encoder_run(&ctx, &cfg, 63, &img, 1, 0, &d->primer_inter, &d->primer_inter_len, err, err_size);
  }
  free(flat);
  vpx_codec_destroy(&ctx);
  if (rc) return -1;
  Vp8FrameHeader h;
  if (vp8_parse_frame_header(d->primer, d->primer_len, &h, err, err_size)) return -1;
  static const int zero[4] = {0, 0, 0, 0};
  resulting_deltas(&h, zero, zero, d->primer_ref_delta, d->primer_mode_delta);
  return 0;
}

/* A fresh libvpx decoder that has decoded the primer key frame. */
static int reset(Decoder *d, char *err, size_t err_size) {
  decoder_shutdown(d);
  for (int s = 0; s < VP8_SLOTS; s++) d->known[s] = 0;
  if (d->primer == NULL && make_primer(d, err, err_size)) return -1;
  vpx_codec_dec_cfg_t cfg = {1, (unsigned)d->geometry.width, (unsigned)d->geometry.height};
  vpx_codec_flags_t flags = d->concealment ? VPX_CODEC_USE_ERROR_CONCEALMENT : 0;
  if (vpx_codec_dec_init(&d->ctx, vpx_codec_vp8_dx(), &cfg, flags) != VPX_CODEC_OK) {
    snprintf(err, err_size, "libvpx: cannot open a VP8 decoder: %s", vpx_codec_error(&d->ctx));
    return -1;
  }
  d->open = 1;
  d->resets++;
  if (vpx_codec_decode(&d->ctx, d->primer, (unsigned)d->primer_len, NULL, 0) != VPX_CODEC_OK) {
    snprintf(err, err_size, "libvpx decoder: the primer key frame does not decode: %s", vpx_codec_error(&d->ctx));
    decoder_shutdown(d);
    return -1;
  }
  vpx_codec_iter_t iter = NULL;
  while (vpx_codec_get_frame(&d->ctx, &iter) != NULL) {
  }
  if (d->primer_inter != NULL) {
    if (vpx_codec_decode(&d->ctx, d->primer_inter, (unsigned)d->primer_inter_len, NULL, 0) != VPX_CODEC_OK) {
      snprintf(err, err_size, "libvpx decoder: the primer inter frame does not decode: %s", vpx_codec_error(&d->ctx));
      decoder_shutdown(d);
      return -1;
    }
    iter = NULL;
    while (vpx_codec_get_frame(&d->ctx, &iter) != NULL) {
    }
  }
  return 0;
}

/* A received prefix whose first partition is cut short, made decodable as alfalfa's decoder read it
 * (uncompressed_chunk.cc: what arrived is the first partition, the rest is missing): the frame tag's first
 * partition size is set to the bytes that arrived after the header, and one zero byte follows as the token
 * partition (it reads as end-of-block: no residual). libvpx then flags the first partition as corrupt where
 * its data ends and estimates the modes of the macroblocks after that point. Returns a malloc'ed copy (NULL
 * when none is needed or on no memory; *needed says which). */
static uint8_t *cut_first_partition(const uint8_t *frame, size_t len, const Vp8FrameHeader *h, size_t *out_len,
                                    int *needed) {
  size_t offset = h->key_frame ? 10 : 3;
  *needed = h->first_partition_size > len - offset;
  if (!*needed) return NULL;
  uint8_t *copy = (uint8_t *)malloc(len + 1);
  if (copy == NULL) return NULL;
  memcpy(copy, frame, len);
  copy[len] = 0;
  uint32_t size = (uint32_t)(len - offset);
  uint32_t tag = ((uint32_t)copy[0] | ((uint32_t)copy[1] << 8) | ((uint32_t)copy[2] << 16)) & 0x1f;
  tag |= size << 5;
  copy[0] = tag & 0xff;
  copy[1] = (tag >> 8) & 0xff;
  copy[2] = (tag >> 16) & 0xff;
  *out_len = len + 1;
  return copy;
}

static int check_functional(const Decoder *d, const DecodeJob *job, const Vp8FrameHeader *h, char *err,
                            size_t err_size) {
  const Vp8Geometry *g = &d->geometry;
  if (h->key_frame && (h->width != g->width || h->height != g->height)) {
    snprintf(err, err_size, "key frame is %dx%d but the state is %dx%d", h->width, h->height, g->width, g->height);
    return -1;
  }
  if (h->key_frame && (h->horizontal_scale || h->vertical_scale)) {
    snprintf(err, err_size, "key frame asks for upscaling (%d, %d), which is not supported", h->horizontal_scale,
             h->vertical_scale);
    return -1;
  }
  if (!h->key_frame && !job->has_refs) {
    snprintf(err, err_size, "inter frame given the initial state: the first frame must be a key frame");
    return -1;
  }
  if (!h->show_frame) {
    snprintf(err, err_size, "frame is not meant to be shown (show_frame=0): not supported");
    return -1;
  }
  if (h->refresh_entropy_probs) {
    snprintf(err, err_size,
             "frame keeps its entropy probabilities for later frames (refresh_entropy_probs=1), state that a "
             "functional VP8 state does not carry (encode with error resilience)");
    return -1;
  }
  if (h->segmentation_enabled) {
    snprintf(err, err_size, "frame uses segmentation, whose map persists across frames: not supported");
    return -1;
  }
  int ref[4], mode[4];
  resulting_deltas(h, d->primer_ref_delta, d->primer_mode_delta, ref, mode);
  for (int i = 0; i < 4; i++)
    if (ref[i] != d->primer_ref_delta[i] || mode[i] != d->primer_mode_delta[i]) {
      snprintf(err, err_size, "frame sets loop-filter deltas that persist across frames and differ from ours");
      return -1;
    }
  return 0;
}

static void decode_execute(napi_env env, void *data) {
  DecodeJob *job = (DecodeJob *)data;
  Decoder *d = job->decoder;
  const Vp8Geometry *g = &d->geometry;
  char err[256];
  job->failed = 1;
  double t0 = monotonic_ms();
  if (!d->open && reset(d, err, sizeof(err))) {
    snprintf(job->error, sizeof(job->error), "%s", err);
    return;
  }
  job->ms_reset = monotonic_ms() - t0;
  Vp8FrameHeader h;
  int parsed = job->conceal ? vp8_parse_partial_frame_header(job->frame, job->frame_len, &h, err, sizeof(err))
                            : vp8_parse_frame_header(job->frame, job->frame_len, &h, err, sizeof(err));
  if (parsed || check_functional(d, job, &h, err, sizeof(err))) {
    snprintf(job->error, sizeof(job->error), "cannot decode: %s", err);
    return;
  }
  job->key = h.key_frame;
  job->q_index = h.y_ac_qi;

  double t1 = monotonic_ms();
  if (!h.key_frame) {
    for (int s = 0; s < VP8_SLOTS; s++) {
      if (d->known[s] && d->hash[s] == job->ref_hash[s]) continue;
      vpx_ref_frame_t ref;
      ref.frame_type = slot_flag(s);
      wrap_reference(&ref.img, job->refs[s], g);
      d->known[s] = 0;
      if (vpx_codec_control(&d->ctx, VP8_SET_REFERENCE, &ref) != VPX_CODEC_OK) {
        snprintf(job->error, sizeof(job->error), "libvpx decoder: VP8_SET_REFERENCE(slot %d) failed: %s", s,
                 vpx_codec_error(&d->ctx));
        decoder_shutdown(d);
        return;
      }
      d->known[s] = 1;
      d->hash[s] = job->ref_hash[s];
    }
  }
  job->ms_inject = monotonic_ms() - t1;

  double t2 = monotonic_ms();
  /* From here on the decoder's contents are in doubt until the frame decodes cleanly. */
  for (int s = 0; s < VP8_SLOTS; s++) d->known[s] = 0;
  const uint8_t *input = job->frame;
  size_t data_len = job->frame_len;
  uint8_t *rewritten = NULL;
  if (job->conceal) {
    int needed = 0;
    rewritten = cut_first_partition(job->frame, job->frame_len, &h, &data_len, &needed);
    if (needed && rewritten == NULL) {
      snprintf(job->error, sizeof(job->error), "out of memory concealing a %zu-byte frame", job->frame_len);
      return;
    }
    if (rewritten != NULL) input = rewritten;
  }
  vpx_codec_err_t rc = vpx_codec_decode(&d->ctx, input, (unsigned)data_len, NULL, 0);
  free(rewritten);
  if (rc != VPX_CODEC_OK) {
    const char *detail = vpx_codec_error_detail(&d->ctx);
    snprintf(job->error, sizeof(job->error), "frame does not decode: %s%s%s", vpx_codec_error(&d->ctx),
             detail ? ": " : "", detail ? detail : "");
    decoder_shutdown(d);
    return;
  }
  vpx_codec_iter_t iter = NULL;
  vpx_image_t *img = vpx_codec_get_frame(&d->ctx, &iter);
  int corrupted = 0;
  vpx_codec_control(&d->ctx, VP8D_GET_FRAME_CORRUPTED, &corrupted);
  job->concealed = corrupted && job->conceal;
  if (img == NULL || (corrupted && !job->conceal) || img->fmt != VPX_IMG_FMT_I420 || (int)img->d_w != g->width ||
      (int)img->d_h != g->height) {
    snprintf(job->error, sizeof(job->error), "frame does not decode: %s",
             img == NULL ? "no picture came out" : corrupted ? "libvpx marks it corrupted" : "wrong picture format");
    decoder_shutdown(d);
    return;
  }
  int cw = (g->width + 1) / 2, ch = (g->height + 1) / 2;
  uint8_t *out = job->picture;
  for (int y = 0; y < g->height; y++) memcpy(out + (size_t)y * g->width, img->planes[0] + (size_t)y * img->stride[0], g->width);
  out += (size_t)g->width * g->height;
  for (int p = 1; p <= 2; p++) {
    for (int y = 0; y < ch; y++) memcpy(out + (size_t)y * cw, img->planes[p] + (size_t)y * img->stride[p], cw);
    out += (size_t)cw * ch;
  }
  job->ms_decode = monotonic_ms() - t2;

  double t3 = monotonic_ms();
  job->updated = h.updated_refs;
  for (int s = 0; s < VP8_SLOTS; s++) {
    if (job->has_refs && !(job->updated & (1 << s))) {
      d->known[s] = 1;
      d->hash[s] = job->ref_hash[s];
    }
    if (!(job->updated & (1 << s))) continue;
    if (h.key_frame && s > 0) { /* a key frame writes one picture into all three slots */
      job->out_hash[s] = job->out_hash[0];
    } else {
      vpx_ref_frame_t ref;
      ref.frame_type = slot_flag(s);
      wrap_reference(&ref.img, job->out_refs[s], g);
      if (vpx_codec_control(&d->ctx, VP8_COPY_REFERENCE, &ref) != VPX_CODEC_OK) {
        snprintf(job->error, sizeof(job->error), "libvpx decoder: VP8_COPY_REFERENCE(slot %d) failed: %s", s,
                 vpx_codec_error(&d->ctx));
        decoder_shutdown(d);
        return;
      }
      job->out_hash[s] = content_hash(job->out_refs[s], g->reference_bytes, 0);
    }
    d->known[s] = 1;
    d->hash[s] = job->out_hash[s];
  }
  job->ms_extract = monotonic_ms() - t3;
  /* libvpx keeps its reference buffers marked corrupted after a concealment, and injected references do not
   * clear the mark: the next decode would come out "corrupted". A fresh instance is primed instead. */
  if (job->concealed) decoder_shutdown(d);
  job->failed = 0;
}

static void decode_complete(napi_env env, napi_status status, void *data) {
  DecodeJob *job = (DecodeJob *)data;
  Decoder *d = job->decoder;
  const Vp8Geometry *g = &d->geometry;
  d->busy = 0;
  if (status != napi_ok && !job->failed) {
    job->failed = 1;
    snprintf(job->error, sizeof(job->error), "decode job was cancelled");
  }
  if (job->failed) {
    pool_give(job->picture, g->picture_bytes);
    for (int s = 0; s < VP8_SLOTS; s++) pool_give(job->out_refs[s], g->reference_bytes);
    napi_value message, error;
    napi_create_string_utf8(env, job->error, NAPI_AUTO_LENGTH, &message);
    napi_create_error(env, NULL, message, &error);
    napi_reject_deferred(env, job->deferred, error);
  } else {
    napi_value result, picture, refs, hashes;
    napi_create_object(env, &result);
    pool_wrap(env, job->picture, g->picture_bytes, &picture);
    napi_create_array_with_length(env, VP8_SLOTS, &refs);
    napi_create_array_with_length(env, VP8_SLOTS, &hashes);
    napi_value first = NULL;
    for (int s = 0; s < VP8_SLOTS; s++) {
      napi_value ref, hash;
      int fresh = (job->updated & (1 << s)) && !(job->key && s > 0);
      if (fresh) {
        pool_wrap(env, job->out_refs[s], g->reference_bytes, &ref);
        if (s == 0) first = ref;
      } else {
        pool_give(job->out_refs[s], g->reference_bytes);
        if (job->key && first != NULL) ref = first;
        else napi_get_null(env, &ref);
      }
      if (job->updated & (1 << s)) hash = make_bigint(env, job->out_hash[s]);
      else napi_get_null(env, &hash);
      napi_set_element(env, refs, s, ref);
      napi_set_element(env, hashes, s, hash);
    }
    set_named(env, result, "picture", picture);
    set_named(env, result, "references", refs);
    set_named(env, result, "hashes", hashes);
    set_named(env, result, "keyFrame", make_bool(env, job->key));
    set_named(env, result, "quantizer", make_int(env, job->q_index));
    set_named(env, result, "concealed", make_bool(env, job->concealed));
    set_named(env, result, "resets", make_int(env, d->resets));
    set_named(env, result, "msReset", make_double(env, job->ms_reset));
    set_named(env, result, "msInject", make_double(env, job->ms_inject));
    set_named(env, result, "msDecode", make_double(env, job->ms_decode));
    set_named(env, result, "msExtract", make_double(env, job->ms_extract));
    napi_resolve_deferred(env, job->deferred, result);
  }
  napi_delete_reference(env, job->frame_ref);
  if (job->refs_ref) napi_delete_reference(env, job->refs_ref);
  napi_delete_reference(env, job->handle_ref);
  napi_delete_async_work(env, job->work);
  if (d->closing) decoder_shutdown(d);
  free(job);
}

int decoder_has_concealment(void) {
  return (vpx_codec_get_caps(vpx_codec_vp8_dx()) & VPX_CODEC_CAP_ERROR_CONCEALMENT) != 0;
}

/* decoderCreate(width, height, cpuUsed) -> handle (cpuUsed is for the primer's encoder) */
napi_value decoder_create(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  int64_t width, height, cpu_used;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 3) return throw_type_error(env, "decoderCreate(width, height, cpuUsed) needs 3 arguments");
  if (arg_int(env, argv[0], "width", 1, VP8_MAX_DIMENSION, &width)) return NULL;
  if (arg_int(env, argv[1], "height", 1, VP8_MAX_DIMENSION, &height)) return NULL;
  if (arg_int(env, argv[2], "cpuUsed", -16, 16, &cpu_used)) return NULL;
  Decoder *d = (Decoder *)calloc(1, sizeof(Decoder));
  if (d == NULL) return throw_error(env, "out of memory creating a decoder");
  vp8_geometry((int)width, (int)height, &d->geometry);
  d->cpu_used = (int)cpu_used;
  d->concealment = decoder_has_concealment();
  napi_value handle;
  napi_create_external(env, d, finalize_decoder, NULL, &handle);
  napi_type_tag_object(env, handle, &DECODER_TAG);
  return handle;
}

/* decoderDecode(handle, frame, refs: [Uint8Array x3] | null, hashes: [bigint x3] | null, conceal?: boolean)
 * -> Promise<{ picture, references, hashes, keyFrame, quantizer, concealed, ... }>; references[i] and
 * hashes[i] are null for slots the frame left unchanged. With conceal, `frame` may be the received prefix
 * of a frame (needs a libvpx with error concealment). */
napi_value decoder_decode(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 4) return throw_type_error(env, "decoderDecode(handle, frame, refs, hashes) needs 4 arguments");
  Decoder *d;
  if (arg_external(env, argv[0], "decoder", &DECODER_TAG, (void **)&d)) return NULL;
  if (d->closing) return throw_error(env, "decoder is closed");
  if (d->busy) return throw_error(env, "decoder is busy: one decoding at a time per decoder instance");
  DecodeJob job;
  memset(&job, 0, sizeof(job));
  uint8_t *bytes;
  size_t length;
  if (arg_bytes(env, argv[1], "frame", -1, &bytes, &length)) return NULL;
  if (length == 0) return throw_range_error(env, "frame is empty");
  if (length > 0x7fffffff) return throw_range_error(env, "frame is too large: %zu bytes", length);
  job.frame = bytes;
  job.frame_len = length;
  if (argc >= 5 && !is_null_or_undefined(env, argv[4])) {
    bool conceal = false;
    if (napi_get_value_bool(env, argv[4], &conceal) != napi_ok) return throw_type_error(env, "conceal must be a boolean");
    if (conceal && !d->concealment) {
      return throw_error(env, "this libvpx has no error concealment (built without --enable-error-concealment)");
    }
    job.conceal = conceal;
  }
  job.has_refs = !is_null_or_undefined(env, argv[2]);
  if (job.has_refs) {
    bool is_array;
    uint32_t n = 0, m = 0;
    napi_is_array(env, argv[2], &is_array);
    if (is_array) napi_get_array_length(env, argv[2], &n);
    if (!is_array || n != VP8_SLOTS) return throw_type_error(env, "refs must be an array of 3 Uint8Arrays or null");
    napi_is_array(env, argv[3], &is_array);
    if (is_array) napi_get_array_length(env, argv[3], &m);
    if (!is_array || m != VP8_SLOTS) return throw_type_error(env, "hashes must be an array of 3 bigints");
    for (uint32_t s = 0; s < VP8_SLOTS; s++) {
      static const char *ref_names[3] = {"refs[0] (last)", "refs[1] (golden)", "refs[2] (alt-ref)"};
      static const char *hash_names[3] = {"hashes[0]", "hashes[1]", "hashes[2]"};
      napi_value item;
      napi_get_element(env, argv[2], s, &item);
      if (arg_bytes(env, item, ref_names[s], (int64_t)d->geometry.reference_bytes, &bytes, &length)) return NULL;
      job.refs[s] = bytes;
      napi_get_element(env, argv[3], s, &item);
      if (arg_bigint_u64(env, item, hash_names[s], &job.ref_hash[s])) return NULL;
    }
  }
  DecodeJob *heap = (DecodeJob *)malloc(sizeof(DecodeJob));
  if (heap == NULL) return throw_error(env, "out of memory queueing a decoding");
  *heap = job;
  heap->decoder = d;
  heap->picture = pool_take(d->geometry.picture_bytes);
  int ok = heap->picture != NULL;
  for (int s = 0; s < VP8_SLOTS; s++) {
    heap->out_refs[s] = pool_take(d->geometry.reference_bytes);
    ok = ok && heap->out_refs[s] != NULL;
  }
  if (!ok) {
    pool_give(heap->picture, d->geometry.picture_bytes);
    for (int s = 0; s < VP8_SLOTS; s++) pool_give(heap->out_refs[s], d->geometry.reference_bytes);
    free(heap);
    return throw_error(env, "out of memory queueing a decoding");
  }
  napi_create_reference(env, argv[0], 1, &heap->handle_ref);
  napi_create_reference(env, argv[1], 1, &heap->frame_ref);
  if (job.has_refs) napi_create_reference(env, argv[2], 1, &heap->refs_ref);
  napi_value promise, name;
  napi_create_promise(env, &heap->deferred, &promise);
  napi_create_string_utf8(env, "vp8-decode", NAPI_AUTO_LENGTH, &name);
  napi_create_async_work(env, NULL, name, decode_execute, decode_complete, heap, &heap->work);
  d->busy = 1;
  napi_queue_async_work(env, heap->work);
  return promise;
}

napi_value decoder_close(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  Decoder *d;
  if (argc < 1 || arg_external(env, argv[0], "decoder", &DECODER_TAG, (void **)&d)) return NULL;
  d->closing = 1;
  if (!d->busy) decoder_shutdown(d);
  return NULL;
}
