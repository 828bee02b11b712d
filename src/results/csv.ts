// The per-frame records as CSV (one line per source frame), and summaries as
// CSV (one line per run, every fate counted in its own column).
import { ssimToDb } from '../codec-bridge/ssim-db.ts';
import type { FrameRecord } from './frame-record.ts';
import type { Summary } from './summary.ts';

export type Cell = number | string | boolean | undefined;

function cell(v: Cell): string {
  if (v === undefined) return '';
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return Number.isNaN(v) ? '' : v > 0 ? 'inf' : '-inf';
    return Number.isInteger(v) ? String(v) : v.toFixed(6).replace(/0+$/, '').replace(/\.$/, '');
  }
  return /[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/** One CSV line of cells, each formatted as every results CSV formats it. */
export const csvLine = (cells: readonly Cell[]) => cells.map(cell).join(',');
const line = csvLine;

export const FRAME_COLUMNS = [
  'source_index', 'capture_ms', 'fate', 'frame_number', 'send_ms', 'bytes', 'quantizer', 'key_frame',
  'first_arrival_ms', 'last_arrival_ms', 'shown_ms', 'ssim', 'ssim_db', 'display_ms', 'signal_delay_ms',
] as const;

export function framesToCsv(frames: readonly FrameRecord[]): string {
  const lines = [FRAME_COLUMNS.join(',')];
  for (const f of frames) {
    lines.push(line([
      f.sourceIndex, f.captureMs, f.fate, f.frameNumber, f.sendMs, f.bytes, f.quantizer, f.keyFrame,
      f.firstArrivalMs, f.lastArrivalMs, f.shownMs, f.ssim, f.ssim === undefined ? undefined : ssimToDb(f.ssim), f.displayMs, f.signalDelayMs,
    ]));
  }
  return lines.join('\n') + '\n';
}

export const SUMMARY_COLUMNS = [
  'run', 'delay_mean_ms', 'delay_p5_ms', 'delay_p95_ms', 'ssim_mean_db', 'ssim_p5_db', 'ssim_p95_db',
  'captured', 'sent', 'shown', 'never_shown', 'lost', 'skipped', 'superseded', 'not_caught_up', 'bytes_sent', 'link_utilization',
] as const;

export function summariesToCsv(rows: readonly { readonly label: string; readonly summary: Summary }[]): string {
  const lines = [SUMMARY_COLUMNS.join(',')];
  for (const { label, summary: s } of rows) {
    lines.push(line([
      label, s.signalDelayMs.mean, s.signalDelayMs.p5, s.signalDelayMs.p95, s.ssimDb.mean, s.ssimDb.p5, s.ssimDb.p95,
      s.framesCaptured, s.framesSent, s.framesShown, s.framesNeverShown, s.framesLost, s.framesSkipped, s.framesSuperseded,
      s.framesNotCaughtUp, s.bytesSent, s.linkUtilization,
    ]));
  }
  return lines.join('\n') + '\n';
}
