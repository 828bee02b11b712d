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

/** Quotes one argument the way mm-link's log does: in single quotes, with ' as '\''. */
export function shellQuote(argument: string): string {
  return `'${argument.replace(/'/g, "'\\''")}'`;
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

export class LinkLogParseError extends Error {
  constructor(readonly source: string, readonly line: number, readonly text: string, reason: string) {
    super(`${source}:${line}: ${reason}: ${JSON.stringify(text.length > 80 ? text.slice(0, 80) + '...' : text)}`);
    this.name = 'LinkLogParseError';
  }
}

const HEADER_PATTERNS: Array<[RegExp, (h: ParsedLinkLog['header'], m: RegExpExecArray) => void]> = [
  [/^# mahimahi mm-link \((.*)\) \[(.*)\] > (.*)$/, (h, m) => { h.linkName = m[1]; h.traceName = m[2]; h.logName = m[3]; }],
  [/^# command line:(.*)$/, (h, m) => { h.commandLineText = m[1].trim(); }],
  [/^# queue: (.*)$/, (h, m) => { h.queue = m[1]; }],
  [/^# init timestamp: (\d+)$/, (h, m) => { h.initTimestamp = Number(m[1]); }],
  [/^# base timestamp: (\d+)$/, (h, m) => { h.baseTimestamp = Number(m[1]); }],
];

/**
 * Parses an mm-link log (ours or Mahimahi's). Lines starting with '#' and a
 * space are comments (the header); blank lines and a final line without a
 * newline are accepted, CRLF line ends too. Anything else that is not one of
 * the four event forms, with non-negative integer fields, is an error naming
 * the source and line.
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
  const length = text.length;
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
      let matched = false;
      for (const [pattern, apply] of HEADER_PATTERNS) {
        const m = pattern.exec(line);
        if (m) {
          apply(header, m);
          matched = true;
          break;
        }
      }
      if (!matched) header.otherComments.push(line);
      continue;
    }
    const fields = line.split(' ');
    if (fields.length < 3 || fields.length > 4) throw new LinkLogParseError(source, lineNumber, line, 'expected "TIME KIND FIELD [FIELD]"');
    const k = KIND_CHAR.indexOf(fields[1] as (typeof KIND_CHAR)[number]);
    if (k < 0) throw new LinkLogParseError(source, lineNumber, line, `unknown event kind ${JSON.stringify(fields[1])} (expected +, #, - or d)`);
    const wantFields = k === LogEventKind.Arrival || k === LogEventKind.Opportunity ? 3 : 4;
    if (fields.length !== wantFields) throw new LinkLogParseError(source, lineNumber, line, `a "${fields[1]}" line has ${wantFields} fields`);
    const t = parseCount(fields[0]);
    const x = parseCount(fields[2]);
    const y = wantFields === 4 ? parseCount(fields[3]) : 0;
    if (t < 0) throw new LinkLogParseError(source, lineNumber, line, 'time is not a non-negative integer');
    if (x < 0 || y < 0) throw new LinkLogParseError(source, lineNumber, line, 'field is not a non-negative integer');
    if (count === capacity) {
      capacity *= 2;
      time = grow(time, capacity);
      kind = grow(kind, capacity);
      a = grow(a, capacity);
      b = grow(b, capacity);
    }
    time[count] = t;
    kind[count] = k;
    a[count] = x;
    b[count] = y;
    count++;
  }
  return { source, header, count, time: time.subarray(0, count), kind: kind.subarray(0, count), a: a.subarray(0, count), b: b.subarray(0, count) };
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
    throw new LinkLogParseError(source, lineNumber, line, 'expected a seed line "# seed of stage N (KIND): \"SEED\""');
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
