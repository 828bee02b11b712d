// How fast a call's bitrate ramps up (bench/turn-tcp.ts): the steady rate and
// the time to reach 90 % of it, from a bitrate series on the call's time.

export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  return sorted[lo] + (sorted[Math.min(sorted.length - 1, lo + 1)] - sorted[lo]) * (at - lo);
}

export const mean = (values: readonly number[]): number => (values.length === 0 ? NaN : values.reduce((a, b) => a + b, 0) / values.length);

/**
 * The steady rate (the median over the last third of the call) and the first
 * time (at least 2 s in) the rate averaged over the 2 s before reached 90 % of it.
 */
export function rampUp(series: readonly { t: number; mbps: number }[], durationS: number): { steadyMbps: number; t90: number | undefined } {
  const tail = series.filter((p) => p.t >= (durationS * 2) / 3 && p.t <= durationS).map((p) => p.mbps);
  const steadyMbps = quantile(tail, 0.5);
  for (const p of series) {
    const window = series.filter((q) => q.t > p.t - 2 && q.t <= p.t).map((q) => q.mbps);
    if (p.t >= 2 && mean(window) >= 0.9 * steadyMbps) return { steadyMbps, t90: p.t };
  }
  return { steadyMbps, t90: undefined };
}
