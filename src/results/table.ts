// The toolkit's one terminal table (cli-table3): columns declared once, each
// either shown by default or only with --wide; by default a table fits
// TABLE_WIDTH columns (its wrappable columns, such as the run names, wrapped
// at spaces, widest first, never below their longest word), with --wide every
// column at its natural width. Used by `salsify sim`, `analyze`, `eval` and
// `webrtc` (the results table: one row per run, the paper's figures by
// default: delay mean and p95, SSIM mean and p5, the frames shown, lost and
// skipped, the link use; every figure and fate with --wide) and by `ccbench
// rfc8867`.
import Table from 'cli-table3';
import type { Summary } from './summary.ts';

export const TABLE_WIDTH = 100;

export interface Column<Row> {
  /** Header; '\n' breaks it into lines (short headers keep a table narrow). */
  readonly head: string;
  readonly cell: (row: Row) => string;
  /** Shown only with --wide. */
  readonly wide?: boolean;
  /** Wrapped (at spaces) to fit the width. */
  readonly wrap?: boolean;
  readonly align?: 'left' | 'right';
}

export interface TableOptions {
  /** Every column, at its natural width. */
  readonly wide?: boolean;
  /** Default TABLE_WIDTH (without --wide). */
  readonly maxWidth?: number;
}

const lineWidth = (text: string) => Math.max(0, ...text.split('\n').map((l) => [...l].length));

export function formatTable<Row>(columns: readonly Column<Row>[], rows: readonly Row[], options: TableOptions = {}): string {
  const shown = columns.filter((c) => options.wide || !c.wide);
  const cells = rows.map((r) => shown.map((c) => c.cell(r)));
  // Natural widths, with cli-table3's one space of padding each side.
  const widths = shown.map((c, i) => 2 + Math.max(lineWidth(c.head), ...cells.map((r) => lineWidth(r[i]!))));
  const total = () => widths.reduce((a, b) => a + b, 0) + shown.length + 1;
  const maxWidth = options.maxWidth ?? TABLE_WIDTH;
  if (!options.wide) {
    // Wrap the widest wrappable column first, a column at a time, never below its longest word (no name is cut).
    const least = shown.map((c, i) => 2 + Math.max(lineWidth(c.head), ...cells.map((r) => Math.max(0, ...r[i]!.split(/\s+/).map((w) => [...w].length)))));
    while (total() > maxWidth) {
      const candidates = shown.map((c, i) => i).filter((i) => shown[i]!.wrap && widths[i]! > least[i]!);
      if (candidates.length === 0) break;
      const widest = candidates.reduce((a, b) => (widths[b]! > widths[a]! ? b : a));
      widths[widest] = Math.max(least[widest]!, widths[widest]! - (total() - maxWidth));
    }
  }
  const table = new Table({
    head: shown.map((c) => c.head),
    colWidths: widths,
    colAligns: shown.map((c) => c.align ?? 'left'),
    wordWrap: true,
    wrapOnWordBoundary: true,
    style: { head: [], border: [], compact: true },
  });
  for (const r of cells) table.push(r);
  return table.toString();
}

/** A figure the summary marks: 'invalid' (not to be compared), 'degenerate' (the scheme failed), 'note' (a caveat). */
export interface RowMark {
  readonly kind: 'invalid' | 'degenerate' | 'note';
  readonly text: string;
}

export interface TableRow {
  readonly label: string;
  readonly summary: Summary;
  /** Wall-clock time the run took, when it is known (a column with --wide, when any row has one). */
  readonly wallMs?: number;
  /** Across seeds: the least and greatest p95 delay and mean SSIM, and how many runs the row's figures are the mean of. */
  readonly spread?: { readonly runs: number; readonly p95DelayMs: readonly [number, number]; readonly ssimDb: readonly [number, number] };
  readonly marks?: readonly RowMark[];
}

