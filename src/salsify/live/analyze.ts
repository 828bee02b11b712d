// `salsify analyze DIR`: the figures of a live run, from the sender's and the
// receiver's records (records.ts), turned into the one results schema by the
// same code as `salsify sim` (metrics.ts, then src/results: summary, table,
// JSON, CSV). Times are taken relative to the sender's start; source frame i counts
// as captured at its nominal instant, captureStartMs + i / fps (as in the
// simulator, where the capture timers are exact). SSIM per shown frame
// comes from the receiver's records (model codec), or is computed here from
// the saved pictures (receive --save-video) or from the saved compressed
// frames decoded again, against the source frame each was encoded from,
// reopened from the sender's header (the same synthetic scene
// and seed, or the same clip file): luma SSIM, as in the simulator. Link
// utilisation needs linkshell's log of the direction the video crossed
// (--link-log); without one it is not known.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ssim as pictureSsim } from '../../codec-bridge/ssim.ts';
import type { VideoSource } from '../../codec-bridge/video/video-source.ts';
import { openY4mReader } from '../../codec-bridge/video/y4m.ts';
import { LogEventKind, parseLinkLog } from '../../link-emu/link-log.ts';
import type { LinkUse, RunRecord } from '../../results/frame-record.ts';
import { LinkUseMeter } from '../../results/link-use.ts';
import { summarize, type Summary } from '../../results/summary.ts';
import { checkRun } from '../../results/validate.ts';
import { salsifyFrameRecords, type SentFrame } from '../metrics.ts';
import { openCodec, openVideo } from '../open-inputs.ts';
import type { CodecState } from '../../codec-bridge/types.ts';
import { openIvfReader, type IvfReader } from '../../codec-bridge/video/ivf.ts';
import { readReceiverRecords, readSenderRecords, RECEIVER_RECORDS, SENDER_RECORDS, type ReceiverRecords, type SenderHeader, type SenderRecords } from './records.ts';

export type SsimSource = 'model' | 'saved pictures' | 'saved frames' | 'none';

export type LiveConfig = SenderHeader & { readonly receiverListen: string; readonly receiverCodec: string; readonly linkLog: string | null };
export interface LiveCounters {
  readonly sender: Record<string, unknown> | null;
  readonly receiver: Record<string, unknown> | null;
}

/** A live run in the one results schema (times in ms since the sender started), with how its figures were obtained. */
export interface LiveAnalysis extends RunRecord<LiveConfig, LiveCounters> {
  readonly summary: Summary;
  readonly ssimFrom: SsimSource;
  /** How late the sender's capture timers ran against the nominal instants (ms). */
  readonly captureLatenessMs: { readonly mean: number; readonly max: number } | null;
  /** Things the figures could not include (a missing end record, no SSIM). */
  readonly notes: readonly string[];
}

function checkSameRun(sender: SenderRecords, receiver: ReceiverRecords): void {
  const run = receiver.run;
  if (!run) throw new Error(`${receiver.file}: the receiver recorded no run (no Salsify datagram reached it), so it cannot be matched with run ${sender.header.runId} of ${sender.file}`);
  if (run.runId !== sender.header.runId) {
    throw new Error(`${receiver.file} records run ${run.runId} but ${sender.file} records run ${sender.header.runId}: the records are of different runs`);
  }
  if (receiver.header.codec !== sender.header.codec) {
    throw new Error(`${receiver.file}: the receiver decoded with the ${receiver.header.codec} codec but the sender encoded with ${sender.header.codec} (${sender.file})`);
  }
}

/** The sender's video source again (the same file, or the same seeded synthetic scene, at the rate it ran: --fps may have set it). */
async function reopenSenderVideo(sender: SenderRecords): Promise<VideoSource> {
  try {
    return await openVideo(sender.header.video, sender.header.seed, { fps: sender.header.fps });
  } catch (error) {
    throw new Error(`cannot reopen the sender's video ${JSON.stringify(sender.header.video)} (seed ${sender.header.seed}) to compute SSIM: ${(error as Error).message}`);
  }
}

