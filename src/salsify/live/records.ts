// What the live endpoints record, one JSON object per line, and how those
// files are read back (every field checked; errors name file, line and field).
//
// DIR/sender.jsonl
//   {"type":"sender","version":1,"runId","connectionId","startMs","captureStartMs","video","seed","scheme","codec","budgetMs","width","height","fps","durationS","to"}
//   {"type":"capture","t","i"}                      source frame i captured at t
//   {"type":"sent","t","i","frame","bytes","q","key","choice","target","encodeMs"}
//   {"type":"skip","t","i","target","better","worse"}
//   {"type":"loss","t",...} / {"type":"recovery","t",...}   (informative)
//   {"type":"end","t","reason","counters"}
// DIR/receiver.jsonl
//   {"type":"receiver","version":1,"startMs","codec","listen","video","frames"}
//   {"type":"run","t","runId","connectionId","peer"}  the first datagram of a run
//   {"type":"arrival","t","frame","first","fragments","of"}  the datagrams of a frame number: the first
//        arrived at "first"; "fragments" of its "of" arrived, the latest at t. Written once all arrived
//        (before the frame is shown), and for frames still incomplete just before the end record.
//   {"type":"shown","t","frame","bytes","src","dst","ssim"?,"picture"?}  frame number shown at t,
//        decoded from state src to state dst (ssim: the model codec's; picture: its index in the saved Y4M)
// "video" names the saved Y4M of shown pictures (or null); "frames" the saved IVF of
// every shown frame's compressed bytes, in show order, the frame number as timestamp (or null).
//   {"type":"end","t","reason","counters"}
// All times ("t", "startMs") are shared-clock readings (shared-clock.ts): ms
// since the Unix epoch. A run is identified by its run id, the connection id
// of its datagrams in 8 hex digits: the receiver learns it from them.
import type { FrameArrival } from '../frame-arrivals.ts';
import { SCHEMES, type Scheme } from '../sender.ts';
import { readJsonl, type JsonlLine } from './jsonl.ts';

// Version 2 added the receiver's arrival records (lost and never-shown frames are told apart by them).
export const RECORDS_VERSION = 2;
export const SENDER_RECORDS = 'sender.jsonl';
export const RECEIVER_RECORDS = 'receiver.jsonl';
export const SAVED_VIDEO = 'received.y4m';
export const SAVED_FRAMES = 'received.ivf';
const STATE_ID = /^[0-9a-f]{16}$/;
const RUN_ID = /^[0-9a-f]{8}$/;
const CODECS = ['model', 'vp8'] as const;

export function runIdOf(connectionId: number): string {
  return connectionId.toString(16).padStart(8, '0');
}

export interface SenderHeader {
  readonly type: 'sender';
  readonly version: number;
  readonly runId: string;
  readonly connectionId: number;
  readonly startMs: number;
  /** When source frame 0 is due: frame i is captured at captureStartMs + i * 1000 / fps. */
  readonly captureStartMs: number;
  readonly video: string;
  readonly seed: number | string;
  readonly scheme: Scheme;
  readonly codec: 'model' | 'vp8';
  readonly budgetMs: number;
  readonly width: number;
  readonly height: number;
  readonly fps: number;
  readonly durationS: number | null;
  readonly to: string;
}

export interface ReceiverHeader {
  readonly type: 'receiver';
  readonly version: number;
  readonly startMs: number;
  readonly codec: 'model' | 'vp8';
  readonly listen: string;
  readonly video: string | null;
  readonly frames: string | null;
}

export interface EndRecord {
  readonly t: number;
  readonly reason: string;
  readonly counters: Record<string, unknown>;
}

export interface SentRecord {
  readonly t: number;
  readonly frameNumber: number;
  readonly bytes: number;
  readonly quantizer: number;
  readonly keyFrame: boolean;
}

export interface SenderRecords {
  readonly file: string;
  readonly header: SenderHeader;
  /** When the sender's capture of source frames 0, 1, 2, ... ran (shared clock; at or a little after their nominal instants). */
  readonly captures: number[];
  /** By source frame index. */
  readonly sent: Map<number, SentRecord>;
  readonly skipped: Set<number>;
  readonly losses: number;
  readonly recoveries: number;
  readonly end: EndRecord | undefined;
  /** The latest time on any record. */
  readonly lastMs: number;
}