const fixed = (x: number | null, digits = 1) => (x !== null && Number.isFinite(x) ? x.toFixed(digits) : '-');
/** A count, '-' when unknown (NaN: a published row has no counts). */
const count = (n: number) => (!Number.isFinite(n) ? '-' : Number.isInteger(n) ? String(n) : n.toFixed(1));
const range = (r: readonly [number, number] | undefined, digits: number) => (!r ? '' : Number.isFinite(r[0]) ? `${fixed(r[0], digits)}-${fixed(r[1], digits)}` : '-');
const MARK_SIGN = { invalid: '!', degenerate: '*', note: '' } as const;

/** The row's name with '!' (invalid) or '*' (degenerate) after it. */
function markedLabel(row: TableRow): string {
  const signs = [...new Set((row.marks ?? []).map((m) => MARK_SIGN[m.kind]).filter((s) => s))].join('');
  return signs ? `${row.label} ${signs}` : row.label;
}

export function resultColumns(rows: readonly TableRow[]): Column<TableRow>[] {
  const spread = rows.some((r) => r.spread);
  const wall = rows.some((r) => r.wallMs !== undefined);
  const columns: (Column<TableRow> | false)[] = [
    { head: 'run', cell: markedLabel, wrap: true },
    { head: 'delay\nmean ms', cell: (r) => fixed(r.summary.signalDelayMs.mean), align: 'right', wide: spread },
    { head: 'p5', cell: (r) => fixed(r.summary.signalDelayMs.p5), align: 'right', wide: true },
    { head: 'delay\np95 ms', cell: (r) => fixed(r.summary.signalDelayMs.p95), align: 'right' },
    spread && { head: 'p95 range\nof seeds', cell: (r) => range(r.spread?.p95DelayMs, 0), align: 'right' },
    { head: 'SSIM\nmean dB', cell: (r) => fixed(r.summary.ssimDb.mean, 2), align: 'right' },
    { head: 'SSIM\np5 dB', cell: (r) => fixed(r.summary.ssimDb.p5, 2), align: 'right', wide: spread },
    { head: 'p95 (dB)', cell: (r) => fixed(r.summary.ssimDb.p95, 2), align: 'right', wide: true },
    spread && { head: 'SSIM range\nof seeds', cell: (r) => range(r.spread?.ssimDb, 2), align: 'right' },
    { head: 'captured', cell: (r) => count(r.summary.framesCaptured), align: 'right', wide: true },
    { head: 'shown', cell: (r) => count(r.summary.framesShown), align: 'right' },
    { head: 'never\nshown', cell: (r) => count(r.summary.framesNeverShown), align: 'right', wide: true },
    { head: 'lost', cell: (r) => count(r.summary.framesLost), align: 'right' },
    { head: 'skip-\nped', cell: (r) => count(r.summary.framesSkipped), align: 'right', wide: spread },
    { head: 'super-\nseded', cell: (r) => count(r.summary.framesSuperseded), align: 'right', wide: true },
    { head: 'sent\nMB', cell: (r) => fixed(r.summary.bytesSent / 1e6, 2), align: 'right', wide: true },
    { head: 'link\nuse %', cell: (r) => fixed(100 * r.summary.linkUtilization), align: 'right' },
    wall && { head: 'wall s', cell: (r) => (r.wallMs === undefined ? '-' : fixed(r.wallMs / 1000, 2)), align: 'right', wide: true },
  ];
  return columns.filter((c): c is Column<TableRow> => c !== false);
}

/** The rows' marks as footnotes: "! name: text" (nothing when no row is marked). */
export function markNotes(rows: readonly TableRow[]): string {
  const lines = rows.flatMap((r) => (r.marks ?? []).map((m) => `${MARK_SIGN[m.kind] || '-'} ${m.kind === 'note' ? 'note' : m.kind}: ${r.label}: ${m.text}`));
  return lines.length ? `${lines.join('\n')}\n` : '';
}

export function formatResultsTable(rows: readonly TableRow[], options: TableOptions = {}): string {
  const notes = markNotes(rows);
  return formatTable(resultColumns(rows), rows, options) + (notes ? `\n${notes.trimEnd()}` : '');
}
