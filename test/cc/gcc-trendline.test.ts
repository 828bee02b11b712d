// The trendline estimator: the slope of the smoothed accumulated delay.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TrendlineEstimator, leastSquaresSlope } from '../../src/cc/gcc/trendline.ts';

const delta = (arrivalTimeMs: number, delayVariationMs: number) => ({ sendDeltaMs: 5, arrivalDeltaMs: 5 + delayVariationMs, delayVariationMs, arrivalTimeMs, packets: 1, sizeBytes: 1200 });

test('least squares: exact on a line, undefined when x does not vary', () => {
  assert.is(leastSquaresSlope([{ x: 0, y: 1 }, { x: 1, y: 3 }, { x: 2, y: 5 }]), 2);
  assert.is(leastSquaresSlope([{ x: 1, y: 1 }, { x: 1, y: 3 }]), undefined);
});

test('0 until the window of 20 is full; then the queue growth rate, scaled by min(deltas, 60) x 4', () => {
  const t = new TrendlineEstimator();
  // A queue growing 1 ms per 5 ms group: 0.2 ms per ms.
  let last;
  for (let i = 1; i <= 19; i++) {
    last = t.update(delta(5 * i, 1));
    assert.is(last.trend, 0);
  }
  last = t.update(delta(100, 1));
  assert.ok(last.trend > 0, `trend ${last.trend} once the window is full`);
  for (let i = 21; i <= 200; i++) last = t.update(delta(5 * i, 1));
  assert.ok(Math.abs(last!.trend - 0.2) < 1e-6, `trend ${last!.trend}`);
  assert.ok(Math.abs(last!.modifiedTrend - 60 * 0.2 * 4) < 1e-4, `modified ${last!.modifiedTrend}`);
  assert.is(last!.deltas, 200);
});

test('a draining queue gives a negative trend, a steady one about 0', () => {
  const drain = new TrendlineEstimator();
  const steady = new TrendlineEstimator();
  let d;
  let s;
  for (let i = 1; i <= 100; i++) {
    d = drain.update(delta(5 * i, -0.5));
    s = steady.update(delta(5 * i, i % 2 === 0 ? 0.3 : -0.3));
  }
  assert.ok(Math.abs(d!.trend + 0.1) < 1e-3, `drain ${d!.trend}`);
  assert.ok(Math.abs(s!.trend) < 0.01, `steady ${s!.trend}`);
});

test('after a build-up stops the trend returns to 0 within a window or so', () => {
  const t = new TrendlineEstimator();
  let e;
  for (let i = 1; i <= 60; i++) e = t.update(delta(5 * i, 1));
  assert.ok(e!.trend > 0.19);
  for (let i = 61; i <= 120; i++) e = t.update(delta(5 * i, 0));
  assert.ok(Math.abs(e!.trend) < 0.01, `trend ${e!.trend}`);
});

test.run();
