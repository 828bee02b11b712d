// Summary figures of an mm-link log: what mm-link's graphing tools show, as numbers.

import { LogEventKind, requireEvents, type ParsedLinkLog } from './link-log.ts';

export interface LinkLogStats {
  /** First and last event times (ms) and the span between them. */
  startMs: number;
  endMs: number;
  durationMs: number;
  arrivals: number;
  arrivalBytes: number;
  departures: number;
  departureBytes: number;
  opportunities: number;
  /** Sum of the MTUs of all delivery opportunities. */
  capacityBytes: number;
  drops: number;
  dropBytes: number;
  /** Mbit/s over the duration (0 for a zero-length log). */
  capacityMbps: number;
  throughputMbps: number;
  offeredMbps: number;
  /** departureBytes / capacityBytes (0 when there was no capacity). */
  utilization: number;
  /** Per-packet queueing delay (departure time - arrival time) in ms. */
  delayMs: { mean: number; p50: number; p95: number; p99: number; max: number } | undefined;
}

/** The q-quantile (0..1) of sorted values, by linear interpolation between closest ranks. */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const position = (n - 1) * q;
  const lo = Math.floor(position);
  const hi = Math.min(lo + 1, n - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (position - lo);
}

/** The figures of a log with at least one event (a LinkLogParseError otherwise: an empty log has no figures, not zeros). */
export function linkLogStats(log: ParsedLinkLog): LinkLogStats {
  requireEvents(log);
  let arrivals = 0, arrivalBytes = 0, departures = 0, departureBytes = 0;
  let opportunities = 0, capacityBytes = 0, drops = 0, dropBytes = 0;
  const delays = new Float64Array(log.count);
  for (let i = 0; i < log.count; i++) {
    switch (log.kind[i]) {
      case LogEventKind.Arrival:
        arrivals++;
        arrivalBytes += log.a[i];
        break;
      case LogEventKind.Opportunity:
        opportunities++;
        capacityBytes += log.a[i];
        break;
      case LogEventKind.Departure:
        delays[departures++] = log.b[i];
        departureBytes += log.a[i];
        break;
      case LogEventKind.Drop:
        drops += log.a[i];
        dropBytes += log.b[i];
        break;
    }
  }
  // The parser guarantees times in order, so the duration is never negative.
  const startMs = log.time[0];
  const endMs = log.time[log.count - 1];
  const durationMs = endMs - startMs;
  const mbps = (bytes: number) => (durationMs > 0 ? (bytes * 8) / (durationMs * 1000) : 0);
  let delayMs: LinkLogStats['delayMs'];
  if (departures > 0) {
    const sorted = delays.subarray(0, departures).sort();
    let sum = 0;
    for (let i = 0; i < departures; i++) sum += sorted[i];
    delayMs = {
      mean: sum / departures,
      p50: quantile(sorted, 0.5),
      p95: quantile(sorted, 0.95),
      p99: quantile(sorted, 0.99),
      max: sorted[departures - 1],
    };
  }
  return {
    startMs, endMs, durationMs, arrivals, arrivalBytes, departures, departureBytes, opportunities, capacityBytes, drops, dropBytes,
    capacityMbps: mbps(capacityBytes),
    throughputMbps: mbps(departureBytes),
    offeredMbps: mbps(arrivalBytes),
    utilization: capacityBytes > 0 ? departureBytes / capacityBytes : 0,
    delayMs,
  };
}
