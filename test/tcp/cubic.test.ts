// CUBIC's window against the formulas of RFC 9438, ACK by ACK (the
// congestion control alone: no network). RFC 9438's arithmetic runs with the
// slow starts other than Linux's HyStart (here 'standard'); Linux's CUBIC,
// the default, is in cubic-linux.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Cubic, CUBIC_ALPHA, cubicK, cubicWindow } from '../../src/tcp/cubic.ts';

const MSS = 1000;
const RFC = { mss: MSS, slowStart: 'standard' } as const;

test('W_cubic and K as RFC 9438 defines them: W(0) = beta W_max, W(K) = W_max', () => {
  const k = cubicK(100, 70);
  assert.ok(Math.abs(k - Math.cbrt(75)) < 1e-12);
  assert.ok(Math.abs(k - 4.2172) < 1e-4);
  assert.ok(Math.abs(cubicWindow(0, 100, k) - 70) < 1e-9);
  assert.is(cubicWindow(k, 100, k), 100);
  assert.ok(Math.abs(cubicWindow(k + 2, 100, k) - 103.2) < 1e-9);
  assert.ok(Math.abs(CUBIC_ALPHA - 0.9 / 1.7) < 1e-12);
});

/** Feeds one ACK of one segment every `gapMs` from `fromMs` to `toMs`, recording cwnd (segments) at the given times. */
function feed(cubic: Cubic, fromMs: number, toMs: number, gapMs: number, srttMs: number, at: number[]) {
  const seen = new Map<number, number>();
  let next = 0;
  for (let t = fromMs; t <= toMs; t += gapMs) {
    cubic.onAck(MSS, t, srttMs);
    while (next < at.length && at[next] <= t) seen.set(at[next++], cubic.cwnd / MSS);
  }
  return at.map((t) => seen.get(t)!);
}

test('after a congestion event at 100 segments, cwnd follows W_cubic(t + RTT) from 70 back to 100 at t = K', () => {
  const cubic = new Cubic(RFC);
  cubic.cwnd = 100 * MSS;
  cubic.onCongestion(0, 100 * MSS);
  assert.is(cubic.ssthresh, 70 * MSS);
  assert.is(cubic.state().wMax, 100);
  cubic.cwnd = cubic.ssthresh; // what the sender sets at the end of recovery
  const k = Math.cbrt(75);
  const times = [0.5, 1, 2, 3, k, 5].map((s) => 1000 + s * 1000);
  // one segment acknowledged per ms, SRTT 100 ms: cwnd trails its target by about cwnd / 1000 s, less than 2 segments
  const got = feed(cubic, 1000, 6000, 1, 100, times);
  times.forEach((t, i) => {
    const expected = cubicWindow((t - 1000) / 1000, 100, k);
    assert.ok(Math.abs(got[i] - expected) < 2, `t = ${(t - 1000) / 1000} s: cwnd ${got[i]}, W_cubic ${expected}`);
  });
  assert.is(cubic.state().epochStartMs, 1000);
  assert.ok(Math.abs(cubic.state().k - k) < 1e-9);
});

test('fast convergence: a congestion event below the last W_max lowers W_max to cwnd (1 + beta) / 2', () => {
  const cubic = new Cubic(RFC);
  cubic.cwnd = 100 * MSS;
  cubic.onCongestion(0, 100 * MSS);
  cubic.cwnd = 90 * MSS;
  cubic.onCongestion(10_000, 90 * MSS);
  assert.ok(Math.abs(cubic.state().wMax - 76.5) < 1e-9);
  assert.ok(Math.abs(cubic.ssthresh - 63 * MSS) < 1e-6);
  assert.is(cubic.state().cwndPrior, 90);
});

test('the Reno-friendly region: with many ACKs per window, cwnd = W_est, growing by alpha per window', () => {
  const cubic = new Cubic(RFC);
  cubic.cwnd = 10 * MSS;
  cubic.onCongestion(0, 10 * MSS); // W_max 10, cwnd 7: K = cbrt(7.5) = 1.96 s
  cubic.cwnd = cubic.ssthresh;
  // 7 segments acknowledged: W_est grows by alpha * 7 / cwnd ~ alpha, far faster than W_cubic near t = 0
  feed(cubic, 1000, 1006, 1, 100, []);
  const { wEst } = cubic.state();
  assert.ok(wEst > 7 + 0.9 * CUBIC_ALPHA && wEst < 7 + CUBIC_ALPHA + 1e-9, `W_est ${wEst}`);
  assert.ok(Math.abs(cubic.cwnd / MSS - wEst) < 1e-9, 'cwnd is W_est');
  assert.ok(cubicWindow(0.006, 10, Math.cbrt(7.5)) < wEst);
});

test('after a timeout: cwnd 1 MSS, ssthresh beta * FlightSize, and the next stage starts with K = 0 at its own cwnd', () => {
  // RFC 9438 alone: with Linux's HyStart (the default) the model also keeps Linux's floor of 5 % a round trip after a timeout (hystart.test.ts)
  const cubic = new Cubic({ mss: MSS, slowStart: 'standard' });
  cubic.cwnd = 100 * MSS;
  cubic.onTimeout(0, 100 * MSS);
  assert.is(cubic.cwnd, MSS);
  assert.is(cubic.ssthresh, 70 * MSS);
  cubic.cwnd = 70 * MSS; // slow start has reached ssthresh
  feed(cubic, 1000, 1000, 1, 100, []);
  assert.is(cubic.state().k, 0);
  assert.ok(Math.abs(cubic.state().wMax - 70) < 1e-9);
  // W_cubic(t) = 0.4 t^3 + 70: convex from the start (one ACK per 10 ms keeps W_est, +alpha per 70 ACKs, below it)
  const got = feed(cubic, 1010, 4000, 10, 100, [2000, 3000, 4000]);
  assert.ok(cubic.state().wEst < got[2], 'in the cubic region');
  assert.ok(got[1] - got[0] > got[0] - 70, `convex: ${got}`);
  assert.ok(got[2] - got[1] > got[1] - got[0], `convex: ${got}`);
});

test('slow start below ssthresh adds min(acked, 2 MSS) per ACK', () => {
  const cubic = new Cubic(RFC);
  cubic.onAck(2 * MSS, 0, 10);
  cubic.onAck(5 * MSS, 1, 10);
  assert.is(cubic.cwnd, 14 * MSS);
});

test.run();
