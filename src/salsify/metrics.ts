// The figures of a run, exactly as ../shared/reference/README.md defines them.
//
// Signal delay: source frame i, captured at c_i, counts d_i - c_i, where d_i is
// the time frame i or any later source frame is first shown. A frame that is
// never caught up by the end of the run (time E) counts with E - c_i, a lower
// bound of its delay, so that the statistics still cover every source frame;
// such frames are counted in `framesNeverDisplayed` and flagged in the records.
// SSIM: per shown frame (luma SSIM as ffmpeg's ssim filter computes it, from
// the codec bridge; or the model codec's modelled figure),
// against the source frame it was encoded from. Means and percentiles are
// taken over linear SSIM values, then converted to dB.
// Percentiles interpolate linearly between the closest ranks (p in 0..100 over
// the sorted values x_0..x_{n-1}: position p/100 x (n - 1)).

import { ssimToDb } from '../codec-bridge/ssim-db.ts';

/** SSIM in decibels: 10 log10(1 / (1 - ssim)); Infinity for identical pictures. */
export { ssimToDb };

export interface FrameRecord {
  readonly sourceIndex: number;
  readonly captureMs: number;
  /** What the sender did with the frame. */
  readonly fate: 'sent' | 'skipped' | 'superseded';
  readonly frameNumber?: number;
  readonly bytes?: number;
  readonly quantizer?: number;
  readonly keyFrame?: boolean;
  /** When this very frame was shown, if it was. */
  readonly shownMs?: number;
  readonly ssim?: number;
  /** When this frame or a later one was first shown, if ever. */
  readonly displayedMs?: number;
  /** d_i - c_i; for a frame never caught up, end of run - c_i (a lower bound). */
  readonly signalDelayMs: number;
}

export interface Distribution {
  readonly mean: number;
  readonly p5: number;
  readonly p95: number;
}

export interface Summary {
  readonly signalDelayMs: Distribution;
  readonly ssimDb: Distribution;
  readonly framesCaptured: number;
  readonly framesSent: number;
  readonly framesShown: number;
  readonly framesSkipped: number;
  readonly framesNeverDisplayed: number;
  /** Bytes of every datagram the sender sent (headers included, not the link's 32-byte overhead). */
  readonly bytesSent: number;
  /**
   * Bytes the downlink delivered while frames were being captured (each
   * datagram counting its size + 32, as the link sees it) over what it could
   * have delivered in that time: 1504 bytes x its delivery opportunities.
   */
  readonly linkUtilization: number;
}

export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be in 0..100, got ${p}`);
  const pos = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.min(sorted.length - 1, lo + 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

export function distribution(values: readonly number[]): Distribution {
  if (values.length === 0) return { mean: NaN, p5: NaN, p95: NaN };
  const sorted = Float64Array.from(values).sort();
  let sum = 0;
  for (const v of values) sum += v;
  return { mean: sum / values.length, p5: percentile(sorted, 5), p95: percentile(sorted, 95) };
}

/** d_i for every source frame: the earliest first-show time of frame i or any later frame (undefined if none). */
export function displayTimes(frameCount: number, firstShown: ReadonlyMap<number, number>): (number | undefined)[] {
  const out: (number | undefined)[] = new Array(frameCount);
  let best = Infinity;
  for (let i = frameCount - 1; i >= 0; i--) {
    const t = firstShown.get(i);
    if (t !== undefined && t < best) best = t;
    out[i] = best === Infinity ? undefined : best;
  }
  return out;
}

export interface SenderLogView {
  readonly captures: ReadonlyMap<number, number>;
  readonly sent: ReadonlyMap<number, { frameNumber: number; bytes: number; quantizer: number; keyFrame: boolean }>;
  readonly skipped: ReadonlySet<number>;
}

/** Joins what the sender captured and sent with what the receiver showed (by frame number) into per-frame records. */
export function frameRecords(
  log: SenderLogView,
  shown: ReadonlyMap<number, { shownMs: number; ssim: number }>,
  endMs: number,
): FrameRecord[] {
  const count = log.captures.size;
  const firstShown = new Map<number, number>();
  for (const [index, s] of log.sent) {
    const show = shown.get(s.frameNumber);
    if (show) firstShown.set(index, show.shownMs);
  }
  const displayed = displayTimes(count, firstShown);
  const records: FrameRecord[] = [];
  for (let i = 0; i < count; i++) {
    const captureMs = log.captures.get(i);
    if (captureMs === undefined) throw new Error(`sender log has no capture of frame ${i} but ${count} captures`);
    const s = log.sent.get(i);
    const show = s ? shown.get(s.frameNumber) : undefined;
    const d = displayed[i];
    records.push({
      sourceIndex: i,
      captureMs,
      fate: s ? 'sent' : log.skipped.has(i) ? 'skipped' : 'superseded',
      frameNumber: s?.frameNumber,
      bytes: s?.bytes,
      quantizer: s?.quantizer,
      keyFrame: s?.keyFrame,
      shownMs: show?.shownMs,
      ssim: show?.ssim,
      displayedMs: d,
      signalDelayMs: (d ?? endMs) - captureMs,
    });
  }
  return records;
}

export function summarize(records: readonly FrameRecord[], bytesSent: number, linkUtilization: number): Summary {
  const delays: number[] = [];
  const ssims: number[] = [];
  let sent = 0, shown = 0, never = 0;
  for (const r of records) {
    delays.push(r.signalDelayMs);
    if (r.displayedMs === undefined) never++;
    if (r.fate === 'sent') sent++;
    if (r.ssim !== undefined) {
      ssims.push(r.ssim);
      shown++;
    }
  }
  const s = distribution(ssims);
  return {
    signalDelayMs: distribution(delays),
    ssimDb: { mean: ssimToDb(s.mean), p5: ssimToDb(s.p5), p95: ssimToDb(s.p95) },
    framesCaptured: records.length,
    framesSent: sent,
    framesShown: shown,
    framesSkipped: records.length - sent,
    framesNeverDisplayed: never,
    bytesSent,
    linkUtilization,
  };
}

const CSV_COLUMNS = ['source_index', 'capture_ms', 'fate', 'frame_number', 'bytes', 'quantizer', 'key_frame', 'shown_ms', 'ssim', 'ssim_db', 'displayed_ms', 'signal_delay_ms'] as const;

function cell(v: number | string | boolean | undefined): string {
  if (v === undefined) return '';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : v.toFixed(6).replace(/0+$/, '').replace(/\.$/, '');
  return String(v);
}

/** The per-frame records as CSV (header line, one line per source frame). */
export function recordsToCsv(records: readonly FrameRecord[]): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const r of records) {
    lines.push([
      r.sourceIndex, r.captureMs, r.fate, r.frameNumber, r.bytes, r.quantizer, r.keyFrame === undefined ? undefined : r.keyFrame ? 1 : 0,
      r.shownMs, r.ssim, r.ssim === undefined ? undefined : ssimToDb(r.ssim), r.displayedMs, r.signalDelayMs,
    ].map(cell).join(','));
  }
  return lines.join('\n') + '\n';
}
