// A run's marks in the eval (pure): those its summary gives (results/marks.ts)
// and 'degenerate' when its p95 delay is off its scenario's picture (beyond
// OFF_SCALE_FACTOR x the scenario's median p95: drawn at the axis's edge).
import { OFF_SCALE_FACTOR, formatMs } from '../plots/scenario-layout.ts';
import { summaryMarks } from '../results/marks.ts';
import type { Summary } from '../results/summary.ts';
import type { RowMark } from '../results/table.ts';

export function runMarks(s: Summary, offScaleLimit: number): RowMark[] {
  const marks = summaryMarks(s);
  const p95 = s.signalDelayMs.p95;
  if (Number.isFinite(p95) && p95 > offScaleLimit) marks.push({ kind: 'degenerate', text: `p95 delay ${formatMs(p95)}, over ${OFF_SCALE_FACTOR}x the scenario's median: off the plot's scale` });
  return marks;
}
