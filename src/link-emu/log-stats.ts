// Summary figures of an mm-link log: what Mahimahi's mm-throughput-graph and
// mm-delay-graph print, as numbers, and the series they draw.
//
// Definitions followed (Mahimahi's scripts, read for their meaning):
// - Times count from the log's "# base timestamp:" (0 when a log has none).
//   The duration is last event time - first event time.
// - Average capacity, ingress and throughput: the bits of all "#", "+" and "-"
//   lines over that duration; utilisation = throughput / capacity.
// - Per-packet queueing delay: the DELAY of each "-" line.
// - Signal delay at millisecond t: the least delay of the packets that
//   arrived at t and were delivered; at a millisecond where no delivered packet
//   arrived, the signal delay of t + 1 plus 1 ms (a message created at t waits
//   for the next delivered arrival). Taken for every millisecond from the first
//   to the last delivered packet's arrival. Dropped packets deliver nothing, so
//   they never lower it.
// - Percentiles by Mahimahi's rank rule (see rankQuantile).
// - "d" lines (which Mahimahi's mm-throughput-graph refuses) count as drops:
//   their packets and bytes, per bin as well.

import { LogEventKind, requireEvents, type ParsedLinkLog } from './link-log.ts';

export interface DelayFigures {
  mean: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export interface LinkLogStats {
  /** First and last event times (ms, as in the log) and the span between them. */
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
  /** Per-packet queueing delay (departure time - arrival time) in ms; undefined without departures. */
  delayMs: DelayFigures | undefined;
  /** Signal delay (see the definition above), one sample per millisecond; undefined without departures. */
  signalDelayMs: DelayFigures | undefined;
}

/**
 * The q-quantile (0..1) of sorted values by Mahimahi's rank rule: the value at
 * 0-based index floor(q x n) (the last value when that is n). This is the
 * nearest rank, ceil(q x n), except when q x n is a whole number, where it is
 * the next value up. NaN for no values.
 */
export function rankQuantile(sorted: ArrayLike<number>, q: number): number {
  if (!(q >= 0 && q <= 1)) throw new RangeError(`quantile must be in [0, 1], got ${q}`);
  const n = sorted.length;
  if (n === 0) return NaN;
  return sorted[Math.min(n - 1, Math.floor(q * n))];
}

function delayFigures(sorted: Float64Array): DelayFigures | undefined {
  const n = sorted.length;
  if (n === 0) return undefined;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += sorted[i];
  return { mean: sum / n, p50: rankQuantile(sorted, 0.5), p95: rankQuantile(sorted, 0.95), p99: rankQuantile(sorted, 0.99), max: sorted[n - 1] };
}

/** The log's base timestamp (0 when it has none): where time zero of its series lies. */
export function baseTimestampOf(log: ParsedLinkLog): number {
  return log.header.baseTimestamp ?? 0;
}

/**
 * The signal delay of every millisecond from the first to the last delivered
 * packet's arrival (log times): `startMs` and one value per millisecond.
 */
export function signalDelaySeries(log: ParsedLinkLog): { startMs: number; values: Float64Array } {
  let first = Infinity, last = -Infinity;
  for (let i = 0; i < log.count; i++) {
    if (log.kind[i] !== LogEventKind.Departure) continue;
    const arrival = log.time[i] - log.b[i];
    if (arrival < first) first = arrival;
    if (arrival > last) last = arrival;
  }
  if (first > last) return { startMs: 0, values: new Float64Array(0) };
  const values = new Float64Array(last - first + 1).fill(Infinity);
  for (let i = 0; i < log.count; i++) {
    if (log.kind[i] !== LogEventKind.Departure) continue;
    const slot = log.time[i] - log.b[i] - first;
    if (log.b[i] < values[slot]) values[slot] = log.b[i];
  }
  // The last slot always holds a delivered arrival; fill the others backwards.
  for (let slot = values.length - 2; slot >= 0; slot--) {
    if (values[slot] === Infinity) values[slot] = values[slot + 1] + 1;
  }
  return { startMs: first, values };
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
  return {
    startMs, endMs, durationMs, arrivals, arrivalBytes, departures, departureBytes, opportunities, capacityBytes, drops, dropBytes,
    capacityMbps: mbps(capacityBytes),
    throughputMbps: mbps(departureBytes),
    offeredMbps: mbps(arrivalBytes),
    utilization: capacityBytes > 0 ? departureBytes / capacityBytes : 0,
    delayMs: delayFigures(delays.subarray(0, departures).sort()),
    signalDelayMs: delayFigures(signalDelaySeries(log).values.sort()),
  };
}

/** One bin of the throughput graph: its start (ms after the base timestamp) and rates in Mbit/s. */
export interface ThroughputBin {
  startMs: number;
  capacityMbps: number;
  ingressMbps: number;
  egressMbps: number;
  dropMbps: number;
  /** Packets dropped in the bin. */
  dropPackets: number;
}

/**
 * The log's events in bins of `binMs` milliseconds (counted from the base
 * timestamp, as Mahimahi bins them), every bin from the first event's to the
 * last event's, empty ones included.
 */
export function throughputBins(log: ParsedLinkLog, binMs: number): ThroughputBin[] {
  if (!(Number.isInteger(binMs) && binMs >= 1)) throw new RangeError(`bin must be a whole number of ms >= 1, got ${binMs}`);
  requireEvents(log);
  const base = baseTimestampOf(log);
  const binOf = (time: number) => Math.floor((time - base) / binMs);
  const firstBin = binOf(log.time[0]);
  const bins = binOf(log.time[log.count - 1]) - firstBin + 1;
  const bits = [new Float64Array(bins), new Float64Array(bins), new Float64Array(bins), new Float64Array(bins)];
  const dropPackets = new Float64Array(bins);
  for (let i = 0; i < log.count; i++) {
    const bin = binOf(log.time[i]) - firstBin;
    const k = log.kind[i];
    if (k === LogEventKind.Drop) {
      bits[k][bin] += log.b[i] * 8;
      dropPackets[bin] += log.a[i];
    } else bits[k][bin] += log.a[i] * 8;
  }
  const toMbps = (b: number) => b / binMs / 1000;
  return Array.from({ length: bins }, (_, i) => ({
    startMs: (firstBin + i) * binMs,
    capacityMbps: toMbps(bits[LogEventKind.Opportunity][i]),
    ingressMbps: toMbps(bits[LogEventKind.Arrival][i]),
    egressMbps: toMbps(bits[LogEventKind.Departure][i]),
    dropMbps: toMbps(bits[LogEventKind.Drop][i]),
    dropPackets: dropPackets[i],
  }));
}

/**
 * The figures rounded to the precision they carry, for JSON: rates to
 * 1 kbit/s (0.001 Mbit/s), utilisation to 0.0001 (0.01 %), mean delays to
 * 0.001 ms; percentiles and maxima are log values (whole ms) already.
 */
export function roundedStats(s: LinkLogStats): LinkLogStats {
  const r = (x: number, digits: number) => Number(x.toFixed(digits));
  const delay = (d: DelayFigures | undefined) => (d === undefined ? undefined : { ...d, mean: r(d.mean, 3) });
  return {
    ...s,
    capacityMbps: r(s.capacityMbps, 3),
    throughputMbps: r(s.throughputMbps, 3),
    offeredMbps: r(s.offeredMbps, 3),
    utilization: r(s.utilization, 4),
    delayMs: delay(s.delayMs),
    signalDelayMs: delay(s.signalDelayMs),
  };
}
