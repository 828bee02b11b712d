// The graphs of an mm-link log, as Vega-Lite specifications built from data
// (pure functions): Mahimahi's mm-throughput-graph (capacity as a filled area,
// ingress and egress throughput as lines, per bin) and mm-delay-graph
// (per-packet queueing delay as points, signal delay as a filled area, their
// 95th percentiles as rules), plus what those do not draw: drops, as crosses
// at the rate dropped in each bin, at the bin's middle. Several directions go side by side.

import type { TopLevelSpec } from 'vega-lite';
import { LogEventKind, type ParsedLinkLog } from '../link-emu/link-log.ts';
import { baseTimestampOf, linkLogStats, signalDelaySeries, throughputBins, type LinkLogStats, type ThroughputBin } from '../link-emu/log-stats.ts';

/** What the graphs of one direction draw; times are ms after the log's base timestamp. */
export interface LinkDirectionSeries {
  title: string;
  binMs: number;
  stats: LinkLogStats;
  bins: ThroughputBin[];
  /** One point per delivered packet: its arrival time and queueing delay. */
  packets: Array<{ arrivalMs: number; delayMs: number }>;
  /**
   * The signal delay: the vertices of the curve, which falls by 1 ms per ms
   * between delivered arrivals, so drawing lines between these points gives
   * the per-millisecond values exactly.
   */
  signal: Array<{ timeMs: number; delayMs: number }>;
  /** First and last event (ms after the base timestamp). */
  startMs: number;
  endMs: number;
}

/** The series of one log (with at least one event), binned by `binMs`. */
export function linkDirectionSeries(log: ParsedLinkLog, binMs: number, title: string): LinkDirectionSeries {
  const stats = linkLogStats(log);
  const base = baseTimestampOf(log);
  const packets: LinkDirectionSeries['packets'] = [];
  for (let i = 0; i < log.count; i++) {
    if (log.kind[i] === LogEventKind.Departure) packets.push({ arrivalMs: log.time[i] - log.b[i] - base, delayMs: log.b[i] });
  }
  return {
    title, binMs, stats, packets,
    bins: throughputBins(log, binMs),
    signal: signalVertices(signalDelaySeries(log), base),
    startMs: log.time[0] - base,
    endMs: log.time[log.count - 1] - base,
  };
}

function signalVertices({ startMs, values }: { startMs: number; values: Float64Array }, base: number): LinkDirectionSeries['signal'] {
  const out: LinkDirectionSeries['signal'] = [];
  const n = values.length;
  for (let i = 0; i < n; i++) {
    // Keep the ends and every point where the slope of -1 ms/ms breaks (on either side).
    const straight = i > 0 && i < n - 1 && values[i - 1] === values[i] + 1 && values[i] === values[i + 1] + 1;
    if (!straight) out.push({ timeMs: startMs + i - base, delayMs: values[i] });
  }
  return out;
}

const COLOURS = { capacity: '#9ecae1', ingress: '#0020a0', egress: '#ff6040', drops: '#d62728', signal: '#4c78a8', packet: '#e41a1c' };
const WIDTH = 520;
const HEIGHT = 220;

const mbps = (x: number) => x.toFixed(2);
const roundTo = (digits: number) => (x: number) => Number(x.toFixed(digits));

/** Layers need unique names across a concatenated chart: `d0_capacity`, `d1_drops`, ... */
export function markName(direction: number, layer: 'capacity' | 'ingress' | 'egress' | 'drops' | 'signal' | 'packets' | 'p95signal' | 'p95packet'): string {
  return `d${direction}_${layer}`;
}

