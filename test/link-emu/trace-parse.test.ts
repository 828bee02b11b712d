import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { parseTrace, TraceFormatError, MAX_TRACE_TIMESTAMP_MS } from '../../src/link-emu/trace-parse.ts';

const SHARED = new URL('../../../shared/traces/', import.meta.url);

function times(text: string): number[] {
  return Array.from(parseTrace(text, 't').times);
}

/** The TraceFormatError parseTrace throws for `text`. */
function failure(text: string | Uint8Array, source = 'bad.trace'): TraceFormatError {
  try {
    parseTrace(text, source);
  } catch (error) {
    assert.instance(error, TraceFormatError);
    return error as TraceFormatError;
  }
  assert.unreachable(`accepted ${JSON.stringify(text)}`);
  throw new Error('unreachable');
}

test('one timestamp per line; repeats are several opportunities; period is the last timestamp', () => {
  const trace = parseTrace('0\n1\n1\n1\n5\n5\n9\n', 'a.trace');
  assert.equal(Array.from(trace.times), [0, 1, 1, 1, 5, 5, 9]);
  assert.is(trace.period, 9);
  assert.is(trace.source, 'a.trace');
  assert.instance(trace.times, Float64Array);
  assert.is(trace.times.length, 7); // not the over-allocated buffer
});

test('a missing final newline is accepted', () => {
  assert.equal(times('3\n4\n7'), [3, 4, 7]);
  assert.equal(times('12'), [12]);
});

test('CRLF line ends are accepted (one \\r stripped per line), also without the final newline', () => {
  assert.equal(times('3\r\n4\r\n7\r\n'), [3, 4, 7]);
  assert.equal(times('3\r\n4\r\n7\r'), [3, 4, 7]);
  assert.equal(times('3\n4\r\n7'), [3, 4, 7]);
});

test('bytes and strings parse alike', () => {
  const text = '1\n2\n2\n30\n';
  assert.equal(Array.from(parseTrace(new TextEncoder().encode(text), 'x').times), times(text));
});

test('leading whitespace and a "+" are accepted, as strtol does', () => {
  assert.equal(times(' 1\n\t2\n  +3\n+4\n\x0b5\n'), [1, 2, 3, 4, 5]);
  assert.equal(times('-0\n7\n'), [0, 7]);
});

test('long numbers on the general path are exact', () => {
  assert.equal(times('1234567890123456\n'), [1234567890123456]);
  assert.equal(times(`0001\n${MAX_TRACE_TIMESTAMP_MS}\n`), [1, MAX_TRACE_TIMESTAMP_MS]);
});

test('an empty line is an error with file and line', () => {
  const e = failure('1\n2\n\n3\n');
  assert.is(e.message, 'bad.trace:3: empty line');
  assert.is(e.line, 3);
  assert.is(e.source, 'bad.trace');
  assert.is(failure('\n').line, 1);
  assert.is(failure('5\n\n').line, 2); // a blank last line, not just the final newline
  assert.is(failure('1\r\n\r\n2\r\n').message, 'bad.trace:2: empty line'); // blank once CR is stripped
});

test('a non-integer is an error quoting the text', () => {
  const cases: Array<[string, number, string]> = [
    ['1\n2.5\n', 2, '"2.5"'],
    ['1\nabc\n', 2, '"abc"'],
    ['1\n7 \n', 2, '"7 "'], // trailing space: strtol must consume the whole line
    ['1\n0x10\n', 2, '"0x10"'],
    ['1e3\n', 1, '"1e3"'],
    ['+\n', 1, '"+"'],
    ['   \n', 1, '"   "'],
    ['5\r\r\n', 1, '"5\\r"'], // only one \r is stripped
    ['\ufeff1\n', 1, '"\\ufeff1"'], // a byte-order mark is not whitespace
    ['1\n2\n3\n4\n5\n6\n7\n8\n9,\n', 9, '"9,"'],
  ];
  for (const [text, line, quoted] of cases) {
    const e = failure(text);
    assert.is(e.line, line, JSON.stringify(text));
    assert.is(e.text, quoted, JSON.stringify(text));
    assert.ok(e.message.startsWith(`bad.trace:${line}: ${quoted} is not a whole number of milliseconds`), e.message);
  }
});

test('a long offending line is quoted truncated, with its length', () => {
  const long = '1'.repeat(10) + 'x'.repeat(990);
  const e = failure(`4\n${long}\n`);
  assert.is(e.line, 2);
  assert.is(e.text, `"${long.slice(0, 40)}"... (1000 bytes)`);
  assert.ok(e.message.length < 200, e.message);
});

test('a negative timestamp is an error', () => {
  const e = failure('1\n-5\n');
  assert.is(e.message, 'bad.trace:2: "-5" is negative; timestamps are milliseconds >= 0');
});

test('a timestamp lower than the previous one is an error naming both', () => {
  const e = failure('1\n7\n7\n5\n9\n');
  assert.is(e.line, 4);
  assert.is(e.message, 'bad.trace:4: timestamp 5 is lower than the previous one (7 on line 3); timestamps must be non-decreasing');
});

test('values over 2^53 - 1 are an error', () => {
  const e = failure(`${MAX_TRACE_TIMESTAMP_MS + 1}\n`);
  assert.is(e.line, 1);
  assert.match(e.message, /is too large \(the limit is 2\^53 - 1/);
  const huge = failure('9'.repeat(5000));
  assert.match(huge.message, /^bad\.trace:1: "9{40}"\.\.\. \(5000 bytes\) is too large/);
});

test('no timestamps, or a last timestamp of 0, are errors', () => {
  assert.is(failure('').message, 'bad.trace: no timestamps (the trace is empty)');
  assert.is(failure(new Uint8Array(0)).line, undefined);
  const zero = failure('0\n0\n0\n');
  assert.is(zero.line, 3);
  assert.is(zero.message, 'bad.trace:3: the last timestamp is 0; a trace must last a nonzero time');
});

test('control characters in quoted text are escaped', () => {
  const e = failure('1\n2\x003\n');
  assert.is(e.text, '"2\\u00003"');
});

test('shared traces parse with the counts and periods of their README', () => {
  const expected: Array<[string, number, number]> = [
    ['TMobile-LTE-driving.down', 505078, 474.6],
    ['ATT-LTE-driving.down', 338895, 786.1],
    ['12mbps.down', 1, 0.0],
    ['0.57mbps-poisson.up', 2786, 60.0],
    ['goodbad.down', 22001, 239.9],
  ];
  for (const [name, count, periodS] of expected) {
    const trace = parseTrace(readFileSync(new URL(name, SHARED)), name);
    assert.is(trace.times.length, count, name);
    assert.ok(Math.abs(trace.period / 1000 - periodS) <= 0.05, `${name}: period ${trace.period}`);
  }
  assert.is(parseTrace(readFileSync(new URL('12mbps.down', SHARED)), '12mbps').period, 1);
});

test.run();
