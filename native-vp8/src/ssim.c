#include "ssim.h"

#include <stdlib.h>

/* Sums over one 4x4 block: sum of a, sum of b, sum of a^2 + b^2, sum of a*b. */
typedef struct {
  uint32_t sa, sb, sqq, sab;
} BlockSums;

static void block_sums_row(const uint8_t *a, int a_stride, const uint8_t *b, int b_stride, int blocks, BlockSums *out) {
  for (int bx = 0; bx < blocks; bx++) {
    uint32_t sa = 0, sb = 0, sqq = 0, sab = 0;
    for (int y = 0; y < 4; y++) {
      const uint8_t *pa = a + y * a_stride + bx * 4;
      const uint8_t *pb = b + y * b_stride + bx * 4;
      for (int x = 0; x < 4; x++) {
        uint32_t va = pa[x], vb = pb[x];
        sa += va;
        sb += vb;
        sqq += va * va + vb * vb;
        sab += va * vb;
      }
    }
    out[bx].sa = sa;
    out[bx].sb = sb;
    out[bx].sqq = sqq;
    out[bx].sab = sab;
  }
}

/* SSIM of one 8x8 window from its 64-pixel sums, with the constants scaled
 * the way ffmpeg scales them for integer sums (c2 uses 64*63). */
static double window_ssim(double s1, double s2, double ss, double s12) {
  const double c1 = 0.01 * 0.01 * 255 * 255 * 64;
  const double c2 = 0.03 * 0.03 * 255 * 255 * 64 * 63;
  double vars = ss * 64 - s1 * s1 - s2 * s2;
  double covar = s12 * 64 - s1 * s2;
  return (2 * s1 * s2 + c1) * (2 * covar + c2) / ((s1 * s1 + s2 * s2 + c1) * (vars + c2));
}

double ssim_plane(const uint8_t *a, int a_stride, const uint8_t *b, int b_stride, int width, int height) {
  int blocks_x = width / 4, blocks_y = height / 4;
  if (blocks_x < 2 || blocks_y < 2) {
    /* Too small for one window: identical planes are 1, else use the whole plane as one window. */
    double s1 = 0, s2 = 0, ss = 0, s12 = 0;
    int n = width * height;
    if (n == 0) return 1.0;
    for (int y = 0; y < height; y++)
      for (int x = 0; x < width; x++) {
        double va = a[y * a_stride + x], vb = b[y * b_stride + x];
        s1 += va, s2 += vb, ss += va * va + vb * vb, s12 += va * vb;
      }
    double scale = 64.0 / n;
    return window_ssim(s1 * scale, s2 * scale, ss * scale, s12 * scale);
  }
  BlockSums *rows = (BlockSums *)malloc(sizeof(BlockSums) * 2 * (size_t)blocks_x);
  if (rows == NULL) return -1.0;
  BlockSums *prev = rows, *cur = rows + blocks_x;
  double total = 0;
  block_sums_row(a, a_stride, b, b_stride, blocks_x, prev);
  for (int by = 1; by < blocks_y; by++) {
    block_sums_row(a + by * 4 * a_stride, a_stride, b + by * 4 * b_stride, b_stride, blocks_x, cur);
    for (int bx = 0; bx + 1 < blocks_x; bx++) {
      double s1 = (double)prev[bx].sa + prev[bx + 1].sa + cur[bx].sa + cur[bx + 1].sa;
      double s2 = (double)prev[bx].sb + prev[bx + 1].sb + cur[bx].sb + cur[bx + 1].sb;
      double ss = (double)prev[bx].sqq + prev[bx + 1].sqq + cur[bx].sqq + cur[bx + 1].sqq;
      double s12 = (double)prev[bx].sab + prev[bx + 1].sab + cur[bx].sab + cur[bx + 1].sab;
      total += window_ssim(s1, s2, ss, s12);
    }
    BlockSums *t = prev;
    prev = cur;
    cur = t;
  }
  free(rows);
  return total / ((double)(blocks_x - 1) * (blocks_y - 1));
}
