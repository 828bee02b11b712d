import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { InterArrivalEstimator } from '../../src/sprout/interarrival-estimator.ts';

const close = (actual: number | undefined, expected: number, eps = 1e-9) =>
  assert.ok(actual !== undefined && Math.abs(actual - expected) < eps, `expected ${expected}, got ${actual}`);

test('no estimate before the first packet; the first packet sets it to 0 (the reference\'s start), the EWMA grows from there', () => {
  const e = new InterArrivalEstimator();
  assert.is(e.estimateMs, undefined);
  assert.is(e.observe({ at: 10, graceMs: 0 }), undefined);
  assert.is(e.estimateMs, 0);
  assert.is(e.observe({ at: 14, graceMs: 0 }), 4);
  close(e.estimateMs, 0.4); // 0.1 x 4 + 0.9 x 0
});

test('EWMA with alpha 0.1 over a hand-made sequence', () => {
  const e = new InterArrivalEstimator();
  const times = [0, 2, 4, 14, 16];
  for (const at of times) e.observe({ at, graceMs: 0 });
  // 0 -> 0.2 -> 0.38 -> 0.1*10+0.9*0.38 = 1.342 -> 0.1*2+0.9*1.342 = 1.4078
  close(e.estimateMs, 1.4078);
});

test('grace: a sample is the gap minus the grace the packet carries, floored at 0', () => {
  // Two frames of 3 packets 1 ms apart; the sender handed frame 2 to its pacer 17 ms after frame 1,
  // so frame 2's first fragment carries 17 ms and arrives 16 ms after frame 1's last.
  const seq = [
    { at: 0, graceMs: 5 },
    { at: 1, graceMs: 0 },
    { at: 2, graceMs: 0 },
    { at: 18, graceMs: 17 },
    { at: 19, graceMs: 0 },
    { at: 20, graceMs: 0 },
  ];
  const withGrace = new InterArrivalEstimator({ alpha: 0.5 });
  const without = new InterArrivalEstimator({ alpha: 0.5, grace: false });
  const samples: (number | undefined)[] = [];
  const raw: (number | undefined)[] = [];
  for (const a of seq) {
    samples.push(withGrace.observe(a));
    raw.push(without.observe(a));
  }
  assert.equal(samples, [undefined, 1, 1, 0, 1, 1]); // max(0, 16 - 17)
  assert.equal(raw, [undefined, 1, 1, 16, 1, 1]);
  // 0 -> .5 -> .75 -> .375 -> .6875 -> .84375
  close(withGrace.estimateMs, 0.84375);
  // 0 -> .5 -> .75 -> 8.375 -> 4.6875 -> 2.84375
  close(without.estimateMs, 2.84375);
});

test('a grace carried by a later fragment (the sender puts 0 there) is subtracted too, like the reference', () => {
  const e = new InterArrivalEstimator({ alpha: 1 });
  e.observe({ at: 0, graceMs: 0 });
  assert.is(e.observe({ at: 6, graceMs: 4 }), 2);
  assert.is(e.observe({ at: 12, graceMs: 0 }), 6);
});

test('a packet arriving out of time order counts as a zero gap and does not move the clock back', () => {
  const e = new InterArrivalEstimator({ alpha: 1 });
  e.observe({ at: 10, graceMs: 0 });
  assert.is(e.observe({ at: 8, graceMs: 0 }), 0);
  assert.is(e.observe({ at: 13, graceMs: 0 }), 3);
});

test('bad parameters are rejected with a clear message', () => {
  assert.throws(() => new InterArrivalEstimator({ alpha: 0 }), /alpha/);
  assert.throws(() => new InterArrivalEstimator({ alpha: 1.5 }), /alpha/);
  const e = new InterArrivalEstimator();
  assert.throws(() => e.observe({ at: NaN, graceMs: 0 }), /arrival time/);
  assert.throws(() => e.observe({ at: 1, graceMs: -1 }), /grace/);
});

test.run();
