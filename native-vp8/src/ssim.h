/* Structural similarity as ffmpeg's ssim filter (and x264) compute it:
 * 8x8 windows on a 4-pixel grid, built from 4x4 block sums. */
#ifndef NATIVE_VP8_SSIM_H
#define NATIVE_VP8_SSIM_H
#include <stdint.h>

/* SSIM of one 8-bit plane; planes smaller than 8x8 compare exactly (1 or 0 scaled by MSE). */
double ssim_plane(const uint8_t *a, int a_stride, const uint8_t *b, int b_stride, int width, int height);

#endif
