// The figures of a run, exactly as ../shared/reference/README.md defines them.
//
// Signal delay: every source frame's d_i - c_i (display-times.ts); mean, p5
// and p95 over all source frames. SSIM: per shown frame whose SSIM is known
// (luma SSIM as ffmpeg's ssim filter computes it, or the model codec's
// modelled figure), against the source frame it was encoded from; mean and
// percentiles over the linear values, then converted to dB. Frames are
// counted by fate (frame-record.ts), each category on its own. With a
// measurement window (window.ts) only the source frames captured in it count,
// the link use is over the window, and bytesSent is the run record's, which a
// producer with a window gives for the window (the simulator: the datagrams
// sent while the window's frames were captured; its counters keep the total).
import { ssimToDb } from '../codec-bridge/ssim-db.ts';
import { FATES, SENT_FATES, type Fate, type RunRecord } from './frame-record.ts';
import { utilization } from './link-use.ts';
import { distribution, type Distribution } from './statistics.ts';
import { framesInWindow } from './window.ts';

export interface Summary {
  readonly signalDelayMs: Distribution;
  readonly ssimDb: Distribution;
  readonly framesCaptured: number;
  /** shown + never shown + lost */
  readonly framesSent: number;
  readonly framesShown: number;
  /** Sent, arrived whole, not shown. */
  readonly framesNeverShown: number;
  /** Sent, not all of it arrived. */
  readonly framesLost: number;
  /** Encoded, not sent: the sender's choice. */
  readonly framesSkipped: number;
  /** Never encoded: replaced by a newer capture. */
  readonly framesSuperseded: number;
  /** Frames with no display time (no later frame shown by the end): their delay is a lower bound. */
  readonly framesNotCaughtUp: number;
  /** The run record's bytesSent: with a window, what was sent during it. */
  readonly bytesSent: number;
  /** link-use.ts: departed / capacity bytes while frames were captured; NaN when unknown. */
  readonly linkUtilization: number;
}

/** The summary field that counts each fate. */
export const FATE_COUNT: Readonly<Record<Fate, keyof Summary>> = {
  shown: 'framesShown',
  'never-shown': 'framesNeverShown',
  lost: 'framesLost',
  skipped: 'framesSkipped',
  superseded: 'framesSuperseded',
};

export function summarize(run: RunRecord): Summary {
  const delays: number[] = [];
  const ssims: number[] = [];
  const count = Object.fromEntries(FATES.map((f) => [f, 0])) as Record<Fate, number>;
  let notCaughtUp = 0;
  const frames = framesInWindow(run.frames, run.window);
  for (const f of frames) {
    delays.push(f.signalDelayMs);
    count[f.fate]++;
    if (f.displayMs === undefined) notCaughtUp++;
    if (f.fate === 'shown' && f.ssim !== undefined) ssims.push(f.ssim);
  }
  const s = distribution(ssims);
  return {
    signalDelayMs: distribution(delays),
    ssimDb: { mean: ssimToDb(s.mean), p5: ssimToDb(s.p5), p95: ssimToDb(s.p95) },
    framesCaptured: frames.length,
    framesSent: SENT_FATES.reduce((n, f) => n + count[f], 0),
    framesShown: count.shown,
    framesNeverShown: count['never-shown'],
    framesLost: count.lost,
    framesSkipped: count.skipped,
    framesSuperseded: count.superseded,
    framesNotCaughtUp: notCaughtUp,
    bytesSent: run.bytesSent,
    linkUtilization: utilization(run.link),
  };
}
