import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { InterArrivalEstimator } from '../../src/sprout/interarrival-estimator.ts';

const close = (actual: number | undefined, expected: number, eps = 1e-9) =>
  assert.ok(actual !== undefined && Math.abs(actual - expected) < eps, `expected ${expected}, got ${actual}`);

test('no estimate before the second packet; the first gap seeds the average', () => {
  const e = new InterArrivalEstimator();
  e.observe({ at: 10, frame: 0, graceMs: 0 });
  assert.is(e.estimateMs, undefined);
  e.observe({ at: 14, frame: 0, graceMs: 0 });
  close(e.estimateMs, 4);
});

test('EWMA with alpha 0.1 over a hand-made sequence within one frame', () => {
  const e = new InterArrivalEstimator();
  const times = [0, 2, 4, 14, 16];
  for (const at of times) e.observe({ at, frame: 7, graceMs: 0 });
  // gaps 2, 2, 10, 2: 2 -> 2 -> 0.1*10+0.9*2 = 2.8 -> 0.1*2+0.9*2.8 = 2.72
  close(e.estimateMs, 2.72);
});

test('grace: the gap before a frame\'s first packet is reduced by the reported inter-frame time', () => {
  // Two frames of 3 packets 1 ms apart; the sender idled 15 ms between them.
  const seq = [
    { at: 0, frame: 1, graceMs: 0 },
    { at: 1, frame: 1, graceMs: 0 },
    { at: 2, frame: 1, graceMs: 0 },
    { at: 18, frame: 2, graceMs: 15 },
    { at: 19, frame: 2, graceMs: 15 },
    { at: 20, frame: 2, graceMs: 15 },
  ];
  const withGrace = new InterArrivalEstimator();
  const without = new InterArrivalEstimator({ grace: false });
  const samples: (number | undefined)[] = [];
  for (const a of seq) {
    samples.push(withGrace.observe(a));
    without.observe(a);
  }
  assert.equal(samples, [undefined, 1, 1, 1, 1, 1]);
  close(withGrace.estimateMs, 1);
  // without grace the 16 ms gap counts: 1,1 -> 0.1*16+0.9 = 2.5 -> 2.35 -> 2.215
  close(without.estimateMs, 2.215);
});

test('grace is floored at zero and applies only to the first packet of a frame', () => {
  const e = new InterArrivalEstimator({ alpha: 0.5 });
  e.observe({ at: 0, frame: 1, graceMs: 0 });
  e.observe({ at: 4, frame: 1, graceMs: 0 }); // 4
  assert.is(e.observe({ at: 6, frame: 2, graceMs: 10 }), 0); // 2 - 10 floored
  close(e.estimateMs, 2);
  assert.is(e.observe({ at: 12, frame: 2, graceMs: 10 }), 6); // same frame: no grace
  close(e.estimateMs, 4);
});

test('a packet arriving out of time order counts as a zero gap and does not move the clock back', () => {
  const e = new InterArrivalEstimator({ alpha: 1 });
  e.observe({ at: 10, frame: 1, graceMs: 0 });
  assert.is(e.observe({ at: 8, frame: 1, graceMs: 0 }), 0);
  assert.is(e.observe({ at: 13, frame: 1, graceMs: 0 }), 3);
});

test('bad parameters are rejected with a clear message', () => {
  assert.throws(() => new InterArrivalEstimator({ alpha: 0 }), /alpha/);
  assert.throws(() => new InterArrivalEstimator({ alpha: 1.5 }), /alpha/);
  const e = new InterArrivalEstimator();
  assert.throws(() => e.observe({ at: NaN, frame: 0, graceMs: 0 }), /arrival time/);
  assert.throws(() => e.observe({ at: 1, frame: 0, graceMs: -1 }), /grace/);
});

test.run();
