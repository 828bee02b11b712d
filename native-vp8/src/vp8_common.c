#include "vp8_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* VP8 quantizer index (RFC 6386's 0..127 scale) for each of libvpx's 0..63 levels. */
const int vp8_level_to_index[64] = {0,  1,  2,  3,  4,  5,  7,  8,  9,  10,  12,  13,  15,  17,  18,  19,
                                    20, 21, 23, 24, 25, 26, 27, 28, 29, 30,  31,  33,  35,  37,  39,  41,
                                    43, 45, 47, 49, 51, 53, 55, 57, 59, 61,  64,  67,  70,  73,  76,  79,
                                    82, 85, 88, 91, 94, 97, 100, 103, 106, 109, 112, 115, 118, 121, 124, 127};

void vp8_geometry(int width, int height, Vp8Geometry *g) {
  g->width = width;
  g->height = height;
  g->aligned_width = (width + 15) & ~15;
  g->aligned_height = (height + 15) & ~15;
  size_t cw = (size_t)(width + 1) / 2, ch = (size_t)(height + 1) / 2;
  g->picture_bytes = (size_t)width * height + 2 * cw * ch;
  g->reference_bytes = (size_t)g->aligned_width * g->aligned_height * 3 / 2;
}

void wrap_picture(vpx_image_t *img, const uint8_t *data, const Vp8Geometry *g) {
  int cw = (g->width + 1) / 2, ch = (g->height + 1) / 2;
  memset(img, 0, sizeof(*img));
  img->fmt = VPX_IMG_FMT_I420;
  img->w = img->d_w = (unsigned)g->width;
  img->h = img->d_h = (unsigned)g->height;
  img->x_chroma_shift = img->y_chroma_shift = 1;
  img->bps = 12;
  img->planes[VPX_PLANE_Y] = (unsigned char *)data;
  img->planes[VPX_PLANE_U] = (unsigned char *)data + (size_t)g->width * g->height;
  img->planes[VPX_PLANE_V] = img->planes[VPX_PLANE_U] + (size_t)cw * ch;
  img->stride[VPX_PLANE_Y] = g->width;
  img->stride[VPX_PLANE_U] = img->stride[VPX_PLANE_V] = cw;
}

void wrap_reference(vpx_image_t *img, const uint8_t *data, const Vp8Geometry *g) {
  int aw = g->aligned_width, ah = g->aligned_height;
  memset(img, 0, sizeof(*img));
  img->fmt = VPX_IMG_FMT_I420;
  img->w = img->d_w = (unsigned)aw;
  img->h = img->d_h = (unsigned)ah;
  img->x_chroma_shift = img->y_chroma_shift = 1;
  img->bps = 12;
  img->planes[VPX_PLANE_Y] = (unsigned char *)data;
  img->planes[VPX_PLANE_U] = (unsigned char *)data + (size_t)aw * ah;
  img->planes[VPX_PLANE_V] = img->planes[VPX_PLANE_U] + (size_t)(aw / 2) * (ah / 2);
  img->stride[VPX_PLANE_Y] = aw;
  img->stride[VPX_PLANE_U] = img->stride[VPX_PLANE_V] = aw / 2;
}

vpx_ref_frame_type_t slot_flag(int slot) {
  return slot == 0 ? VP8_LAST_FRAME : slot == 1 ? VP8_GOLD_FRAME : VP8_ALTR_FRAME;
}

#define TRY_CONTROL(call, what)                                                        \
  do {                                                                                 \
    if ((call) != VPX_CODEC_OK) {                                                      \
      snprintf(err, err_size, "libvpx encoder: %s failed: %s", what, vpx_codec_error(ctx)); \
      vpx_codec_destroy(ctx);                                                          \
      return -1;                                                                       \
    }                                                                                  \
  } while (0)

