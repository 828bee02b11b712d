// GCC's delay-based AIMD rate controller: the state machine, multiplicative
// and additive increase, decrease to beta x the received rate.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AimdRateController, nextState, type RateControlState } from '../../src/cc/gcc/rate-controller.ts';
import type { Usage } from '../../src/cc/gcc/overuse-detector.ts';

const limits = { initialBitrate: 1_000_000, minBitrate: 50_000, maxBitrate: 5_000_000 };
const close = (a: number, b: number, what: string) => assert.ok(Math.abs(a - b) < 1e-6 * Math.max(1, Math.abs(b)), `${what}: ${a}, expected ${b}`);

test('the state machine is the draft\'s table', () => {
  const table: Record<Usage, Record<RateControlState, RateControlState>> = {
    overuse: { hold: 'decrease', increase: 'decrease', decrease: 'decrease' },
    normal: { hold: 'increase', increase: 'increase', decrease: 'hold' },
    underuse: { hold: 'hold', increase: 'hold', decrease: 'hold' },
  };
  for (const signal of ['overuse', 'normal', 'underuse'] as const) {
    for (const state of ['hold', 'increase', 'decrease'] as const) assert.is(nextState(state, signal), table[signal][state], `${state} + ${signal}`);
  }
});

test('far from convergence the increase is 8 % a second (time since the last update, at most 1 s counted)', () => {
  const c = new AimdRateController(limits);
  assert.is(c.state(), 'hold');
  c.update('normal', undefined, 0, 100);
  assert.is(c.state(), 'increase');
  assert.is(c.bitrate(), 1_000_000, 'no time has passed');
  c.update('normal', undefined, 500, 100);
  close(c.bitrate(), 1_000_000 * Math.pow(1.08, 0.5), 'after 0.5 s');
  c.update('normal', undefined, 5_500, 100);
  close(c.bitrate(), 1_000_000 * Math.pow(1.08, 1.5), 'a 5 s gap counts as 1 s');
  // Capped at 1.5 x the received rate.
  c.update('normal', 600_000, 6_500, 100);
  close(c.bitrate(), 900_000, 'cap');
});

test('over-use: decrease to 0.85 x the received rate, at most once per RTT while it lasts; then normal holds, normal again increases', () => {
  const c = new AimdRateController(limits);
  c.update('normal', 1_000_000, 0, 100);
  c.update('overuse', 900_000, 100, 100);
  assert.is(c.state(), 'decrease');
  close(c.bitrate(), 765_000, '0.85 x 900 kbit/s');
  c.update('overuse', 800_000, 150, 100);
  close(c.bitrate(), 765_000, 'within an RTT of the last decrease: unchanged');
  c.update('overuse', 800_000, 200, 100);
  close(c.bitrate(), 680_000, 'an RTT later: 0.85 x 800 kbit/s');
  c.update('normal', 800_000, 300, 100);
  assert.is(c.state(), 'hold');
  close(c.bitrate(), 680_000, 'hold');
  c.update('underuse', 800_000, 400, 100);
  assert.is(c.state(), 'hold');
  close(c.bitrate(), 680_000, 'under-use holds');
  c.update('normal', 800_000, 500, 100);
  assert.is(c.state(), 'increase');
  assert.ok(c.bitrate() > 680_000);
});

test('near the received rate of past decreases the increase is additive: half a packet per response time (100 ms + RTT)', () => {
  const c = new AimdRateController(limits);
  c.update('overuse', 1_000_000, 0, 100); // average at decreases: 1 Mbit/s
  close(c.bitrate(), 850_000, 'first decrease');
  c.update('normal', 1_000_000, 100, 100); // -> hold
  assert.ok(c.nearConvergence(1_000_000));
  c.update('normal', 1_000_000, 200, 100); // -> increase, 100 ms later: alpha = 0.5 x 100 / 200
  close(c.bitrate(), 850_000 + 0.25 * 1200 * 8, 'additive');
  c.update('normal', 1_000_000, 200.001, 100);
  close(c.bitrate(), 850_000 + 0.25 * 1200 * 8 + 1000, 'at least 1 kbit');
  // A received rate far above the average: the path changed, back to multiplicative.
  assert.ok(!c.nearConvergence(1_500_000));
  const before = c.bitrate();
  c.update('normal', 1_500_000, 1_200.001, 100);
  close(c.bitrate(), before * 1.08, 'multiplicative again');
  assert.ok(!c.nearConvergence(1_000_000), 'the average was reset');
});

test('the estimate stays within [min, max]', () => {
  const c = new AimdRateController(limits);
  for (let t = 0; t < 100_000; t += 1000) c.update('normal', undefined, t, 100);
  assert.is(c.bitrate(), 5_000_000);
  for (let t = 100_000; t < 110_000; t += 300) c.update('overuse', 10_000, t, 100);
  assert.is(c.bitrate(), 50_000);
});

test.run();
