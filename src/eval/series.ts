// A run's time series for its plot, in bins of BIN_MS over the whole run:
// the downlink trace's capacity (none while an on-off link is off), the video
// sent (each sent frame's bytes when its first datagram left) and delivered (each frame's bytes when
// its last datagram reached the receiver), the signal delay of the frames
// captured in the bin (least, median and largest: a 640 s run has 38,400
// frames, too many points for a picture), the mean SSIM of the frames shown,
// and the skipped and lost frames. Pure: a function of the records and the trace.
import { ssimToDb } from '../codec-bridge/ssim-db.ts';
import type { Trace } from '../link-emu/trace.ts';
import type { FrameRecord } from '../results/frame-record.ts';

export const BIN_MS = 500;

export interface SeriesBin {
  /** Start of the bin (s of the run's clock). */
  readonly t: number;
  readonly capacityMbps: number;
  readonly sentMbps: number;
  readonly deliveredMbps: number;
  /** Signal delay of the frames captured in the bin (ms): null for a bin without frames. */
  readonly delayMinMs: number | null;
  readonly delayMedianMs: number | null;
  readonly delayMaxMs: number | null;
  /** Mean SSIM (dB, of the linear mean) of the frames shown in the bin; null if none. */
  readonly ssimDb: number | null;
  readonly skipped: number;
  readonly lost: number;
}

export interface SeriesLink {
  /** The downlink's trace; null: a constant rate of `constantMbps`. */
  readonly trace: Trace | null;
  readonly constantMbps?: number;
  /** Bytes per delivery opportunity. */
  readonly mtu: number;
  /** When the link was off ([from, to) ms, sorted): no capacity then. */
  readonly offMs?: readonly (readonly [number, number])[];
}

/** Whether the link is on at `t` (ms), given its sorted off periods. */
function onAt(offMs: readonly (readonly [number, number])[], t: number): boolean {
  let lo = 0;
  let hi = offMs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (offMs[mid]![1] <= t) lo = mid + 1;
    else hi = mid;
  }
  return !(lo < offMs.length && offMs[lo]![0] <= t);
}

/** The ms of [from, to) the link is off. */
function offWithin(offMs: readonly (readonly [number, number])[], from: number, to: number): number {
  let ms = 0;
  for (const [a, b] of offMs) ms += Math.max(0, Math.min(b, to) - Math.max(a, from));
  return ms;
}

/** The bins of [0, endMs): capacity from the link's trace or constant rate, less its off periods. */
export function runSeries(frames: readonly FrameRecord[], endMs: number, link: SeriesLink): SeriesBin[] {
  const n = Math.max(1, Math.ceil(endMs / BIN_MS));
  const offMs = link.offMs ?? [];
  const capacity = new Float64Array(n);
  if (link.trace) {
    const { times, period } = link.trace;
    for (let base = 0; base < endMs; base += period) {
      for (let i = 0; i < times.length; i++) {
        const t = base + times[i]!;
        if (t >= endMs) break;
        if (onAt(offMs, t)) capacity[Math.floor(t / BIN_MS)]! += link.mtu;
      }
    }
  }
  const sent = new Float64Array(n);
  const delivered = new Float64Array(n);
  const delays: number[][] = Array.from({ length: n }, () => []);
  const ssimSum = new Float64Array(n);
  const ssimCount = new Uint32Array(n);
  const skipped = new Uint32Array(n);
  const lost = new Uint32Array(n);
  const binOf = (ms: number) => Math.min(n - 1, Math.floor(ms / BIN_MS));
  for (const f of frames) {
    const b = binOf(f.captureMs);
    delays[b]!.push(f.signalDelayMs);
    if (f.fate === 'skipped') skipped[b]!++;
    if (f.fate === 'lost') lost[b]!++;
    if (f.sendMs !== undefined && f.bytes !== undefined) sent[binOf(f.sendMs)]! += f.bytes;
    if (f.lastArrivalMs !== undefined && f.bytes !== undefined) delivered[binOf(f.lastArrivalMs)]! += f.bytes;
    if (f.shownMs !== undefined && f.ssim !== undefined) {
      const s = binOf(f.shownMs);
      ssimSum[s]! += f.ssim;
      ssimCount[s]!++;
    }
  }
  const mbps = (bytes: number) => round((bytes * 8) / (BIN_MS * 1000), 4);
  const bins: SeriesBin[] = [];
  for (let b = 0; b < n; b++) {
    const d = delays[b]!.sort((x, y) => x - y);
    bins.push({
      t: (b * BIN_MS) / 1000,
      capacityMbps: link.trace ? mbps(capacity[b]!) : round(((link.constantMbps ?? 0) * (BIN_MS - offWithin(offMs, b * BIN_MS, (b + 1) * BIN_MS))) / BIN_MS, 4),
      sentMbps: mbps(sent[b]!),
      deliveredMbps: mbps(delivered[b]!),
      delayMinMs: d.length ? round(d[0]!, 3) : null,
      delayMedianMs: d.length ? round(d[Math.floor((d.length - 1) / 2)]!, 3) : null,
      delayMaxMs: d.length ? round(d[d.length - 1]!, 3) : null,
      ssimDb: ssimCount[b]! > 0 ? finiteOrNull(round(ssimToDb(ssimSum[b]! / ssimCount[b]!), 3)) : null,
      skipped: skipped[b]!,
      lost: lost[b]!,
    });
  }
  return bins;
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

function finiteOrNull(x: number): number | null {
  return Number.isFinite(x) ? x : null;
}