export interface ShownRecord {
  readonly t: number;
  readonly frameNumber: number;
  readonly bytes: number;
  readonly sourceStateId: string;
  readonly targetStateId: string;
  readonly ssim?: number;
  readonly picture?: number;
  /** Shown concealed (receiver.ts): decoded from state `from` (not necessarily its source) to state `reached`; `length` is the whole frame's. */
  readonly concealed?: { readonly from: string; readonly reached: string; readonly length: number };
}

export interface ReceiverRecords {
  readonly file: string;
  readonly header: ReceiverHeader;
  readonly run: { readonly t: number; readonly runId: string; readonly connectionId: number; readonly peer: string } | undefined;
  /** By frame number (lastMs set when every fragment arrived). */
  readonly arrivals: Map<number, FrameArrival>;
  readonly shown: ShownRecord[];
  readonly end: EndRecord | undefined;
  readonly lastMs: number;
}

function checkVersion(line: JsonlLine): void {
  const v = line.integer('version', 1);
  if (v !== RECORDS_VERSION) line.fail(`records of version ${v}; this salsify reads version ${RECORDS_VERSION}`);
}

function endRecord(line: JsonlLine): EndRecord {
  return { t: line.number('t'), reason: line.string('reason'), counters: line.object('counters') };
}

export function readSenderRecords(file: string): SenderRecords {
  const lines = readJsonl(file, 'sender');
  const first = lines[0];
  if (first.value.type !== 'sender') first.fail(`expected the sender's header ({"type":"sender",...}) on the first line, got type ${JSON.stringify(first.value.type)}`);
  checkVersion(first);
  const seed = first.field('seed', 'an integer or a string', (v) => typeof v === 'string' || Number.isSafeInteger(v));
  const durationS = first.field('durationS', 'null or a number > 0', (v) => v === null || (typeof v === 'number' && v > 0));
  const header: SenderHeader = {
    type: 'sender', version: RECORDS_VERSION,
    runId: first.string('runId', RUN_ID), connectionId: first.integer('connectionId', 0, 0xffffffff), startMs: first.number('startMs'),
    captureStartMs: first.number('captureStartMs'),
    video: first.string('video'), seed: seed as number | string, scheme: first.oneOf('scheme', SCHEMES), codec: first.oneOf('codec', CODECS),
    budgetMs: first.number('budgetMs'), width: first.integer('width', 1), height: first.integer('height', 1),
    fps: first.field('fps', 'a number > 0', (v) => typeof v === 'number' && v > 0 && Number.isFinite(v)) as number,
    durationS: durationS as number | null, to: first.string('to'),
  };
  if (runIdOf(header.connectionId) !== header.runId) first.fail(`field "runId" ${header.runId} is not connection id ${header.connectionId} in hex`);
  const captures: number[] = [];
  const sent = new Map<number, SentRecord>();
  const frames = new Set<number>();
  const skipped = new Set<number>();
  let losses = 0, recoveries = 0, lastMs = header.startMs;
  let end: EndRecord | undefined;
  const captured = (line: JsonlLine): number => {
    const i = line.integer('i');
    if (i >= captures.length) line.fail(`source frame ${i} was not captured before (${captures.length} captures so far)`);
    if (sent.has(i) || skipped.has(i)) line.fail(`source frame ${i} is already recorded as ${sent.has(i) ? 'sent' : 'skipped'}`);
    return i;
  };
  for (const line of lines.slice(1)) {
    if (end) line.fail('a record after the end record');
    const type = line.string('type');
    const t = line.number('t');
    lastMs = Math.max(lastMs, t);
    switch (type) {
      case 'capture': {
        const i = line.integer('i');
        if (i !== captures.length) line.fail(`capture of source frame ${i} out of order (expected frame ${captures.length})`);
        captures.push(t);
        break;
      }
      case 'sent': {
        const i = captured(line);
        const frameNumber = line.integer('frame');
        if (frames.has(frameNumber)) line.fail(`frame number ${frameNumber} is sent twice`);
        frames.add(frameNumber);
        sent.set(i, { t, frameNumber, bytes: line.integer('bytes', 1), quantizer: line.integer('q', 0, 127), keyFrame: line.boolean('key') });
        break;
      }
      case 'skip':
        skipped.add(captured(line));
        break;
      case 'loss':
        losses++;
        break;
      case 'recovery':
        recoveries++;
        break;
      case 'end':
        end = endRecord(line);
        break;
      default:
        line.fail(`unknown record type ${JSON.stringify(type)} (expected capture, sent, skip, loss, recovery or end)`);
    }
  }
  return { file, header, captures, sent, skipped, losses, recoveries, end, lastMs };
}

