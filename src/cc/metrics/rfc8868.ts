// RFC 8868's metrics of a multi-flow run, per flow and per case: the rate
// over time, link utilisation, queueing-delay percentiles, loss, Jain's
// fairness index among flows of the same controller, and the convergence
// time after each capacity change. Pure: a function of the run's records
// (flow-records.ts), its flows and the capacity of each direction.
//
// Definitions (all on the shared link; sizes are bytes on the link, the
// payload plus the per-datagram overhead, as the capacity counts them):
// - rate: bits a flow got through the link per bin (default 1 s), and bits it
//   sent per bin (for Salsify, which has no target rate, its frame sizes
//   against the capacity); capacity: the link's opportunities per bin x MTU.
// - utilisation: bits delivered / capacity, over the flow's active time (its
//   start to its stop, pauses excluded) for a flow, over the whole run for a
//   direction (every flow's bits).
// - queueing delay: from a datagram's arrival at the link to its departure
//   (mm-link's per-packet delay: waiting in the queue and for opportunities);
//   mean, p50, p95, p99 over the flow's datagrams.
// - loss: datagrams dropped at the link / datagrams that reached it.
// - fairness: Jain's index (sum x)^2 / (n sum x^2) over the mean rates of the
//   flows of one controller in one direction, over the bins in which all of
//   them are active, after `fairnessSettleMs` from the latest start or resume.
// - convergence after a capacity change at t to capacity C: the time from t
//   to the start of the first bin from which, up to the next change (or the
//   end), every bin has the measured flows' aggregate rate within
//   [convergedLow, convergedHigh] x C and a mean queueing delay at most
//   convergedDelayMs. null if it never does.
import { percentile } from '../../results/statistics.ts';
import type { Trace } from '../../link-emu/trace.ts';
import type { BottleneckResult, FlowDirection, FlowRun } from '../sim/bottleneck.ts';
import type { FlowRecorder } from './flow-records.ts';

export interface MetricOptions {
  /** Bin of the rate series, ms (default 1000). */
  readonly binMs?: number;
  readonly fairnessSettleMs?: number;
  readonly convergedLow?: number;
  readonly convergedHigh?: number;
  readonly convergedDelayMs?: number;
}

export const DEFAULT_METRIC_OPTIONS: Required<MetricOptions> = {
  binMs: 1000,
  fairnessSettleMs: 10_000,
  convergedLow: 0.7,
  convergedHigh: 1.05,
  convergedDelayMs: 100,
};

export interface DelayPercentiles {
  readonly mean: number | null;
  readonly p50: number | null;
  readonly p95: number | null;
  readonly p99: number | null;
  /** The longest wait of any packet (the case's queue bound caps it). */
  readonly max: number | null;
}

export interface FlowMetrics {
  readonly flowId: number;
  readonly label: string;
  readonly controller: string;
  readonly direction: FlowDirection;
  readonly delayMs: number;
  readonly startMs: number;
  readonly stopMs: number;
  readonly pauses: ReadonlyArray<readonly [number, number]>;
  /** Datagrams sent, that reached the link, dropped there, delivered. */
  readonly packetsSent: number;
  readonly packetsAtLink: number;
  readonly packetsDropped: number;
  readonly packetsDelivered: number;
  readonly bitsSent: number;
  readonly bitsDelivered: number;
  /** Mean rate delivered while active, kbit/s. */
  readonly meanRateKbps: number;
  /** Its share of the capacity while active. */
  readonly utilisation: number;
  readonly lossRate: number;
  readonly queueingDelayMs: DelayPercentiles;
  /** Per bin: kbit/s delivered, kbit/s sent, the mean target bitrate (kbit/s, null without one or when not sampled). */
  readonly rateKbps: readonly number[];
  readonly sendRateKbps: readonly number[];
  readonly targetKbps: ReadonlyArray<number | null>;
  /** Per bin: mean queueing delay of its departures, ms (null for a bin without any). */
  readonly queueingDelaySeriesMs: ReadonlyArray<number | null>;
}

export interface DirectionMetrics {
  /** Per bin, kbit/s. */
  readonly capacityKbps: readonly number[];
  readonly capacityBits: number;
  readonly deliveredBits: number;
  readonly utilisation: number;
}

export interface FairnessMetric {
  readonly controller: string;
  readonly direction: FlowDirection;
  readonly flows: readonly number[];
  /** null when no bin has all of them active. */
  readonly jainIndex: number | null;
  readonly fromMs: number | null;
}

export interface ConvergenceMetric {
  readonly direction: FlowDirection;
  readonly atMs: number;
  readonly capacityMbps: number;
  /** null: never converged before the next change. */
  readonly convergenceMs: number | null;
}

