// mm-link's log format, written and read.
//
//   # mahimahi mm-link (Uplink) [TRACE] > LOGFILE
//   # command line: 'mm-link' 'TRACE' ...
//   # queue: droptail [packets=20]
//   # init timestamp: 1796008879961
//   # base timestamp: 40
//   # seed of stage 0 (link): "1/uplink/stage0-link"   (ours: one per random stage)
//   T + SIZE            arrival
//   T # MTU             delivery opportunity
//   T - SIZE DELAY      departure (DELAY = T - arrival time)
//   T d PACKETS BYTES   drop
//
// Times are integer milliseconds since the init timestamp. The writer prints
// whatever numbers it is given with JavaScript's shortest round-trip form, so
// integer times give Mahimahi's exact bytes.
//
// The seed lines are linkshell's: the seed each random stage of the
// direction drew from (PIE's early drops, loss, on/off), so that `linkshell
// replay` repeats a live run's random draws. Mahimahi's tools skip them, as
// they skip every '#' line.

import type { StageSeed } from './chain.ts';
import type { LinkEventSink } from './link.ts';
import { ToolkitError } from '../common/errors.ts';

export interface LinkLogHeader {
  /** "Uplink" or "Downlink" in mm-link's logs. */
  linkName: string;
  /** The trace as named on the command line. */
  traceName: string;
  /** The log file as named on the command line. */
  logName: string;
  commandLine: readonly string[];
  /** The queue's description, e.g. "droptail [packets=20]". */
  queue: string;
  /** Wall-clock ms (Unix epoch) that log times count from. */
  initTimestamp: number;
  /** Log time at which the trace's time zero is placed. */
  baseTimestamp: number;
}

/**
 * Quotes one argument the way mm-link's log does: in single quotes, with ' as
 * '\''. A line break is written as '$'\n'' (as a shell would read it back),
 * so the header line stays one line and the log still parses.
 */
