// A model of libvpx VP8 encode time per inter frame, for the simulator: a
// function of resolution and quantizer, calibrated from measurements.
//
// Calibration (reproduce with `node --import tsx bench/codec-encode-time.ts 60`): one
// libvpx 1.12 encoder at speed -8 on one core of the 2-core development VM,
// FourPeople clip (640x360 = its centre crop), median ms per inter frame
// measured in the worker thread; lower of two runs (the machine was shared,
// so single figures carry about +-30% noise):
//
//   quantizer index     8     24     40     64     96    127
//   1280x720         6.15   4.60   4.29   3.75   3.30   3.17
//   640x360          1.79   1.30   1.19   1.01   0.88   0.77
//
// Time falls with the quantizer (fewer coefficients to code) and grows a little
// less than linearly with the pixel count: a quarter of the pixels takes 1/3.4
// to 1/4.1 of the time, so time ~ pixels^0.92. The model interpolates the 720p
// row linearly in the quantizer (flat beyond its ends) and scales by
// (pixels / 921600)^0.92. It reproduces the 640x360 row within 13%.
const QUANTIZERS = [8, 24, 40, 64, 96, 127];
const MS_720P = [6.15, 4.6, 4.29, 3.75, 3.3, 3.17];
const PIXELS_720P = 1280 * 720;
const PIXEL_EXPONENT = 0.92;

function interpolate(q: number): number {
  if (q <= QUANTIZERS[0]) return MS_720P[0];
  for (let i = 1; i < QUANTIZERS.length; i++) {
    if (q <= QUANTIZERS[i]) {
      const f = (q - QUANTIZERS[i - 1]) / (QUANTIZERS[i] - QUANTIZERS[i - 1]);
      return MS_720P[i - 1] + f * (MS_720P[i] - MS_720P[i - 1]);
    }
  }
  return MS_720P[MS_720P.length - 1];
}

/** Modelled libvpx encode time in milliseconds for one inter frame of `width` x `height` at VP8 quantizer index `quantizer`. */
export function modelEncodeMs(width: number, height: number, quantizer: number): number {
  if (!(Number.isFinite(width) && Number.isFinite(height) && width > 0 && height > 0)) {
    throw new RangeError(`modelEncodeMs: width and height must be positive, got ${width}x${height}`);
  }
  if (!(quantizer >= 0 && quantizer <= 127)) throw new RangeError(`modelEncodeMs: quantizer must be in 0..127, got ${quantizer}`);
  return interpolate(quantizer) * Math.pow((width * height) / PIXELS_720P, PIXEL_EXPONENT);
}
