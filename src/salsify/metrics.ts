// Salsify's producer of result records (src/results): the fate and figures of
// every source frame, from what the sender did (its events: captures, frames
// sent, skips) and what reached the receiver (arrivals, shows). The simulator
// (sim-runner.ts) and `salsify analyze` (live/analyze.ts) both call it, so a
// live and a simulated run are counted alike:
//   sent and shown                  -> shown (whole, or concealed from the
//                                      datagrams that arrived: no lastArrivalMs)
//   sent, all its datagrams arrived -> never-shown
//   sent, not all arrived           -> lost
//   a skip event                    -> skipped (the sender's choice)
//   neither                         -> superseded (never encoded)
import type { FrameRecord } from '../results/frame-record.ts';
import { withSignalDelays, type ObservedFrame } from '../results/display-times.ts';
import type { FrameArrival } from './frame-arrivals.ts';
import type { SenderEvent } from './sender.ts';

export interface SentFrame {
  readonly frameNumber: number;
  /** When the sender sent it (its 'sent' event). */
  readonly sendMs: number;
  readonly bytes: number;
  readonly quantizer: number;
  readonly keyFrame: boolean;
}

export interface SenderView {
  /** Capture time of source frames 0, 1, 2, ... */
  readonly captureMs: readonly number[];
  /** By source frame index. */
  readonly sent: ReadonlyMap<number, SentFrame>;
  readonly skipped: ReadonlySet<number>;
}

export interface ReceiverView {
  /** By frame number. */
  readonly arrivals: ReadonlyMap<number, FrameArrival>;
  /** By frame number: when it was shown, and its SSIM if known. */
  readonly shown: ReadonlyMap<number, { readonly shownMs: number; readonly ssim?: number }>;
}

/** What the sender's events say about each source frame. */
export function senderView(events: readonly SenderEvent[]): SenderView {
  const captureMs: number[] = [];
  const sent = new Map<number, SentFrame>();
  const skipped = new Set<number>();
  for (const e of events) {
    if (e.kind === 'capture') captureMs[e.sourceIndex] = e.time;
    else if (e.kind === 'sent') sent.set(e.sourceIndex, { frameNumber: e.frameNumber, sendMs: e.time, bytes: e.bytes, quantizer: e.quantizer, keyFrame: e.keyFrame });
    else if (e.kind === 'skip') skipped.add(e.sourceIndex);
  }
  return { captureMs, sent, skipped };
}

/** The per-frame records of a run that ended at `endMs`. */
export function salsifyFrameRecords(sender: SenderView, receiver: ReceiverView, endMs: number): FrameRecord[] {
  const observed: ObservedFrame[] = [];
  for (let i = 0; i < sender.captureMs.length; i++) {
    const captureMs = sender.captureMs[i];
    if (captureMs === undefined) throw new Error(`the sender recorded no capture of source frame ${i} but ${sender.captureMs.length} captures`);
    const s = sender.sent.get(i);
    if (!s) {
      observed.push({ sourceIndex: i, captureMs, fate: sender.skipped.has(i) ? 'skipped' : 'superseded' });
      continue;
    }
    const arrival = receiver.arrivals.get(s.frameNumber);
    const show = receiver.shown.get(s.frameNumber);
    const complete = arrival?.lastMs !== undefined;
    if (show && !arrival) throw new Error(`frame ${s.frameNumber} (source frame ${i}) was shown, but none of its datagrams is recorded as arrived`);
    observed.push({
      sourceIndex: i, captureMs, fate: show ? 'shown' : complete ? 'never-shown' : 'lost',
      frameNumber: s.frameNumber, sendMs: s.sendMs, bytes: s.bytes, quantizer: s.quantizer, keyFrame: s.keyFrame,
      firstArrivalMs: arrival?.firstMs, lastArrivalMs: arrival?.lastMs, shownMs: show?.shownMs, ssim: show?.ssim,
    });
  }
  return withSignalDelays(observed, endMs);
}
