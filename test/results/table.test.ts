// The toolkit's one terminal table: 100 columns by default (the run names
// wrapped, the paper's figures kept), every column with --wide, the wall time
// only when known; rows marked invalid or degenerate with the reason below.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { summaryMarks } from '../../src/results/marks.ts';
import type { Summary } from '../../src/results/summary.ts';
import { formatResultsTable, formatTable, TABLE_WIDTH, type TableRow } from '../../src/results/table.ts';

const summary = (over: Partial<Summary> = {}): Summary => ({
  signalDelayMs: { mean: 12345.6, p5: 4515.8, p95: 44834.1 }, ssimDb: { mean: 10.69, p5: 8.79, p95: 15.39 },
  framesCaptured: 38400, framesSent: 20000, framesShown: 18000, framesNeverShown: 1000, framesLost: 1000, framesSkipped: 17000,
  framesSuperseded: 1400, framesNotCaughtUp: 0, bytesSent: 123456789, linkUtilization: 0.914, ...over,
});
const widest = (text: string) => Math.max(...text.split('\n').map((l) => [...l].length));
const rows: TableRow[] = [
  { label: 'verizon-lte Salsify-conventional-1s (paper)', summary: summary() },
  { label: 'tmobile-umts salsify-targetsize seed 1000', summary: summary(), wallMs: 1234 },
  { label: 'wifi conventional-1s', summary: summary({ framesShown: 0, ssimDb: { mean: NaN, p5: NaN, p95: NaN }, linkUtilization: 1.001 }), marks: summaryMarks(summary({ framesShown: 0, linkUtilization: 1.001 })) },
];

test('the results table fits 100 columns by default, and --wide has every column at its natural width', () => {
  const narrow = formatResultsTable(rows);
  assert.ok(widest(narrow) <= TABLE_WIDTH, `${widest(narrow)} columns:\n${narrow}`);
  // The paper's figures stay: p95 delay and mean SSIM.
  assert.match(narrow, /44834\.1/);
  assert.match(narrow, /10\.69/);
  assert.not.match(narrow, /wall/, 'the wall time is --wide only');
  const wide = formatResultsTable(rows, { wide: true });
  assert.ok(widest(wide) > TABLE_WIDTH);
  for (const head of ['captured', 'never', 'super-', 'sent', 'wall s']) assert.match(wide, head);
  assert.match(wide, /│\s+1\.23 │/, 'the wall time where known');
  assert.match(wide, /│\s+- │\n/, "'-' where not");
});

test('a table without a wall time has no wall column, even with --wide', () => {
  assert.not.match(formatResultsTable([rows[0]!], { wide: true }), /wall/);
});

test('invalid rows: a sign after the name, the reason under the table', () => {
  const text = formatResultsTable(rows);
  assert.match(text, /wifi conventional-1s !/);
  assert.match(text, /^! invalid: wifi conventional-1s: no frame shown \(0 of 38400\): SSIM unknown$/m);
  assert.match(text, /^! invalid: wifi conventional-1s: link use 100\.1 %, above what the link carried$/m);
});

test('summary marks: none for a sound run; degenerate when almost no frame was shown; a note for delays that are lower bounds', () => {
  assert.equal(summaryMarks(summary()), []);
  assert.equal(summaryMarks(summary({ framesShown: 100 })).map((m) => m.kind), ['degenerate']);
  assert.equal(summaryMarks(summary({ framesNotCaughtUp: 3 })).map((m) => m.kind), ['note']);
  assert.equal(summaryMarks(summary({ linkUtilization: 1.0004 })), [], 'rounding is not a fault');
});

test('formatTable: a wrapped column shrinks to fit; other columns keep their width', () => {
  const text = formatTable([
    { head: 'name', cell: (r: string) => r, wrap: true },
    { head: 'figure', cell: () => '123456789', align: 'right' },
  ], ['a very long name that does not fit in the width given to this table at all'], { maxWidth: 40 });
  assert.ok(widest(text) <= 40, text);
  assert.match(text, /123456789/);
});

test.run();