export function shellQuote(argument: string): string {
  // (Replacement functions: in a replacement string, $' would mean the text after the match.)
  const quoted = argument.replace(/'/g, "'\\''").replace(/[\n\r]/g, (c) => (c === '\n' ? "'$'\\n''" : "'$'\\r''"));
  return `'${quoted}'`;
}

export function formatLinkLogHeader(header: LinkLogHeader): string {
  return (
    `# mahimahi mm-link (${header.linkName}) [${header.traceName}] > ${header.logName}\n` +
    `# command line:${header.commandLine.map((a) => ' ' + shellQuote(a)).join('')}\n` +
    `# queue: ${header.queue}\n` +
    `# init timestamp: ${header.initTimestamp}\n` +
    `# base timestamp: ${header.baseTimestamp}\n`
  );
}

const SEED_PREFIX = '# seed of stage ';

/** A stage's seed as its log line (with the newline); the seed is JSON-quoted, so any text survives. */
export function formatStageSeed(seed: StageSeed): string {
  return `${SEED_PREFIX}${seed.stage} (${seed.kind}): ${JSON.stringify(seed.seed)}\n`;
}

/**
 * An event sink that formats mm-link log lines and hands them to `write` in
 * chunks of about `chunkSize` characters. Call flush() when done (and before
 * anyone reads the output); nothing is buffered after flush().
 */
export class LinkLogWriter implements LinkEventSink {
  private buffer = '';
  private closed = false;

  constructor(
    private readonly write: (chunk: string) => void,
    header?: LinkLogHeader,
    private readonly chunkSize = 1 << 16,
  ) {
    if (header) this.buffer = formatLinkLogHeader(header);
  }

  arrival(time: number, size: number): void {
    this.line(`${time} + ${size}\n`);
  }
  opportunity(time: number, mtu: number): void {
    this.line(`${time} # ${mtu}\n`);
  }
  departure(time: number, size: number, delay: number): void {
    this.line(`${time} - ${size} ${delay}\n`);
  }
  drop(time: number, packets: number, bytes: number): void {
    this.line(`${time} d ${packets} ${bytes}\n`);
  }
  /** Records the seed a random stage draws from (a comment line; write it before the events). */
  stageSeed(seed: StageSeed): void {
    this.line(formatStageSeed(seed));
  }

  flush(): void {
    if (this.buffer.length > 0) {
      const chunk = this.buffer;
      this.buffer = '';
      this.write(chunk);
    }
  }

  /** Flushes and refuses further events (a late event is a bug, not something to lose silently). */
  close(): void {
    this.flush();
    this.closed = true;
  }

  private line(text: string): void {
    if (this.closed) throw new Error('link log written after close()');
    this.buffer += text;
    if (this.buffer.length >= this.chunkSize) this.flush();
  }
}

/** Event kinds as stored in a parsed log. */
export enum LogEventKind {
  Arrival = 0,
  Opportunity = 1,
  Departure = 2,
  Drop = 3,
}

const KIND_CHAR = ['+', '#', '-', 'd'] as const;

/** A parsed log: header fields that were present, and the events in file order as parallel arrays. */
export interface ParsedLinkLog {
  source: string;
  header: Partial<LinkLogHeader> & { commandLineText?: string; stageSeeds: StageSeed[]; otherComments: string[] };
  count: number;
  time: Float64Array;
  kind: Uint8Array;
  /** SIZE for + and -, MTU for #, PACKETS for d. */
  a: Float64Array;
  /** DELAY for -, BYTES for d, 0 otherwise. */
  b: Float64Array;
}

/**
 * A malformed log: one line naming the source, the line number and, for a
 * bad field, the field and its value (`line` is undefined for whole-log
 * errors such as a log without events).
 */
export class LinkLogParseError extends ToolkitError {
  constructor(
    readonly source: string,
    readonly line: number | undefined,
    /** The field at fault ("time", "size", "mtu", "delay", "packets", "bytes", "kind", a header name), if one is. */
    readonly field: string | undefined,
    /** Its text as found (truncated to 40 characters in the message). */
    readonly value: string | undefined,
    detail: string,
  ) {
    super('ERR_BAD_INPUT', `${source}${line === undefined ? '' : `:${line}`}: ${field === undefined ? '' : `${field} ${quote(value ?? '')} `}${detail}`);
    this.name = 'LinkLogParseError';
  }
}

function quote(text: string): string {
  return JSON.stringify(text.length > 40 ? text.slice(0, 40) + '...' : text);
}

/** Header lines whose values we read: a malformed one is an error, not a comment (it would silently change a replay). */
const HEADER_FIELDS: Array<{ prefix: string; name: string; apply: (h: ParsedLinkLog['header'], value: string, fail: (detail: string) => never) => void }> = [
  {
    prefix: '# mahimahi mm-link ',
    name: 'title',
    apply: (h, value, fail) => {
      const m = /^\((.*)\) \[(.*)\] > (.*)$/.exec(value);
      if (!m) fail('is not "(LINK) [TRACE] > LOGFILE"');
      h.linkName = m![1];
      h.traceName = m![2];
      h.logName = m![3];
    },
  },
  { prefix: '# command line:', name: 'command line', apply: (h, value) => { h.commandLineText = value.trim(); } },
  { prefix: '# queue: ', name: 'queue', apply: (h, value) => { h.queue = value; } },
  { prefix: '# init timestamp: ', name: 'init timestamp', apply: (h, value, fail) => { h.initTimestamp = headerCount(value, fail); } },
  { prefix: '# base timestamp: ', name: 'base timestamp', apply: (h, value, fail) => { h.baseTimestamp = headerCount(value, fail); } },
];

function headerCount(value: string, fail: (detail: string) => never): number {
  const n = parseCount(value);
  if (n < 0) fail('is not a non-negative integer (milliseconds)');
  return n;
}

/** The fields of each event kind after TIME and KIND, by name. */
const FIELD_NAMES: ReadonlyArray<readonly string[]> = [['size'], ['mtu'], ['size', 'delay'], ['packets', 'bytes']];

/**
 * Parses an mm-link log (ours or Mahimahi's). Lines starting with '#' are
 * comments, except the header lines whose values replay and stats read (init
 * and base timestamps, the title, our seed lines), which must be well formed.
 * Blank lines and a final line without a newline are accepted, CRLF line ends
 * too. Every other line must be one of the four event forms, single-spaced,
 * with decimal integer fields (at most 2^53 - 1), times that never decrease,
 * sizes, MTUs and drop counts of at least 1, drop bytes at least the packets
 * dropped, and a departure's delay no more than its time (its arrival is at
 * TIME - DELAY >= 0). Anything else is a LinkLogParseError naming the source,
 * the line, the field and its value. A log may have no events (see
 * requireEvents() for the commands that need some).
 */
export function parseLinkLog(text: string, source: string): ParsedLinkLog {
  const header: ParsedLinkLog['header'] = { stageSeeds: [], otherComments: [] };
  let capacity = 1024;
  let time = new Float64Array(capacity);
  let kind = new Uint8Array(capacity);
  let a = new Float64Array(capacity);
  let b = new Float64Array(capacity);
  let count = 0;
  let lineNumber = 0;
  let start = 0;
  let lastTime = 0;
  const length = text.length;
  const fail = (field: string | undefined, value: string | undefined, detail: string): never => {
    throw new LinkLogParseError(source, lineNumber, field, value, detail);
  };
  while (start < length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = length;
    lineNumber++;
    let line = text.slice(start, end);
    start = end + 1;
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (line.length === 0) continue;
    if (line.charCodeAt(0) === 35 /* # */) {
      if (line.startsWith(SEED_PREFIX)) {
        header.stageSeeds.push(parseStageSeed(line, source, lineNumber));
        continue;
      }
      const known = HEADER_FIELDS.find((h) => line.startsWith(h.prefix));
      if (known) {
        const value = line.slice(known.prefix.length);
        known.apply(header, value, (detail) => fail(known.name, value, detail));
      } else header.otherComments.push(line);
      continue;
    }
    const fields = line.split(' ');
    if (fields.length < 3 || fields.length > 4) fail(undefined, undefined, `expected "TIME KIND FIELD [FIELD]" with single spaces, got ${quote(line)}`);
    const k = KIND_CHAR.indexOf(fields[1] as (typeof KIND_CHAR)[number]);
    if (k < 0) fail('kind', fields[1], 'is not an event kind (+, #, - or d)');
    const names = FIELD_NAMES[k];
    if (fields.length !== names.length + 2) fail(undefined, undefined, `a "${fields[1]}" line has ${names.length + 2} fields (TIME ${fields[1]} ${names.map((n) => n.toUpperCase()).join(' ')}), got ${quote(line)}`);
    const t = parseCount(fields[0]);
    if (t < 0) fail('time', fields[0], 'is not a non-negative integer (milliseconds, at most 2^53 - 1)');
    if (t < lastTime) fail('time', fields[0], `is earlier than the previous event's (${lastTime}): log times never decrease`);
    const values = [0, 0];
    for (let f = 0; f < names.length; f++) {
      const v = parseCount(fields[2 + f]);
      if (v < 0) fail(names[f], fields[2 + f], 'is not a non-negative integer');
      if (v < 1 && names[f] !== 'delay' && names[f] !== 'bytes') fail(names[f], fields[2 + f], 'must be at least 1');
      values[f] = v;
    }
    if (k === LogEventKind.Departure && values[1] > t) fail('delay', fields[3], `is more than the departure time ${t} (the arrival would be before time 0)`);
    if (k === LogEventKind.Drop && values[1] < values[0]) fail('bytes', fields[3], `is fewer than the ${values[0]} packets dropped`);
    lastTime = t;
    if (count === capacity) {
      capacity *= 2;
      time = grow(time, capacity);
      kind = grow(kind, capacity);
      a = grow(a, capacity);
      b = grow(b, capacity);
    }
    time[count] = t;
    kind[count] = k;
    a[count] = values[0];
    b[count] = values[1];
    count++;
  }
  return { source, header, count, time: time.subarray(0, count), kind: kind.subarray(0, count), a: a.subarray(0, count), b: b.subarray(0, count) };
}

/** Throws a LinkLogParseError for a log without a single event (empty, or only comments): there is nothing to summarise or replay. */
export function requireEvents(log: ParsedLinkLog): ParsedLinkLog {
  if (log.count === 0) throw new LinkLogParseError(log.source, undefined, undefined, undefined, 'no events (the log is empty or has only comments)');
  return log;
}

const STAGE_KINDS: readonly StageSeed['kind'][] = ['delay', 'loss', 'gilbert-elliott', 'onoff', 'link'];

function parseStageSeed(line: string, source: string, lineNumber: number): StageSeed {
  const m = /^# seed of stage (\d{1,6}) \(([a-z-]+)\): (".*")$/.exec(line);
  let seed: unknown;
  try {
    seed = m ? JSON.parse(m[3]) : undefined;
  } catch {
    seed = undefined;
  }
  if (!m || typeof seed !== 'string' || !STAGE_KINDS.includes(m[2] as StageSeed['kind'])) {
    throw new LinkLogParseError(source, lineNumber, 'seed line', line, 'is not "# seed of stage N (KIND): \"SEED\"" (KIND a stage kind, SEED a JSON string)');
  }
  return { stage: Number(m[1]), kind: m[2] as StageSeed['kind'], seed };
}

/** A decimal integer in [0, 2^53), or -1. */
function parseCount(field: string): number {
  if (field.length === 0 || field.length > 16) return -1;
  let value = 0;
  for (let i = 0; i < field.length; i++) {
    const c = field.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    value = value * 10 + c;
  }
  return value <= Number.MAX_SAFE_INTEGER ? value : -1;
}

function grow<A extends Float64Array | Uint8Array>(array: A, capacity: number): A {
  const next = new (array.constructor as { new (n: number): A })(capacity);
  next.set(array);
  return next;
}

/** Formats event i of a parsed log as its log line (without the newline). */
export function formatLogEvent(log: ParsedLinkLog, i: number): string {
  const k = log.kind[i];
  const head = `${log.time[i]} ${KIND_CHAR[k]} ${log.a[i]}`;
  return k === LogEventKind.Departure || k === LogEventKind.Drop ? `${head} ${log.b[i]}` : head;
}
