// Checks that a run record keeps the schema's rules (frame-record.ts), so that
// every producer's records mean the same thing; the error names the run, the
// frame and the field.
import { FATES, SENT_FATES, type FrameRecord, type RunRecord } from './frame-record.ts';

export class RecordError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RecordError';
  }
}

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function checkFrame(label: string, f: FrameRecord, index: number): void {
  const fail = (field: string, want: string) => {
    throw new RecordError(`results of ${label}: frame ${index}: field "${field}" ${want}, got ${JSON.stringify((f as unknown as Record<string, unknown>)[field])}`);
  };
  if (f.sourceIndex !== index) fail('sourceIndex', `must be ${index} (frames in capture order)`);
  if (!finite(f.captureMs)) fail('captureMs', 'must be a finite number');
  if (!FATES.includes(f.fate)) fail('fate', `must be one of ${FATES.join(', ')}`);
  const sent = SENT_FATES.includes(f.fate);
  for (const k of ['frameNumber', 'sendMs', 'bytes'] as const) {
    if (sent !== (f[k] !== undefined)) fail(k, sent ? `must be set for a ${f.fate} frame` : `must be absent for a ${f.fate} frame`);
  }
  if (f.sendMs !== undefined && !(f.sendMs >= f.captureMs - 1)) fail('sendMs', `must be at or after the capture (${f.captureMs}, to 1 ms)`);
  if ((f.fate === 'shown') !== (f.shownMs !== undefined)) fail('shownMs', f.fate === 'shown' ? 'must be set for a shown frame' : `must be absent for a ${f.fate} frame`);
  if (f.ssim !== undefined && (f.fate !== 'shown' || !(f.ssim >= -1 && f.ssim <= 1))) fail('ssim', 'must be in [-1, 1], and only for a shown frame');
  // A shown frame without it was shown concealed from the datagrams that arrived (the Salsify receiver, as alfalfa's).
  if (f.fate === 'never-shown' && f.lastArrivalMs === undefined) fail('lastArrivalMs', `must be set for a ${f.fate} frame (all of it arrived)`);
  if (f.fate === 'shown' && f.firstArrivalMs === undefined) fail('firstArrivalMs', 'must be set for a shown frame (some of it arrived)');
  if (f.fate === 'lost' && f.lastArrivalMs !== undefined) fail('lastArrivalMs', 'must be absent for a lost frame');
  if (f.lastArrivalMs !== undefined && !(f.firstArrivalMs !== undefined && f.firstArrivalMs <= f.lastArrivalMs)) fail('firstArrivalMs', `must be set and at most lastArrivalMs (${f.lastArrivalMs})`);
  if (f.shownMs !== undefined && !(f.displayMs !== undefined && f.displayMs <= f.shownMs)) fail('displayMs', `must be at most the frame's own show (${f.shownMs})`);
  if (!finite(f.signalDelayMs)) fail('signalDelayMs', 'must be a finite number');
  // To 1e-5 ms: times read back from CSV carry 6 decimals.
  if (f.displayMs !== undefined && Math.abs(f.signalDelayMs - (f.displayMs - f.captureMs)) > 1e-5) fail('signalDelayMs', 'must be displayMs - captureMs');
}

/** Throws a RecordError naming the run, frame and field when a run record breaks the schema; returns it otherwise. */
export function checkRun<R extends RunRecord>(run: R): R {
  const fail = (field: string, want: string, value: unknown) => {
    throw new RecordError(`results of ${run.label}: field "${field}" ${want}, got ${JSON.stringify(value)}`);
  };
  if (typeof run.label !== 'string' || run.label === '') fail('label', 'must be a non-empty string', run.label);
  if (!(finite(run.bytesSent) && run.bytesSent >= 0)) fail('bytesSent', 'must be a number >= 0', run.bytesSent);
  if (!finite(run.endMs)) fail('endMs', 'must be a finite number', run.endMs);
  if (run.link !== null) {
    const l = run.link;
    if (!(finite(l.fromMs) && finite(l.toMs) && l.fromMs <= l.toMs)) fail('link', 'must have fromMs <= toMs', l);
    if (!(l.departedBytes >= 0 && l.capacityBytes >= 0)) fail('link', 'must have byte counts >= 0', l);
  }
  if (run.window) {
    const w = run.window;
    if (!(finite(w.fromMs) && w.fromMs >= 0 && w.toMs > w.fromMs)) fail('window', 'must have 0 <= fromMs < toMs', w);
    if (run.link !== null && run.link.fromMs !== w.fromMs) fail('link', `must be measured over the window (from ${w.fromMs})`, run.link);
  }
  run.frames.forEach((f, i) => checkFrame(run.label, f, i));
  return run;
}