int functional_encoder_open(vpx_codec_ctx_t *ctx, vpx_codec_enc_cfg_t *cfg, const Vp8Geometry *g, int cpu_used,
                            int error_resilient, int cyclic_refresh, char *err, size_t err_size) {
  if (vpx_codec_enc_config_default(vpx_codec_vp8_cx(), cfg, 0) != VPX_CODEC_OK) {
    snprintf(err, err_size, "libvpx: no default VP8 encoder configuration");
    return -1;
  }
  cfg->g_w = (unsigned)g->width;
  cfg->g_h = (unsigned)g->height;
  cfg->g_threads = 1;
  cfg->g_timebase.num = 1;
  cfg->g_timebase.den = 60;
  cfg->g_lag_in_frames = 0;
  cfg->g_error_resilient = error_resilient ? VPX_ERROR_RESILIENT_DEFAULT : 0;
  cfg->g_pass = VPX_RC_ONE_PASS;
  cfg->kf_mode = VPX_KF_DISABLED;
  cfg->rc_dropframe_thresh = 0;
  cfg->rc_resize_allowed = 0;
  /* CBR with a target far above any frame's size: the rate controller's
   * buffer never runs low, so min = max quantizer is honoured on every frame. */
  cfg->rc_end_usage = VPX_CBR;
  cfg->rc_target_bitrate = 1000000; /* kbit/s */
  cfg->rc_min_quantizer = 32;
  cfg->rc_max_quantizer = 32;
  cfg->rc_undershoot_pct = 100;
  cfg->rc_overshoot_pct = 100;
  if (vpx_codec_enc_init(ctx, vpx_codec_vp8_cx(), cfg, 0) != VPX_CODEC_OK) {
    snprintf(err, err_size, "libvpx: cannot open a VP8 encoder for %dx%d: %s", g->width, g->height,
             vpx_codec_error(ctx));
    return -1;
  }
  TRY_CONTROL(vpx_codec_control(ctx, VP8E_SET_CPUUSED, cpu_used), "VP8E_SET_CPUUSED");
  TRY_CONTROL(vpx_codec_control(ctx, VP8E_SET_NOISE_SENSITIVITY, 0), "VP8E_SET_NOISE_SENSITIVITY");
  TRY_CONTROL(vpx_codec_control(ctx, VP8E_SET_ENABLEAUTOALTREF, 0), "VP8E_SET_ENABLEAUTOALTREF");
  TRY_CONTROL(vpx_codec_control(ctx, VP8E_SET_TOKEN_PARTITIONS, VP8_ONE_TOKENPARTITION), "VP8E_SET_TOKEN_PARTITIONS");
  TRY_CONTROL(vpx_codec_control(ctx, VP8E_SET_STATIC_THRESHOLD, 0), "VP8E_SET_STATIC_THRESHOLD");
  /* Turns off cyclic refresh (segmentation that error-resilient mode would otherwise use). */
  if (!cyclic_refresh)
    TRY_CONTROL(vpx_codec_control(ctx, VP8E_SET_RTC_EXTERNAL_RATECTRL, 1), "VP8E_SET_RTC_EXTERNAL_RATECTRL");
  return 0;
}

int functional_encoder_run(vpx_codec_ctx_t *ctx, vpx_codec_enc_cfg_t *cfg, int level, const vpx_image_t *img,
                           vpx_codec_pts_t pts, vpx_enc_frame_flags_t flags, uint8_t **frame, size_t *frame_len,
                           char *err, size_t err_size) {
  *frame = NULL;
  *frame_len = 0;
  if ((int)cfg->rc_min_quantizer != level || (int)cfg->rc_max_quantizer != level) {
    cfg->rc_min_quantizer = cfg->rc_max_quantizer = (unsigned)level;
    if (vpx_codec_enc_config_set(ctx, cfg) != VPX_CODEC_OK) {
      snprintf(err, err_size, "libvpx encoder: setting quantizer level %d failed: %s", level, vpx_codec_error(ctx));
      return -1;
    }
  }
  if (vpx_codec_encode(ctx, img, pts, 1, flags, VPX_DL_REALTIME) != VPX_CODEC_OK) {
    const char *detail = vpx_codec_error_detail(ctx);
    snprintf(err, err_size, "libvpx encoder: encode failed: %s%s%s", vpx_codec_error(ctx), detail ? ": " : "",
             detail ? detail : "");
    return -1;
  }
  vpx_codec_iter_t iter = NULL;
  const vpx_codec_cx_pkt_t *pkt;
  while ((pkt = vpx_codec_get_cx_data(ctx, &iter)) != NULL) {
    if (pkt->kind != VPX_CODEC_CX_FRAME_PKT) continue;
    if (*frame != NULL) {
      free(*frame);
      *frame = NULL;
      snprintf(err, err_size, "libvpx encoder: produced more than one frame for one picture");
      return -1;
    }
    *frame = (uint8_t *)malloc(pkt->data.frame.sz);
    if (*frame == NULL) {
      snprintf(err, err_size, "out of memory for a %zu-byte frame", pkt->data.frame.sz);
      return -1;
    }
    memcpy(*frame, pkt->data.frame.buf, pkt->data.frame.sz);
    *frame_len = pkt->data.frame.sz;
  }
  if (*frame == NULL) {
    snprintf(err, err_size, "libvpx encoder: produced no frame (dropped?)");
    return -1;
  }
  return 0;
}
