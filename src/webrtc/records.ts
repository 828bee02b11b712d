// A call's measurement as the results pipeline's records (src/results), so
// that `salsify webrtc` reports exactly as `salsify sim` and `salsify analyze`
// do: one FrameRecord per source frame (renumbered from 0 in capture order;
// times in ms since the call connected), the video link's use counted from
// linkshell's log by the pipeline's LinkUseMeter, checked by checkRun.
//
// Black-box fates, from what the two pages saw:
//   shown        the receiver displayed this frame (requestVideoFrameCallback)
//   never-shown  the receiver got the whole encoded frame (insertable streams)
//                but did not display it
//   lost         the sender's encoder produced it (insertable streams at the
//                sender) but it never reached the receiver whole
//   skipped      captured, never encoded: Chromium's sender dropped it (its
//                rate control or frame dropper), the sender's choice
// Per sent frame: frameNumber is its place among the frames the sender's
// encoder produced, sendMs when the encoder handed it to the transport (the
// pacer may send its first packet later), bytes its encoded size (all
// spatial layers); firstArrivalMs and lastArrivalMs are both when the receiver
// had it whole (a page sees no packets, only frames).
import { LogEventKind, parseLinkLog } from '../link-emu/link-log.ts';
import { readFileSync } from 'node:fs';
import type { FrameRecord, LinkUse, RunRecord } from '../results/frame-record.ts';
import { LinkUseMeter } from '../results/link-use.ts';
import { checkRun } from '../results/validate.ts';
import type { MeasureWindow } from '../results/window.ts';

/** A source frame's fate, as the results pipeline names them (see above). */
export type WebrtcFate = 'shown' | 'never-shown' | 'lost' | 'skipped';

export interface WebrtcFrameRecord {
  readonly sourceIndex: number;
  readonly fileFrame: number;
  readonly captureMs: number;
  readonly fate: WebrtcFate;
  /** Of a frame the encoder produced: its place among them, when it was handed over, its size. */
  readonly frameNumber?: number;
  readonly sendMs?: number;
  readonly bytes?: number;
  readonly keyFrame?: boolean;
  /** When the receiver had it whole. */
  readonly arrivalMs?: number;
  readonly shownMs?: number;
  readonly displayMs?: number;
  readonly signalDelayMs: number;
  readonly shownWidth?: number;
  readonly shownHeight?: number;
  readonly ssim?: number;
}

/** The video link's use over [fromMs, toMs) of the call's clock, from linkshell's log (its times count from its init timestamp, epoch ms). */
export function linkUseFromLog(path: string, epochOfCallZero: number, fromMs: number, toMs: number): LinkUse | null {
  const log = parseLinkLog(readFileSync(path, 'utf8'), path);
  const init = log.header.initTimestamp;
  if (init === undefined) return null;
  const shift = init - epochOfCallZero;
  const meter = new LinkUseMeter(fromMs, toMs);
  for (let i = 0; i < log.count; i++) {
    if (log.kind[i] === LogEventKind.Opportunity) meter.opportunity(log.time[i] + shift, log.a[i]);
    else if (log.kind[i] === LogEventKind.Departure) meter.departure(log.time[i] + shift, log.a[i], log.b[i]);
  }
  return meter.result();
}

/**
 * Where the call's time zero lies on the video link's trace: ms since the
 * trace's start as linkshell replays it (its log's link time minus its base
 * timestamp), or null for a log without an init timestamp.
 */
export function traceTimeOfCallZero(path: string, epochOfCallZero: number): number | null {
  const log = parseLinkLog(readFileSync(path, 'utf8'), path);
  const init = log.header.initTimestamp;
  if (init === undefined) return null;
  return epochOfCallZero - init - (log.header.baseTimestamp ?? 0);
}

/** Seconds into the original trace of a time `ms` after linkshell's trace start, which was its second `startS`. */
export function traceAt(ms: number | null, startS: number): number | null {
  return ms === null ? null : Math.round(startS * 1000 + ms) / 1000;
}

/** When the first datagram reached the video link: ms since the trace's start (null for an empty log). */
export function firstArrivalTraceTime(path: string): number | null {
  const log = parseLinkLog(readFileSync(path, 'utf8'), path);
  for (let i = 0; i < log.count; i++) if (log.kind[i] === LogEventKind.Arrival) return log.time[i] - (log.header.baseTimestamp ?? 0);
  return null;
}

/** The frames as the pipeline's records (renumbered from 0). */
export function toFrameRecords(frames: readonly WebrtcFrameRecord[]): FrameRecord[] {
  return frames.map((f, i) => {
    const sent = f.fate !== 'skipped';
    const arrived = f.fate === 'shown' || f.fate === 'never-shown';
    return {
      sourceIndex: i,
      captureMs: f.captureMs,
      fate: f.fate,
      ...(sent ? { frameNumber: f.frameNumber, sendMs: f.sendMs, bytes: f.bytes, keyFrame: f.keyFrame } : {}),
      ...(arrived ? { firstArrivalMs: f.arrivalMs, lastArrivalMs: f.arrivalMs } : {}),
      ...(f.fate === 'shown' ? { shownMs: f.shownMs, ssim: f.ssim } : {}),
      displayMs: f.displayMs,
      signalDelayMs: f.signalDelayMs,
    } as FrameRecord;
  });
}

export function webrtcRunRecord<Config extends object, Counters extends object>(options: {
  label: string;
  config: Config;
  counters: Counters;
  bytesSent: number;
  link: LinkUse | null;
  endMs: number;
  frames: readonly WebrtcFrameRecord[];
  /** The source frames the summary covers (absent: all); the link use must be over the same window. */
  window?: MeasureWindow;
}): RunRecord<Config, Counters> {
  return checkRun({ ...options, frames: toFrameRecords(options.frames) });
}
