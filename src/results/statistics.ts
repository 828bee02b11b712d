// Means and percentiles of per-frame figures. Percentiles interpolate linearly
// between the closest ranks (p in 0..100 over the sorted values x_0..x_{n-1}:
// position p/100 x (n - 1)), which is numpy's default and the rule of the
// Salsify authors' analysis scripts (excamera/salsify-results,
// graphs/generate-timelapse.py: np.percentile), so our delay and SSIM
// percentiles compare with the paper's. Link-log figures follow Mahimahi's
// tools instead (rankQuantile in src/link-emu/log-stats.ts), so that
// `linkshell stats` prints what mm-delay-graph prints: each rule is the one
// of the tool its figures are compared with.

export interface Distribution {
  readonly mean: number;
  readonly p5: number;
  readonly p95: number;
}

export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be in 0..100, got ${p}`);
  const pos = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.min(sorted.length - 1, lo + 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/** Mean, 5th and 95th percentiles (NaN for no values). */
export function distribution(values: readonly number[]): Distribution {
  if (values.length === 0) return { mean: NaN, p5: NaN, p95: NaN };
  const sorted = Float64Array.from(values).sort();
  let sum = 0;
  for (const v of values) sum += v;
  return { mean: sum / values.length, p5: percentile(sorted, 5), p95: percentile(sorted, 95) };
}