/** SSIM of each saved picture against the source frame it was encoded from, by frame number. */
async function ssimFromSavedPictures(dir: string, sender: SenderRecords, receiver: ReceiverRecords, sourceOf: Map<number, number>): Promise<Map<number, number>> {
  const path = join(dir, receiver.header.video!);
  const byPicture = new Map<number, number>();
  for (const s of receiver.shown) if (s.picture !== undefined) byPicture.set(s.picture, s.frameNumber);
  const out = new Map<number, number>();
  const source = await reopenSenderVideo(sender);
  const reader = await openY4mReader(path);
  try {
    if (reader.header.width !== source.width || reader.header.height !== source.height) {
      throw new Error(`${path}: pictures of ${reader.header.width}x${reader.header.height}, but the source ${sender.header.video} is ${source.width}x${source.height}`);
    }
    for (let k = 0; ; k++) {
      const picture = await reader.readFrame();
      if (picture === null) {
        if (k < byPicture.size) throw new Error(`${path}: ${k} pictures, but ${receiver.file} records ${byPicture.size} saved`);
        break;
      }
      const frameNumber = byPicture.get(k);
      if (frameNumber === undefined) throw new Error(`${path}: picture ${k} is not recorded in ${receiver.file}`);
      const original = await source.frame(sourceOf.get(frameNumber)!);
      out.set(frameNumber, pictureSsim(original, picture).y);
    }
  } finally {
    await reader.close();
    await source.close();
  }
  return out;
}

/** States kept while decoding the saved frames again: the receiver holds at most 16 for the sender to refer to. */
const REPLAY_STATES = 16;

/**
 * SSIM of each shown frame, decoded again from the saved compressed frames (in
 * show order, each from the state the receiver decoded it from), against the
 * source frame it was encoded from. Each decode must reach the state the
 * receiver reached, so the pictures are those the receiver showed.
 */
async function ssimFromSavedFrames(dir: string, sender: SenderRecords, receiver: ReceiverRecords, sourceOf: Map<number, number>): Promise<Map<number, number>> {
  const path = join(dir, receiver.header.frames!);
  const out = new Map<number, number>();
  const source = await reopenSenderVideo(sender);
  const codec = await openCodec(receiver.header.codec);
  let reader: IvfReader | undefined;
  try {
    reader = await openIvfReader(path, { fourcc: null });
    const initial = codec.initialState(source.width, source.height);
    const states = new Map<string, CodecState>();
    for (const [k, shown] of receiver.shown.entries()) {
      const frame = await reader.readFrame();
      if (frame === null) throw new Error(`${path}: ${k} frames, but ${receiver.file} records ${receiver.shown.length} shown`);
      if (frame.timestamp !== shown.frameNumber) throw new Error(`${path}: frame ${k} is frame number ${frame.timestamp}, but ${receiver.file} records frame ${shown.frameNumber} shown ${k}th`);
      const fromId = shown.concealed?.from ?? shown.sourceStateId;
      const from = fromId === initial.id ? initial : states.get(fromId);
      if (!from) throw new Error(`${path}: frame ${shown.frameNumber} is decoded from state ${fromId}, which none of the last ${REPLAY_STATES} frames reached`);
      if (shown.concealed && !codec.conceal) throw new Error(`${path}: frame ${shown.frameNumber} was shown concealed, and this codec cannot conceal (docs/development.md: the libvpx built with error concealment)`);
      const decoded = shown.concealed ? await codec.conceal!(from, frame.data, shown.concealed.length) : await codec.decode(from, frame.data);
      const reached = shown.concealed?.reached ?? shown.targetStateId;
      if (decoded.state.id !== reached) {
        throw new Error(`${path}: frame ${shown.frameNumber} decodes to state ${decoded.state.id}, but the receiver reached ${reached}`);
      }
      states.delete(decoded.state.id);
      states.set(decoded.state.id, decoded.state);
      if (states.size > REPLAY_STATES) states.delete(states.keys().next().value as string);
      const original = await source.frame(sourceOf.get(shown.frameNumber)!);
      out.set(shown.frameNumber, pictureSsim(original, decoded.picture).y);
    }
  } finally {
    await reader?.close();
    await codec.close();
    await source.close();
  }
  return out;
}

/**
 * How much of the link the run used while it captured video (link-use.ts, as
 * the simulator counts it), from linkshell's log of that link. The log's times
 * count from its init timestamp (wall-clock ms since the epoch), which places
 * them on the run's clock (to about a millisecond); `origin` is the run's zero.
 */
function linkUseFromLog(path: string, origin: number, fromMs: number, toMs: number): LinkUse {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`--link-log ${path}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
  const log = parseLinkLog(text, path);
  const init = log.header.initTimestamp;
  if (init === undefined) throw new Error(`--link-log ${path}: no "# init timestamp" line, so its times cannot be placed on the run's clock`);
  const shift = init - origin;
  if (log.count === 0 || log.time[log.count - 1] + shift < fromMs || log.time[0] + shift > toMs) {
    throw new Error(`--link-log ${path}: its events (init timestamp ${init}) do not cover the run's captures (${Math.round(fromMs + origin)} to ${Math.round(toMs + origin)} ms since the epoch): a log of another run?`);
  }
  const meter = new LinkUseMeter(fromMs, toMs);
  for (let i = 0; i < log.count; i++) {
    if (log.kind[i] === LogEventKind.Opportunity) meter.opportunity(log.time[i] + shift, log.a[i]);
    else if (log.kind[i] === LogEventKind.Departure) meter.departure(log.time[i] + shift, log.a[i]);
  }
  return meter.result();
}