/** The throughput graph of one direction (a layered unit, to be concatenated or wrapped by topLevel()). */
export function throughputSpec(s: LinkDirectionSeries, direction = 0): Record<string, unknown> {
  const capacity = `Capacity (mean ${mbps(s.stats.capacityMbps)} Mbit/s)`;
  const ingress = `Ingress (mean ${mbps(s.stats.offeredMbps)} Mbit/s)`;
  const egress = `Egress (mean ${mbps(s.stats.throughputMbps)} Mbit/s, ${(100 * s.stats.utilization).toFixed(1)} % utilisation)`;
  const drops = `Drops (${s.stats.drops} packets)`;
  // Rates to the precision they have: one byte per bin (8 / binMs kbit/s), one more digit so the value stays exact.
  const rate = roundTo(Math.max(0, Math.ceil(-Math.log10(8 / (s.binMs * 1000)))) + 1);
  const values = s.bins.map((b) => ({
    t: b.startMs / 1000, middle: (b.startMs + s.binMs / 2) / 1000,
    capacity: rate(b.capacityMbps), ingress: rate(b.ingressMbps), egress: rate(b.egressMbps), drop: rate(b.dropMbps), dropped: b.dropPackets,
  }));
  const x = { field: 't', type: 'quantitative', title: 'time (s)', scale: { domain: [s.startMs / 1000, s.endMs / 1000], nice: false } };
  const colour = (label: string) => ({
    datum: label, type: 'nominal',
    scale: { domain: [capacity, ingress, egress, drops], range: [COLOURS.capacity, COLOURS.ingress, COLOURS.egress, COLOURS.drops] },
    legend: { orient: 'top', title: null, columns: 2, labelLimit: 400 },
  });
  const yTitle = `throughput (Mbit/s, per ${s.binMs} ms)`;
  return {
    width: WIDTH, height: HEIGHT,
    data: { values },
    layer: [
      { name: markName(direction, 'capacity'), mark: { type: 'area', interpolate: 'step-after', opacity: 0.6 }, encoding: { x, y: { field: 'capacity', type: 'quantitative', title: yTitle }, color: colour(capacity) } },
      { name: markName(direction, 'ingress'), mark: { type: 'line', interpolate: 'step-after', strokeWidth: 2 }, encoding: { x, y: { field: 'ingress', type: 'quantitative' }, color: colour(ingress) } },
      { name: markName(direction, 'egress'), mark: { type: 'line', interpolate: 'step-after', strokeWidth: 1.5 }, encoding: { x, y: { field: 'egress', type: 'quantitative' }, color: colour(egress) } },
      {
        name: markName(direction, 'drops'),
        transform: [{ filter: 'datum.dropped > 0' }],
        mark: { type: 'point', shape: 'cross', filled: true, size: 40, clip: true },
        // At the middle of its bin (the lines step at the bins' starts).
        encoding: { x: { ...x, field: 'middle' }, y: { field: 'drop', type: 'quantitative' }, color: colour(drops), tooltip: [{ field: 't', title: 'bin start (s)' }, { field: 'dropped', title: 'packets dropped' }] },
      },
    ],
  };
}

/** The delay graph of one direction (log scale, as Mahimahi's). */
export function delaySpec(s: LinkDirectionSeries, direction = 0): Record<string, unknown> {
  const q = s.stats.delayMs;
  const sd = s.stats.signalDelayMs;
  const x = { field: 't', type: 'quantitative', title: 'time (s)', scale: { domain: [s.startMs / 1000, s.endMs / 1000], nice: false } };
  if (q === undefined || sd === undefined) {
    // No packet was delivered: nothing to draw but an empty frame that says so.
    return { width: WIDTH, height: HEIGHT, title: { text: 'no packet delivered: no delays', fontSize: 12, fontWeight: 'normal' }, data: { values: [{ t: s.startMs / 1000 }] }, mark: { type: 'point', opacity: 0 }, encoding: { x } };
  }
  // Mahimahi's range: from min(30, median) up to 1.2 x the largest signal delay (a log scale needs >= 1).
  const low = Math.max(1, Math.min(30, q.p50));
  const high = Math.max(low * 2, Number((1.2 * Math.max(sd.max, q.max)).toFixed(1)));
  const y = (field: string, title?: string) => ({ field, type: 'quantitative', title, scale: { type: 'log', domain: [low, high], clamp: true, nice: false } });
  const signal = `Signal delay (p95 ${sd.p95} ms)`;
  const packet = `Per-packet queueing delay (p95 ${q.p95} ms)`;
  const colour = (label: string) => ({ datum: label, type: 'nominal', scale: { domain: [signal, packet], range: [COLOURS.signal, COLOURS.packet] }, legend: { orient: 'top', title: null, labelLimit: 400 } });
  return {
    width: WIDTH, height: HEIGHT,
    layer: [
      { name: markName(direction, 'signal'), data: { values: s.signal.map((p) => ({ t: p.timeMs / 1000, delay: Math.max(low, p.delayMs) })) }, mark: { type: 'area', opacity: 0.4 }, encoding: { x, y: y('delay', 'delay (ms)'), y2: { datum: low }, color: colour(signal) } },
      { name: markName(direction, 'packets'), data: { values: s.packets.map((p) => ({ t: p.arrivalMs / 1000, delay: p.delayMs })) }, mark: { type: 'point', filled: true, size: 6, opacity: 0.7 }, encoding: { x, y: y('delay'), color: colour(packet) } },
      { name: markName(direction, 'p95signal'), data: { values: [{ delay: sd.p95 }] }, mark: { type: 'rule', strokeWidth: 3, opacity: 0.6, strokeDash: [6, 3] }, encoding: { y: y('delay'), color: colour(signal) } },
      { name: markName(direction, 'p95packet'), data: { values: [{ delay: q.p95 }] }, mark: { type: 'rule', strokeWidth: 3, opacity: 0.6 }, encoding: { y: y('delay'), color: colour(packet) } },
    ],
  };
}

/**
 * The whole graph: for each direction (in the order given), its throughput
 * graph above its delay graph; directions side by side.
 */
export function linkGraphSpec(directions: readonly LinkDirectionSeries[]): TopLevelSpec {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    background: 'white',
    padding: 10,
    hconcat: directions.map((s, i) => ({
      title: { text: s.title, anchor: 'start' },
      vconcat: [throughputSpec(s, i), delaySpec(s, i)],
      resolve: { scale: { color: 'independent' } },
    })),
    resolve: { scale: { color: 'independent' } },
    config: { view: { stroke: '#ccc' }, legend: { symbolType: 'stroke' } },
  } as unknown as TopLevelSpec;
}
