// HyStart++ (RFC 9406) and Linux's HyStart (tcp_cubic.c) ACK by ACK, against
// hand-computed rounds, and what each does to a sender's slow start.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HyStartPlusPlus, hyStartRttThreshold } from '../../src/tcp/hystart-plus-plus.ts';
import { LinuxHyStart, linuxHyStartAckDelay, linuxHyStartDelayThreshold } from '../../src/tcp/hystart-linux.ts';
import { NewReno } from '../../src/tcp/newreno.ts';
import { Cubic } from '../../src/tcp/cubic.ts';
import { checkTcpFlowOptions } from '../../src/tcp/tcp-flow.ts';

const MSS = 1000;

test('RttThresh = clamp(lastRoundMinRTT / 8, 4 ms, 16 ms)', () => {
  assert.is(hyStartRttThreshold(20), 4);
  assert.is(hyStartRttThreshold(80), 10);
  assert.is(hyStartRttThreshold(200), 16);
});

test('HyStart++: CSS once a round of at least 8 samples has its minimum >= the last round\'s + RttThresh, not before the 8th sample', () => {
  const h = new HyStartPlusPlus();
  h.onAck({ sndUna: 1000, sndNxt: 2000, rttMs: 40 }); // the first ACK starts round 1 (windowEnd 2000): minimum 40
  // round 2 (windowEnd 3000): a minimum of 44 < 40 + max(4, 40 / 8)
  const second = [];
  for (let i = 0; i < 8; i++) second.push(h.onAck({ sndUna: 2000 + i, sndNxt: 3000, rttMs: 44 }));
  assert.equal(second, Array(8).fill('slow-start'));
  // round 3: minimum 50 >= 44 + 5.5, decided at the 8th sample (an ACK without one does not count)
  const third = [50, 51, 52, undefined, 53, 54, 55, 56, 57].map((rttMs, i) => h.onAck({ sndUna: 3000 + i, sndNxt: 4000, rttMs }));
  assert.equal(third, [...Array(8).fill('slow-start'), 'css']);
  assert.is(h.growthDivisor(), 4);
});

test('HyStart++: CSS ends in congestion avoidance at the end of its 5th round (the one it began in counts)', () => {
  const h = new HyStartPlusPlus();
  h.onAck({ sndUna: 1000, sndNxt: 2000, rttMs: 40 }); // round 1: windowEnd 2000, minimum 40
  for (let i = 0; i < 8; i++) h.onAck({ sndUna: 2000 + i, sndNxt: 3000, rttMs: 40 }); // round 2 (windowEnd 3000), minimum 40
  // round 3 (windowEnd 4000): 8 samples of 50 >= 40 + 5: CSS
  for (let i = 0; i < 8; i++) h.onAck({ sndUna: 3000 + i, sndNxt: 4000, rttMs: 50 });
  assert.is(h.phase(), 'css');
  // the ACKs at 4000, 5000, 6000 and 7000 end CSS's rounds 1 to 4 (round 1 being the one it began in); the one at 8000 ends the 5th
  const seen: string[] = [];
  for (let end = 4000; end <= 8000; end += 1000) seen.push(h.onAck({ sndUna: end, sndNxt: end + 1000, rttMs: 60 }));
  assert.equal(seen, ['css', 'css', 'css', 'css', 'exit']);
  assert.is(h.phase(), 'done');
  assert.is(h.growthDivisor(), 1);
});

test('HyStart++: a CSS round whose minimum falls below the baseline goes back to slow start (a false alarm)', () => {
  const h = new HyStartPlusPlus();
  h.onAck({ sndUna: 1000, sndNxt: 2000, rttMs: 40 });
  for (let i = 0; i < 8; i++) h.onAck({ sndUna: 2000 + i, sndNxt: 3000, rttMs: 40 });
  for (let i = 0; i < 8; i++) h.onAck({ sndUna: 3000 + i, sndNxt: 4000, rttMs: 50 }); // CSS, baseline 50
  // next round: 7 samples of 45 leave CSS alone; the 8th decides
  const phases = [];
  for (let i = 0; i < 8; i++) phases.push(h.onAck({ sndUna: 4000 + i, sndNxt: 5000, rttMs: 45 }));
  assert.equal(phases, [...Array(7).fill('css'), 'slow-start']);
});

test('HyStart++ in NewReno: a quarter of the growth in CSS, ssthresh = cwnd at its end, and nothing after a loss', () => {
  const reno = new NewReno({ mss: MSS, slowStart: 'hystart++' });
  const ack = (sndUna: number, sndNxt: number, rttMs: number) => reno.onAck(2 * MSS, 0, 40, { sndUna, sndNxt, rttMs, nowMs: 0, srttMs: 40 });
  ack(1000, 2000, 40);
  for (let i = 0; i < 8; i++) ack(2000 + i, 3000, 40);
  assert.is(reno.cwnd, 10 * MSS + 9 * 2 * MSS);
  for (let i = 0; i < 8; i++) ack(3000 + i, 4000, 50); // the 8th enters CSS and grows by 2 MSS / 4
  assert.is(reno.cwnd, 28 * MSS + 7 * 2 * MSS + 500);
  ack(4000, 5000, 60);
  assert.is(reno.cwnd, 42 * MSS + 1000);
  for (let end = 5000; end <= 8000; end += 1000) ack(end, end + 1000, 60); // 3 more rounds grow; the 5th round's end exits
  assert.is(reno.cwnd, 43 * MSS + 1500);
  assert.is(reno.ssthresh, reno.cwnd);
  const standard = new NewReno({ mss: MSS, slowStart: 'standard' });
  for (let i = 0; i < 30; i++) standard.onAck(2 * MSS, 0, 40, { sndUna: 1000 * i, sndNxt: 1000 * i + 500, rttMs: 40 + 10 * i, nowMs: 0, srttMs: 40 });
  assert.is(standard.cwnd, 70 * MSS);
  assert.is(standard.ssthresh, Infinity);
});