export async function analyzeLiveRun(dir: string, options: { linkLog?: string } = {}): Promise<LiveAnalysis> {
  const sender = readSenderRecords(join(dir, SENDER_RECORDS));
  const receiver = readReceiverRecords(join(dir, RECEIVER_RECORDS));
  checkSameRun(sender, receiver);
  const notes: string[] = [];
  const start = sender.header.startMs;

  const sourceOf = new Map<number, number>();
  for (const [index, s] of sender.sent) sourceOf.set(s.frameNumber, index);
  for (const s of receiver.shown) {
    if (!sourceOf.has(s.frameNumber)) throw new Error(`${receiver.file}: frame ${s.frameNumber} was shown, but ${sender.file} records no such frame sent`);
  }

  let ssimOf: Map<number, number>;
  let ssimFrom: SsimSource;
  if (receiver.shown.length > 0 && receiver.shown.every((s) => s.ssim !== undefined)) {
    ssimOf = new Map(receiver.shown.map((s) => [s.frameNumber, s.ssim!]));
    ssimFrom = 'model';
  } else if (receiver.header.video !== null && existsSync(join(dir, receiver.header.video))) {
    ssimOf = await ssimFromSavedPictures(dir, sender, receiver, sourceOf);
    ssimFrom = 'saved pictures';
  } else if (receiver.header.frames !== null && existsSync(join(dir, receiver.header.frames))) {
    ssimOf = await ssimFromSavedFrames(dir, sender, receiver, sourceOf);
    ssimFrom = 'saved frames';
  } else {
    ssimOf = new Map();
    ssimFrom = 'none';
    if (receiver.shown.length > 0) notes.push(`no SSIM: the receiver's saved frames or pictures are missing`);
  }

  const shown = new Map<number, { shownMs: number; ssim?: number }>();
  for (const s of receiver.shown) shown.set(s.frameNumber, { shownMs: s.t - start, ssim: ssimOf.get(s.frameNumber) });
  const arrivals = new Map([...receiver.arrivals].map(([n, a]) => [n, { ...a, firstMs: a.firstMs - start, latestMs: a.latestMs - start, lastMs: a.lastMs === undefined ? undefined : a.lastMs - start }]));
  // Frame i's capture instant is its nominal one (the sender's timers run a little late; how late is reported).
  const interval = 1000 / sender.header.fps;
  const nominal = (i: number) => sender.header.captureStartMs + i * interval;
  const captureMs = sender.captures.map((_, i) => nominal(i) - start);
  const lateness = sender.captures.map((t, i) => t - nominal(i));
  const sent = new Map<number, SentFrame>();
  for (const [i, s] of sender.sent) sent.set(i, { frameNumber: s.frameNumber, sendMs: s.t - start, bytes: s.bytes, quantizer: s.quantizer, keyFrame: s.keyFrame });
  const endMs = Math.max(sender.lastMs, receiver.lastMs) - start;
  const frames = salsifyFrameRecords({ captureMs, sent, skipped: sender.skipped }, { arrivals, shown }, endMs);

  let bytesSent: number;
  const counted = sender.end?.counters.bytesSent;
  if (typeof counted === 'number' && Number.isFinite(counted)) bytesSent = counted;
  else {
    bytesSent = [...sender.sent.values()].reduce((sum, s) => sum + s.bytes, 0);
    notes.push(`${sender.file} has no end record with bytesSent (did the sender stop cleanly?): bytes sent are the frames' sizes, without datagram headers`);
  }
  if (!receiver.end) notes.push(`${receiver.file} has no end record (did the receiver stop cleanly?)`);
  const captureEnd = nominal(sender.captures.length) - start;
  const link = options.linkLog === undefined ? null : linkUseFromLog(options.linkLog, start, sender.header.captureStartMs - start, captureEnd);
  const run = checkRun<RunRecord<LiveConfig, LiveCounters>>({
    label: `${sender.header.scheme} (live)`,
    config: { ...sender.header, receiverListen: receiver.header.listen, receiverCodec: receiver.header.codec, linkLog: options.linkLog ?? null },
    counters: { sender: sender.end?.counters ?? null, receiver: receiver.end?.counters ?? null },
    bytesSent,
    link,
    endMs,
    frames,
  });
  return {
    ...run,
    summary: summarize(run),
    ssimFrom,
    captureLatenessMs: lateness.length === 0 ? null : { mean: lateness.reduce((a, b) => a + b, 0) / lateness.length, max: lateness.reduce((a, b) => Math.max(a, b), -Infinity) },
    notes,
  };
}
