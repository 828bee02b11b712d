// CUBIC's congestion avoidance as Linux computes it (cubic-linux.ts, the
// CUBIC model's default), ACK by ACK against numbers worked out by hand from
// tcp_cubic.c's arithmetic: whole segments, jiffies of 4 ms (HZ 250), t in
// 1/1024 s read at t + delay_min.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Cubic } from '../../src/tcp/cubic.ts';
import { jiffies, linuxCubicK, linuxCubicSsthresh, linuxCubicTarget } from '../../src/tcp/cubic-linux.ts';

const MSS = 1000;

/** One ACK of one segment at `nowMs` with an RTT sample of 40 ms and SRTT 400 ms (a full queue). */
function ack(cubic: Cubic, nowMs: number): void {
  cubic.onAck(MSS, nowMs, 400, { sndUna: 0, sndNxt: 0, rttMs: 40, nowMs, srttMs: 400 });
}

/** A congestion event at `lossCwnd` segments, then cwnd = ssthresh as recovery leaves it. */
function afterLoss(lossCwnd: number): Cubic {
  const cubic = new Cubic({ mss: MSS });
  cubic.cwnd = lossCwnd * MSS;
  cubic.onCongestion(0, lossCwnd * MSS);
  cubic.cwnd = cubic.ssthresh;
  return cubic;
}

test('the arithmetic: ssthresh cwnd 717 / 1024, K = cbrt((W_max - cwnd) 2^40 / 410) in 1/1024 s, the target W_max -+ floor(410 offs^3 >> 40)', () => {
  assert.is(linuxCubicSsthresh(100), 70); // 71 700 / 1024 = 70.02
  assert.is(linuxCubicSsthresh(2), 2);
  assert.is(linuxCubicK(30), 4316); // 4.215 s; RFC 9438: cbrt(30 / 0.4) = 4.217 s
  assert.is(linuxCubicTarget(40, 4316, 100), 71); // offs 4276: 410 x 4276^3 / 2^40 = 29.2
  assert.is(linuxCubicTarget(1064, 4316, 100), 88); // offs 3252: 12.5
  assert.is(linuxCubicTarget(4316 + 1024, 4316, 100), 100); // 1 s past K: 0.4 segments, floored
  assert.is(linuxCubicTarget(4316 + 2048, 4316, 100), 103); // 2 s past K: 3.2
  assert.is(jiffies(1003.9), 250);
});

test('after a loss at 100 segments the curve is read at t + delay_min (40 ms), not t + SRTT (400 ms): cnt 70, and cwnd grows by whole segments', () => {
  const cubic = afterLoss(100);
  assert.is(cubic.ssthresh, 70 * MSS);
  ack(cubic, 1000);
  // t = (0 + ceil(40 / 4)) jiffies = 40 / 1024 s: target 71, cnt = 70 / (71 - 70) = 70 (at t + 400 ms: target 78, cnt 8)
  assert.equal(cubic.linux!.state().cnt, 70);
  assert.equal([cubic.linux!.state().k, cubic.linux!.state().originPoint, cubic.linux!.state().epochStart], [4316, 100, 250]);
  assert.is(cubic.cwnd, 70 * MSS);
  for (let i = 2; i <= 69; i++) ack(cubic, 1000);
  assert.is(cubic.cwnd, 70 * MSS, 'cwnd unchanged after 69 segments');
  ack(cubic, 1000);
  assert.is(cubic.cwnd, 71 * MSS, 'one more segment at the 70th');
  assert.is(cubic.linux!.state().cwndCnt, 0);
});

test('cnt is recomputed when cwnd changes or HZ / 32 jiffies have passed: one second on, target 88 and cnt 3', () => {
  const cubic = afterLoss(100);
  ack(cubic, 1000);
  ack(cubic, 1020); // 5 jiffies on, cwnd unchanged: cnt kept
  assert.is(cubic.linux!.state().cnt, 70);
  ack(cubic, 2000); // t = (250 + 10) x 1024 / 250 = 1064: target 88, cnt = 70 / 18 = 3
  assert.is(cubic.linux!.state().cnt, 3);
  assert.is(cubic.cwnd, 71 * MSS); // snd_cwnd_cnt 3 >= 3
});

test('fast convergence in whole segments: a loss at 90 below W_max 100 gives W_max floor(90 x 1741 / 2048) = 76 and ssthresh 63', () => {
  const cubic = afterLoss(100);
  cubic.cwnd = 90 * MSS;
  cubic.onCongestion(10_000, 90 * MSS);
  assert.is(cubic.linux!.state().lastMaxCwnd, 76); // RFC 9438: 76.5
  assert.is(cubic.ssthresh, 63 * MSS);
  assert.is(cubic.linux!.state().epochStart, undefined);
});

test('before the first loss cnt is at most 20 (5 % a round trip); a timeout starts over with delay_min unknown', () => {
  const cubic = new Cubic({ mss: MSS, initialWindow: 100 });
  cubic.ssthresh = cubic.cwnd; // as HyStart leaves it
  ack(cubic, 1000); // W_max 0: origin = cwnd, K = 0, target 100: cnt 100 x 100, capped at 20
  assert.is(cubic.linux!.state().cnt, 20);
  cubic.onTimeout(2000, 100 * MSS);
  assert.is(cubic.cwnd, MSS);
  assert.is(cubic.ssthresh, 70 * MSS);
  assert.equal([cubic.linux!.state().lastMaxCwnd, cubic.linux!.state().delayMinMs, cubic.linux!.state().epochStart], [0, 0, undefined]);
});

test.run();
