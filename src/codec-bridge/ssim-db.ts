// SSIM on the decibel scale Salsify reports: 10 log10(1 / (1 - ssim)).
// A module of its own (no native code), so pure consumers such as the
// Salsify metrics can use it without loading the addon.

/** 1 gives Infinity; NaN (no value, e.g. the mean of no frames) stays NaN; above 1 is an error. */
export function ssimToDb(x: number): number {
  if (x > 1) throw new RangeError(`ssimToDb: SSIM must be at most 1, got ${x}`);
  return 10 * Math.log10(1 / (1 - x));
}
