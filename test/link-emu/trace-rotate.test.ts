// rotateTrace: a trace replayed from its time S. Its opportunities over its
// first period are exactly the original's in (S, S + P], shifted by S; for
// every later period too when S is one of the trace's timestamps.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatTrace } from '../../src/link-emu/trace-format.ts';
import { cellularTrace } from '../../src/link-emu/trace-generators.ts';
import { parseTrace } from '../../src/link-emu/trace-parse.ts';
import { rotateTrace } from '../../src/link-emu/trace-rotate.ts';
import type { Trace } from '../../src/link-emu/trace.ts';

const trace = (times: number[]): Trace => ({ source: 'test', times: Float64Array.from(times), period: times[times.length - 1]! });

/** The trace's opportunities in (from, to], as Mahimahi repeats it (t + kP). */
function opportunities(t: Trace, from: number, to: number): number[] {
  const out: number[] = [];
  for (let base = 0; base <= to; base += t.period) for (const x of t.times) if (x + base > from && x + base <= to) out.push(x + base);
  return out;
}

test('a small trace rotated at one of its timestamps and between two', () => {
  const t = trace([1, 2, 5, 10]);
  const at2 = rotateTrace(t, 2);
  assert.equal([...at2.times], [3, 8, 9, 10]);
  assert.is(at2.period, 10);
  assert.equal(opportunities(at2, 0, 40), opportunities(t, 2, 42).map((x) => x - 2), 'exact in every period');
  const at3 = rotateTrace(t, 3);
  assert.equal([...at3.times], [2, 7, 8, 9]);
  assert.is(at3.period, 9, 'the gap between 3 and the opportunity at 2 is not representable');
  assert.equal(opportunities(at3, 0, 9), opportunities(t, 3, 12).map((x) => x - 3), 'exact over the first period');
  assert.is(rotateTrace(t, 0), t);
  assert.equal([...rotateTrace(t, 23).times], [...rotateTrace(t, 3).times], 'taken modulo the period');
  const zeros = trace([0, 0, 4, 6]);
  assert.equal([...rotateTrace(zeros, 4).times], [2, 2, 2, 6], 'entries at 0 come round with the period');
  assert.equal(opportunities(rotateTrace(zeros, 4), 0, 30), opportunities(zeros, 4, 34).map((x) => x - 4));
});

test('a cellular trace: the first period exact at any offset, every period when the offset is a timestamp', () => {
  const t = cellularTrace({ meanMbps: 4, durationMs: 60_000, seed: 7 });
  for (const s of [1, 999, 12_000, 33_333, t.period - 1]) {
    const r = rotateTrace(t, s);
    assert.equal(opportunities(r, 0, r.period), opportunities(t, s, s + r.period).map((x) => x - s), `offset ${s}`);
    assert.equal(parseTrace(formatTrace(r), 'rotated').times, r.times, 'a valid trace file');
    assert.is(r.times.length, t.times.length, 'no opportunity gained or lost per period');
  }
  const s = t.times[1234]!;
  const r = rotateTrace(t, s);
  assert.is(r.period, t.period);
  assert.equal(opportunities(r, 0, 3 * t.period), opportunities(t, s, s + 3 * t.period).map((x) => x - s));
});

test('a bad offset is refused', () => {
  for (const bad of [-1, 0.5, NaN, Infinity]) assert.throws(() => rotateTrace(trace([1, 2]), bad), /whole number of ms >= 0/);
});

test.run();
