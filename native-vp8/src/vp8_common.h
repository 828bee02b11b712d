/* Shared definitions: picture and reference layouts, the quantizer table and
 * the libvpx encoder set-up used by both the encoder and the decoder's primer. */
#ifndef NATIVE_VP8_COMMON_H
#define NATIVE_VP8_COMMON_H
#include <stddef.h>
#include <stdint.h>
#include <vpx/vp8cx.h>
#include <vpx/vp8dx.h>
#include <vpx/vpx_decoder.h>
#include <vpx/vpx_encoder.h>

#define VP8_MAX_DIMENSION 16383 /* 14-bit size fields in the key frame header */
#define VP8_SLOTS 3             /* last, golden, alt-ref */

typedef struct {
  int width, height;             /* visible size */
  int aligned_width, aligned_height; /* macroblock-aligned reference size */
  size_t picture_bytes;          /* I420 at visible size */
  size_t reference_bytes;        /* I420 at aligned size */
} Vp8Geometry;

void vp8_geometry(int width, int height, Vp8Geometry *g);
/* Wraps an I420 picture of the visible size (chroma (w+1)/2 x (h+1)/2). */
void wrap_picture(vpx_image_t *img, const uint8_t *data, const Vp8Geometry *g);
/* Wraps a reference buffer of the aligned size. */
void wrap_reference(vpx_image_t *img, const uint8_t *data, const Vp8Geometry *g);
/* libvpx reference-slot flag for slot index 0..2. */
vpx_ref_frame_type_t slot_flag(int slot);

/* libvpx's 0..63 quantizer levels as VP8 quantizer indices (0..127). */
extern const int vp8_level_to_index[64];

/* Opens a libvpx VP8 encoder configured for functional use. Returns 0 or -1 with err set. */
int functional_encoder_open(vpx_codec_ctx_t *ctx, vpx_codec_enc_cfg_t *cfg, const Vp8Geometry *g, int cpu_used,
                            int error_resilient, int cyclic_refresh, char *err, size_t err_size);
/* Encodes one picture; copies the single frame packet into *frame (malloc'd). */
int functional_encoder_run(vpx_codec_ctx_t *ctx, vpx_codec_enc_cfg_t *cfg, int level, const vpx_image_t *img,
                           vpx_codec_pts_t pts, vpx_enc_frame_flags_t flags, uint8_t **frame, size_t *frame_len,
                           char *err, size_t err_size);

#endif