test('Linux HyStart: thresholds as tcp_cubic.c computes them', () => {
  assert.is(linuxHyStartDelayThreshold(20), 4);
  assert.is(linuxHyStartDelayThreshold(40), 5);
  assert.is(linuxHyStartDelayThreshold(400), 16);
  // 2 cwnd / SRTT = 2 x 20 000 B / 40 ms = 1000 B/ms: 4 x 64 KB takes 262 ms, capped at 1 ms; at 1 GB/s it is 0.26 ms
  assert.is(linuxHyStartAckDelay(20_000, 40), 1);
  assert.ok(Math.abs(linuxHyStartAckDelay(20_000_000, 40) - 0.262144) < 1e-9);
});

const linuxAck = (nowMs: number, sndUna: number, sndNxt: number, rttMs: number | undefined, cwndSegments: number) => ({ nowMs, sndUna, sndNxt, rttMs, cwndBytes: cwndSegments * MSS, mss: MSS, srttMs: 40 });

test('Linux HyStart, delay: the minimum of a round\'s first 8 samples above delay_min + 5 ms ends slow start at the 9th ACK; nothing below 16 segments', () => {
  const h = new LinuxHyStart();
  // cwnd 15: only delay_min is kept (40)
  assert.not.ok(h.onAck(linuxAck(0, 1000, 2000, 40, 15)));
  // cwnd 16 from here; the ACKs 3 ms apart keep the ACK train out of it; samples of 46 > 40 + 5
  const found = [];
  for (let i = 0; i < 10; i++) found.push(h.onAck(linuxAck(10 + 3 * i, 3000 + i, 10_000, 46, 16 + i)));
  assert.equal(found, [false, false, false, false, false, false, false, false, true, false]);
  assert.is(h.reason, 'delay');
});

test('Linux HyStart, ACK train: ACKs at most 2 ms apart for longer than (delay_min + 1 ms) / 2 since the round began', () => {
  const h = new LinuxHyStart();
  h.onAck(linuxAck(0, 1000, 2000, 40, 20)); // delay_min 40; this ACK starts a round at 0
  // one ACK a millisecond, RTT 40 (no delay signal): the threshold is (40 + 1) / 2 = 20.5 ms
  const at = [];
  for (let t = 1; t <= 25 && !h.isFound(); t++) if (h.onAck(linuxAck(t, 1000 + t, 2000, 40, 20 + t))) at.push(t);
  assert.equal(at, [21]);
  assert.is(h.reason, 'ack-train');
  // an ACK 3 ms late breaks the train: a new connection with one gap at 10 ms never finds it by 25 ms
  const g = new LinuxHyStart();
  g.onAck(linuxAck(0, 1000, 2000, 40, 20));
  for (let t = 1; t <= 25; t++) if (t < 10 || t > 12) assert.not.ok(g.onAck(linuxAck(t, 1000 + t, 2000, 40, 20 + t)), `t = ${t}`);
});

test('CUBIC with Linux\'s HyStart: after it ends slow start without a loss, at least one segment per 20 acknowledged', () => {
  const cubic = new Cubic({ mss: MSS, initialWindow: 100, slowStart: 'hystart-linux' });
  cubic.ssthresh = cubic.cwnd; // as HyStart leaves it: congestion avoidance, K = 0, W_max = cwnd
  for (let i = 0; i < 10; i++) cubic.onAck(2 * MSS, 0, 40);
  // at t = 0 W_cubic adds nothing and W_est 20 / 100 of a segment: the 5 % rule gives + 1 for 20 segments acked
  assert.ok(Math.abs(cubic.cwnd - 101 * MSS) < 1e-6, `cwnd ${cubic.cwnd}`);
  const rfc = new Cubic({ mss: MSS, initialWindow: 100, slowStart: 'hystart++' });
  rfc.ssthresh = rfc.cwnd;
  for (let i = 0; i < 10; i++) rfc.onAck(2 * MSS, 0, 40);
  assert.ok(rfc.cwnd > 100.19 * MSS && rfc.cwnd < 100.21 * MSS, `RFC 9438 (W_est): ${rfc.cwnd}`);
  // after a loss the rule no longer applies
  cubic.onCongestion(0, 101 * MSS);
  cubic.cwnd = cubic.ssthresh;
  const before = cubic.cwnd;
  cubic.onAck(2 * MSS, 0, 40);
  assert.ok(cubic.cwnd - before < 0.05 * MSS, `after a loss: + ${(cubic.cwnd - before) / MSS}`);
});

test('slowStart is checked', () => {
  assert.throws(() => checkTcpFlowOptions({ cc: 'cubic', slowStart: 'hystart' as 'standard' }), /slowStart must be one of "hystart\+\+", "hystart-linux", "standard", got "hystart"/);
});

test.run();