export interface CaseMetrics {
  readonly binMs: number;
  readonly durationMs: number;
  readonly flows: readonly FlowMetrics[];
  readonly directions: Record<FlowDirection, DirectionMetrics>;
  readonly fairness: readonly FairnessMetric[];
  readonly convergence: readonly ConvergenceMetric[];
}

export interface CapacityChange {
  readonly atMs: number;
  readonly rateMbps: number;
}

export interface MetricInputs {
  readonly run: BottleneckResult;
  readonly records: FlowRecorder;
  readonly links: Record<FlowDirection, { readonly trace: Trace; readonly mtu: number; readonly changes: readonly CapacityChange[] }>;
  /** Flows whose aggregate rate the convergence looks at (default: every flow of the direction). */
  readonly measured?: (flow: FlowRun) => boolean;
}

const round = (x: number, digits = 3) => {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
};

function delays(values: readonly number[]): DelayPercentiles {
  if (values.length === 0) return { mean: null, p50: null, p95: null, p99: null, max: null };
  const sorted = Float64Array.from(values).sort();
  let sum = 0;
  for (const v of values) sum += v;
  return { mean: round(sum / values.length), p50: round(percentile(sorted, 50)), p95: round(percentile(sorted, 95)), p99: round(percentile(sorted, 99)), max: round(sorted[sorted.length - 1]!) };
}

/** Whether a flow is sending throughout [from, to): started, not stopped, not paused. */
export function activeThroughout(flow: Pick<FlowRun, 'startMs' | 'stopMs' | 'pauses'>, from: number, to: number): boolean {
  if (from < flow.startMs || to > flow.stopMs) return false;
  return flow.pauses.every(([p, r]) => to <= p || from >= r);
}

/** Active milliseconds of a flow within [0, end). */
function activeMs(flow: FlowRun, end: number): number {
  let total = Math.min(flow.stopMs, end) - flow.startMs;
  for (const [p, r] of flow.pauses) total -= Math.max(0, Math.min(r, end) - Math.min(p, end));
  return Math.max(0, total);
}

/** Sums `size` per bin of `binMs` (times in (k binMs, (k+1) binMs] go to bin k, as a link's delivery at t counts for the millisecond before t). */
function binSums(times: readonly number[], sizes: readonly number[], binMs: number, bins: number): number[] {
  const out = new Array<number>(bins).fill(0);
  for (let i = 0; i < times.length; i++) {
    const k = Math.min(bins - 1, Math.max(0, Math.ceil(times[i]! / binMs) - 1));
    out[k]! += sizes[i]!;
  }
  return out;
}

/** Capacity per bin (bits) of a trace used from time 0, repeating with its period. */
function capacityBins(trace: Trace, mtu: number, binMs: number, bins: number, durationMs: number): number[] {
  const out = new Array<number>(bins).fill(0);
  for (let base = 0; base < durationMs; base += trace.period) {
    for (const t of trace.times) {
      const at = base + t;
      if (at > durationMs) break;
      out[Math.min(bins - 1, Math.max(0, Math.ceil(at / binMs) - 1))]! += 8 * mtu;
    }
  }
  return out;
}

export function jainIndex(rates: readonly number[]): number {
  const sum = rates.reduce((a, b) => a + b, 0);
  const squares = rates.reduce((a, b) => a + b * b, 0);
  return squares === 0 ? 1 : (sum * sum) / (rates.length * squares);
}

