// The results table printed by `salsify sim` and `salsify analyze`: one row
// per run, every figure of the summary, each fate in its own column.
import Table from 'cli-table3';
import type { Summary } from './summary.ts';

export interface TableRow {
  readonly label: string;
  readonly summary: Summary;
  /** Wall-clock time the run took, when it is worth showing. */
  readonly wallMs?: number;
}

const fixed = (x: number, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : '-');
/** A count, '-' when unknown (NaN: a published row has no counts). */
const count = (n: number) => (Number.isFinite(n) ? String(n) : '-');

export function formatResultsTable(rows: readonly TableRow[]): string {
  const table = new Table({
    head: [
      'run', 'delay mean', 'p5', 'p95 (ms)', 'SSIM mean', 'p5', 'p95 (dB)',
      'captured', 'shown', 'never shown', 'lost', 'skipped', 'superseded', 'sent (MB)', 'link use', 'wall (s)',
    ],
    style: { head: [], border: [] },
  });
  for (const { label, summary: s, wallMs } of rows) {
    table.push([
      label, fixed(s.signalDelayMs.mean), fixed(s.signalDelayMs.p5), fixed(s.signalDelayMs.p95),
      fixed(s.ssimDb.mean, 2), fixed(s.ssimDb.p5, 2), fixed(s.ssimDb.p95, 2),
      count(s.framesCaptured), count(s.framesShown), count(s.framesNeverShown), count(s.framesLost),
      count(s.framesSkipped), count(s.framesSuperseded),
      fixed(s.bytesSent / 1e6, 2), Number.isFinite(s.linkUtilization) ? `${fixed(100 * s.linkUtilization)} %` : '-',
      wallMs === undefined ? '-' : fixed(wallMs / 1000, 2),
    ]);
  }
  return table.toString();
}
