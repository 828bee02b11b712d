// Parsing the Mahimahi trace format, straight from bytes.
//
// The rules are those of mm-link's LinkQueue constructor, which reads the
// file with getline() and converts each line with myatoi() (strtol, base 10,
// the whole line must be consumed):
//   - one timestamp per line, in milliseconds; lines end with "\n";
//   - an empty line is an error;
//   - a line that is not a decimal integer is an error;
//   - a timestamp lower than the previous one is an error (repeats are fine:
//     each line is one delivery opportunity);
//   - a file with no timestamps, or whose last timestamp is 0, is an error.
// Decisions where Mahimahi is silent or unhelpful:
//   - CRLF: one "\r" before each "\n" (or at the end of the file) is
//     stripped, so Windows-edited traces load. (Mahimahi rejects them.) A line
//     that is empty once its "\r" is stripped counts as an empty line.
//   - A missing final newline is accepted (getline() reads the last line too).
//   - Leading whitespace (space, tab, \v, \f, \r) and one leading "+" are
//     accepted, because strtol skips/accepts them; trailing whitespace is
//     rejected, because myatoi requires strtol to consume the whole line.
//   - Negative values are rejected (Mahimahi would wrap them to huge unsigned
//     numbers); "-0" is accepted as 0, as strtol reads it.
//   - Values above MAX_TRACE_TIMESTAMP_MS (2^53 - 1, the largest integer a
//     JavaScript number holds exactly) are rejected.
import type { Trace } from './trace.ts';
import { ToolkitError } from '../common/errors.ts';

/** The largest timestamp accepted: beyond it milliseconds are no longer exact in a double. */
export const MAX_TRACE_TIMESTAMP_MS = Number.MAX_SAFE_INTEGER;

/** How much of an offending line an error message quotes. */
const QUOTE_LIMIT = 40;

/** A malformed trace: names the file, the 1-based line (when there is one) and the offending text. */
export class TraceFormatError extends ToolkitError {
  override readonly name = 'TraceFormatError';
  constructor(
    /** The file (or other source) named by the caller. */
    readonly source: string,
    /** 1-based line number; undefined for whole-file errors (an empty file). */
    readonly line: number | undefined,
    /** The offending text as the message shows it (quoted, escaped, truncated; a bare number for ordering errors). */
    readonly text: string | undefined,
    detail: string,
  ) {
    super('ERR_BAD_INPUT', `${source}${line === undefined ? '' : `:${line}`}: ${detail}`);
  }
}

const NL = 10;
const CR = 13;
const ZERO = 48;
const PLUS = 43;
const MINUS = 45;

/** strtol's leading whitespace (isspace in the C locale), minus "\n" which ends a line. */
function isLeadingSpace(byte: number): boolean {
  return byte === 32 || (byte >= 9 && byte <= 13 && byte !== NL);
}

// ignoreBOM keeps a byte-order mark in quoted text (it is what makes such a line invalid).
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
const encoder = new TextEncoder();

/** JSON-style quoting that also escapes every non-ASCII character, so invisible ones show. */
function quote(text: string): string {
  return JSON.stringify(text).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The line as a quoted string, truncated when long, control and non-ASCII characters escaped. */
function quoteLine(bytes: Uint8Array, start: number, stop: number): string {
  const length = stop - start;
  // Decode a little more than the limit so a multi-byte character at the cut is whole.
  const text = decoder.decode(bytes.subarray(start, Math.min(stop, start + QUOTE_LIMIT * 4)));
  const chars = Array.from(text);
  if (chars.length <= QUOTE_LIMIT && stop - start <= QUOTE_LIMIT * 4) return quote(text);
  return `${quote(chars.slice(0, QUOTE_LIMIT).join(''))}... (${length} bytes)`;
}

/**
 * Parses a Mahimahi trace (see the rules above). `source` names the file in
 * error messages and becomes the trace's `source`.
 */
export function parseTrace(data: string | Uint8Array, source: string): Trace {
  const bytes = typeof data === 'string' ? encoder.encode(data) : data;
  const n = bytes.length;
  // Real traces take 5-8 bytes a line: room for one line per 4 bytes rarely needs
  // to grow (it doubles when it does), and costs less than counting lines first.
  let times = new Float64Array((n >>> 2) + 16);
  let count = 0;
  let previous = -1;
  let line = 0;
  let pos = 0;

  while (pos < n) {
    line++;
    const start = pos;
    // Fast path: plain digits followed by "\n", "\r\n", or the end of the data.
    let value = 0;
    let i = start;
    let byte = bytes[i]!;
    while (i < n && byte >= ZERO && byte <= ZERO + 9 && i - start < 15) {
      value = value * 10 + (byte - ZERO);
      byte = bytes[++i]!;
    }
    if (i > start && (i === n || byte === NL || (byte === CR && (i + 1 === n || bytes[i + 1] === NL)))) {
      pos = i === n ? n : byte === NL ? i + 1 : i + 2;
    } else {
      // General path: find the line's end, then apply every rule with its message.
      let end = bytes.indexOf(NL, start);
      if (end < 0) end = n;
      pos = end + 1;
      value = parseLine(bytes, start, end, source, line);
    }
    if (value < previous) {
      throw new TraceFormatError(
        source,
        line,
        String(value),
        `timestamp ${value} is lower than the previous one (${previous} on line ${line - 1}); timestamps must be non-decreasing`,
      );
    }
    previous = value;
    if (count === times.length) {
      const grown = new Float64Array(times.length * 2);
      grown.set(times);
      times = grown;
    }
    times[count++] = value;
  }

  if (count === 0) throw new TraceFormatError(source, undefined, undefined, 'no timestamps (the trace is empty)');
  if (previous === 0) {
    throw new TraceFormatError(source, line, '0', 'the last timestamp is 0; a trace must last a nonzero time');
  }
  return { source, times: times.slice(0, count), period: previous };
}

/** One line (bytes[start, end), without its "\n") by the full rules; throws a TraceFormatError. */
function parseLine(bytes: Uint8Array, start: number, end: number, source: string, line: number): number {
  const stop = end > start && bytes[end - 1] === CR ? end - 1 : end;
  if (stop === start) throw new TraceFormatError(source, line, '', 'empty line');
  const fail = (detail: string): never => {
    const quoted = quoteLine(bytes, start, stop);
    throw new TraceFormatError(source, line, quoted, `${quoted} ${detail}`);
  };
  let i = start;
  while (i < stop && isLeadingSpace(bytes[i]!)) i++;
  let negative = false;
  if (i < stop && (bytes[i] === PLUS || bytes[i] === MINUS)) negative = bytes[i++] === MINUS;
  if (i === stop) fail('is not a whole number of milliseconds');
  let value = 0;
  for (; i < stop; i++) {
    const digit = bytes[i]! - ZERO;
    if (digit < 0 || digit > 9) fail('is not a whole number of milliseconds (one decimal integer per line)');
    // Stays exact up to 2^53; past it the value only needs to stay above the limit.
    if (value <= MAX_TRACE_TIMESTAMP_MS) value = value * 10 + digit;
  }
  if (negative && value !== 0) fail('is negative; timestamps are milliseconds >= 0');
  if (value > MAX_TRACE_TIMESTAMP_MS) fail(`is too large (the limit is 2^53 - 1 = ${MAX_TRACE_TIMESTAMP_MS} ms)`);
  return value;
}
