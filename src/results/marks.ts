// What a run's figures cannot be trusted for, read from its summary alone
// (pure): 'invalid' when a figure is not what it claims (no frame was shown,
// so the SSIM is unknown; more bytes left the link than it could carry),
// 'degenerate' when the scheme failed (fewer than one frame in twenty shown),
// 'note' for a caveat (frames never caught up count only a lower bound of
// their delay). Tables and the report print them beside the row.
import type { Summary } from './summary.ts';
import type { RowMark } from './table.ts';

/** Link use this far above 1 is more than rounding: the measurement is inconsistent. */
const LINK_USE_SLACK = 0.0005;

export function summaryMarks(s: Summary): RowMark[] {
  const marks: RowMark[] = [];
  if (s.framesCaptured > 0 && s.framesShown === 0) marks.push({ kind: 'invalid', text: `no frame shown (0 of ${s.framesCaptured}): SSIM unknown` });
  else if (s.framesShown > 0 && s.framesShown < s.framesCaptured / 20) marks.push({ kind: 'degenerate', text: `${s.framesShown} of ${s.framesCaptured} frames shown` });
  if (s.linkUtilization > 1 + LINK_USE_SLACK) marks.push({ kind: 'invalid', text: `link use ${(100 * s.linkUtilization).toFixed(1)} %, above what the link carried` });
  if (s.framesNotCaughtUp > 0 && s.framesShown > 0) marks.push({ kind: 'note', text: `${s.framesNotCaughtUp} frames never caught up: their delay is a lower bound` });
  return marks;
}

/** A real-time run's verdict (validity.ts) as marks: one 'invalid' mark per reason. */
export function validityMarks(validity: { readonly verdict: string; readonly reasons: readonly string[] } | undefined): RowMark[] {
  if (validity === undefined || validity.verdict === 'valid') return [];
  return validity.reasons.map((reason) => ({ kind: 'invalid' as const, text: `real time: ${reason}` }));
}