export function readReceiverRecords(file: string): ReceiverRecords {
  const lines = readJsonl(file, 'receiver');
  const first = lines[0];
  if (first.value.type !== 'receiver') first.fail(`expected the receiver's header ({"type":"receiver",...}) on the first line, got type ${JSON.stringify(first.value.type)}`);
  checkVersion(first);
  const fileName = (v: unknown) => v === null || (typeof v === 'string' && v !== '' && !/[\\/]/.test(v));
  const video = first.field('video', 'null or a file name', fileName);
  const frames = first.field('frames', 'null or a file name', fileName);
  const header: ReceiverHeader = {
    type: 'receiver', version: RECORDS_VERSION, startMs: first.number('startMs'), codec: first.oneOf('codec', CODECS),
    listen: first.string('listen'), video: video as string | null, frames: frames as string | null,
  };
  let run: ReceiverRecords['run'];
  const shown: ShownRecord[] = [];
  const arrivals = new Map<number, FrameArrival>();
  const seen = new Set<number>();
  let saved = 0;
  let end: EndRecord | undefined;
  let lastMs = header.startMs;
  for (const line of lines.slice(1)) {
    if (end) line.fail('a record after the end record');
    const type = line.string('type');
    const t = line.number('t');
    lastMs = Math.max(lastMs, t);
    switch (type) {
      case 'run':
        if (run) line.fail(`a second run record (run ${run.runId} was recorded before): one receiver records one run`);
        run = { t, runId: line.string('runId', RUN_ID), connectionId: line.integer('connectionId', 0, 0xffffffff), peer: line.string('peer') };
        if (runIdOf(run.connectionId) !== run.runId) line.fail(`field "runId" ${run.runId} is not connection id ${run.connectionId} in hex`);
        break;
      case 'arrival': {
        if (!run) line.fail('an arrival before the run record');
        const frameNumber = line.integer('frame');
        if (arrivals.has(frameNumber)) line.fail(`a second arrival record of frame number ${frameNumber}`);
        const first = line.number('first');
        if (first > t) line.fail(`field "first" ${first} is after the last arrival, t ${t}`);
        const of = line.integer('of', 1);
        const fragments = line.integer('fragments', 1, of);
        arrivals.set(frameNumber, { firstMs: first, lastMs: fragments === of ? t : undefined, latestMs: t, fragments, fragmentCount: of });
        break;
      }
      case 'shown': {
        if (!run) line.fail('a shown frame before the run record');
        const frameNumber = line.integer('frame');
        if (seen.has(frameNumber)) line.fail(`frame number ${frameNumber} is shown twice`);
        const concealed = line.field('concealed', 'true', (v) => v === true, true) === true
          ? { from: line.string('from', STATE_ID), reached: line.string('reached', STATE_ID), length: line.integer('length', 1) }
          : undefined;
        if (concealed && !arrivals.has(frameNumber)) line.fail(`frame number ${frameNumber} is shown concealed, but no earlier arrival record says some of it arrived`);
        if (!concealed && arrivals.get(frameNumber)?.lastMs === undefined) line.fail(`frame number ${frameNumber} is shown, but no earlier arrival record says all of it arrived`);
        seen.add(frameNumber);
        const picture = line.optionalInteger('picture');
        // Pictures are saved in the order frames are shown: their indices count up from 0.
        if (picture !== undefined && picture !== saved++) line.fail(`field "picture" is ${picture}, expected ${saved - 1} (the saved pictures in order)`);
        shown.push({
          t, frameNumber, bytes: line.integer('bytes', 1), sourceStateId: line.string('src', STATE_ID), targetStateId: line.string('dst', STATE_ID),
          ssim: line.optionalNumber('ssim', -1, 1), picture, concealed,
        });
        break;
      }
      case 'end':
        end = endRecord(line);
        break;
      default:
        line.fail(`unknown record type ${JSON.stringify(type)} (expected run, arrival, shown or end)`);
    }
  }
  return { file, header, run, arrivals, shown, end, lastMs };
}