export function computeCaseMetrics(inputs: MetricInputs, options: MetricOptions = {}): CaseMetrics {
  const o = { ...DEFAULT_METRIC_OPTIONS, ...options };
  const { run, records } = inputs;
  const { durationMs } = run;
  const binMs = o.binMs;
  const bins = Math.ceil(durationMs / binMs);
  const kbps = (bits: number) => round(bits / binMs, 3); // bits per ms = kbit/s
  const capacity = {} as Record<FlowDirection, number[]>;
  for (const d of ['forward', 'backward'] as const) capacity[d] = capacityBins(inputs.links[d].trace, inputs.links[d].mtu, binMs, bins, durationMs);

  const flows: FlowMetrics[] = run.flows.map((flow) => {
    const r = records.of(flow.direction, flow.flowId);
    const delivered = binSums(r.departures.time, r.departures.size, binMs, bins).map((b) => 8 * b);
    const sent = binSums(r.sent.time, r.sent.size, binMs, bins).map((b) => 8 * b);
    const delaySum = binSums(r.departures.time, r.departures.value, binMs, bins);
    const delayCount = binSums(r.departures.time, r.departures.time.map(() => 1), binMs, bins);
    const targetSum = binSums(flow.targetBitrate.map(([t]) => t + 1e-9), flow.targetBitrate.map(([, v]) => v), binMs, bins);
    const targetCount = binSums(flow.targetBitrate.map(([t]) => t + 1e-9), flow.targetBitrate.map(() => 1), binMs, bins);
    const bitsDelivered = delivered.reduce((a, b) => a + b, 0);
    const active = activeMs(flow, durationMs);
    let capacityActive = 0;
    for (let k = 0; k < bins; k++) if (activeThroughout(flow, k * binMs, Math.min(durationMs, (k + 1) * binMs))) capacityActive += capacity[flow.direction][k]!;
    const atLink = r.arrivals.length;
    return {
      flowId: flow.flowId, label: flow.label, controller: flow.factory, direction: flow.direction, delayMs: flow.delayMs,
      startMs: flow.startMs, stopMs: flow.stopMs, pauses: flow.pauses,
      packetsSent: r.sent.length, packetsAtLink: atLink, packetsDropped: r.drops.length, packetsDelivered: r.departures.length,
      bitsSent: 8 * r.sent.size.reduce((a, b) => a + b, 0), bitsDelivered,
      meanRateKbps: active > 0 ? round(bitsDelivered / active) : 0,
      utilisation: capacityActive > 0 ? round(bitsDelivered / capacityActive, 4) : 0,
      lossRate: atLink > 0 ? round(r.drops.length / atLink, 5) : 0,
      queueingDelayMs: delays(r.departures.value),
      rateKbps: delivered.map(kbps),
      sendRateKbps: sent.map(kbps),
      targetKbps: targetSum.map((s, k) => (targetCount[k]! > 0 ? round(s / targetCount[k]! / 1000, 3) : null)),
      queueingDelaySeriesMs: delaySum.map((s, k) => (delayCount[k]! > 0 ? round(s / delayCount[k]!, 3) : null)),
    };
  });

  const directions = {} as Record<FlowDirection, DirectionMetrics>;
  for (const d of ['forward', 'backward'] as const) {
    const capacityBits = capacity[d].reduce((a, b) => a + b, 0);
    const deliveredBits = flows.filter((f) => f.direction === d).reduce((a, f) => a + f.bitsDelivered, 0);
    directions[d] = { capacityKbps: capacity[d].map(kbps), capacityBits, deliveredBits, utilisation: capacityBits > 0 ? round(deliveredBits / capacityBits, 4) : 0 };
  }

  const fairness: FairnessMetric[] = [];
  const groups = new Map<string, FlowRun[]>();
  for (const flow of run.flows) {
    const key = `${flow.direction}\u0000${flow.factory}`;
    groups.set(key, [...(groups.get(key) ?? []), flow]);
  }
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    const settledFrom = Math.max(...group.flatMap((f) => [f.startMs, ...f.pauses.map(([, r]) => r)])) + o.fairnessSettleMs;
    const usable: number[] = [];
    for (let k = 0; k < bins; k++) {
      const from = k * binMs;
      const to = Math.min(durationMs, from + binMs);
      if (from >= settledFrom && group.every((f) => activeThroughout(f, from, to))) usable.push(k);
    }
    const rates = group.map((f) => usable.reduce((a, k) => a + flows[f.flowId]!.rateKbps[k]!, 0));
    fairness.push({
      controller: group[0]!.factory, direction: group[0]!.direction, flows: group.map((f) => f.flowId),
      jainIndex: usable.length > 0 ? round(jainIndex(rates), 4) : null, fromMs: usable.length > 0 ? usable[0]! * binMs : null,
    });
  }

  const convergence: ConvergenceMetric[] = [];
  const measured = inputs.measured ?? (() => true);
  for (const d of ['forward', 'backward'] as const) {
    const changes = inputs.links[d].changes;
    const mine = run.flows.filter((f) => f.direction === d && measured(f));
    if (mine.length === 0 || changes.length === 0) continue;
    changes.forEach((change, i) => {
      const end = Math.min(durationMs, changes[i + 1]?.atMs ?? durationMs);
      const first = Math.ceil(change.atMs / binMs);
      const last = Math.floor(end / binMs); // bins [first, last) lie within the piece
      const good = (k: number) => {
        const rate = mine.reduce((a, f) => a + flows[f.flowId]!.rateKbps[k]!, 0);
        const cap = capacity[d][k]! / binMs;
        let delaySum = 0;
        let count = 0;
        for (const f of mine) {
          const q = flows[f.flowId]!.queueingDelaySeriesMs[k];
          if (q !== null && q !== undefined) {
            delaySum += q;
            count++;
          }
        }
        const delay = count > 0 ? delaySum / count : 0;
        return cap > 0 && rate >= o.convergedLow * cap && rate <= o.convergedHigh * cap && delay <= o.convergedDelayMs;
      };
      let from: number | null = null;
      for (let k = last - 1; k >= first; k--) {
        if (good(k)) from = k;
        else break;
      }
      convergence.push({ direction: d, atMs: change.atMs, capacityMbps: change.rateMbps, convergenceMs: from === null ? null : from * binMs - change.atMs });
    });
  }
  return { binMs, durationMs, flows, directions, fairness, convergence };
}
