// The parts of `gcc` that follow libwebrtc's goog_cc: the acknowledged
// bitrate estimator, the loss-based rule, the AIMD rule's differences, the
// probe estimator and start-up probing; and gcc against gcc-draft02 over the
// simulator (start-up; the over-use gains).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AcknowledgedBitrateEstimator } from '../../src/cc/gcc/acknowledged-bitrate.ts';
import { LibwebrtcLossController } from '../../src/cc/gcc/loss-libwebrtc.ts';
import { AimdRateController, libwebrtcAdditiveRate } from '../../src/cc/gcc/rate-controller.ts';
import { ProbeBitrateEstimator } from '../../src/cc/gcc/probe-estimator.ts';
import { ProbeController } from '../../src/cc/gcc/probe-controller.ts';
import { AlrDetector } from '../../src/cc/gcc/alr.ts';
import { GCC_DRAFT02, GCC_LIBWEBRTC, gccController, gccDraft02Controller } from '../../src/cc/gcc/gcc.ts';
import { DETECTOR_DEFAULTS } from '../../src/cc/gcc/overuse-detector.ts';
import { runMediaFlow, scheduleTrace } from './media-flow-harness.ts';

const limits = { initialBitrate: 300_000, minBitrate: 50_000, maxBitrate: 10_000_000 };

test('acknowledged bitrate: the first 500 ms window sets it; later 150 ms windows move it by their uncertainty', () => {
  const e = new AcknowledgedBitrateEstimator();
  // 1250 bytes every 10 ms: 1 Mbit/s.
  let t = 0;
  for (; t <= 490; t += 10) e.add(t, 1250);
  assert.is(e.bitrate(), undefined, 'no window closed yet');
  e.add(t, 1250);
  t += 10;
  // The first window (500 ms) held 50 packets: 1000 kbit/s.
  assert.is(e.bitrate(), 1_000_000);
  // The same rate: the estimate stays.
  for (; t < 2000; t += 10) e.add(t, 1250);
  assert.ok(Math.abs(e.bitrate()! - 1_000_000) < 1, `${e.bitrate()}`);
  // Halved: a far sample counts little at first (uncertainty 10 x 0.5 = 5, variance 25 against the estimate's ~6),
  // then more as the estimate nears it.
  const before = e.bitrate()!;
  for (let n = 0; n < 15; n++, t += 20) e.add(t, 1250);
  const first = e.bitrate()!;
  assert.ok(first < before && first > 0.75 * before, `after one 150 ms window at half the rate: ${first}`);
  for (let n = 0; n < 300; n++, t += 20) e.add(t, 1250);
  // Near it: 7 or 8 packets per 150 ms window (the window's excess carries over), as libwebrtc counts them.
  assert.ok(Math.abs(e.bitrate()! - 500_000) < 40_000, `converges: ${e.bitrate()}`);
});

test('acknowledged bitrate: a gap longer than a window drops what was summed before it; expectFastRateChange lets the next samples move it more', () => {
  const a = new AcknowledgedBitrateEstimator();
  const b = new AcknowledgedBitrateEstimator();
  for (const e of [a, b]) for (let t = 0; t <= 3000; t += 10) e.add(t, 1250);
  b.expectFastRateChange();
  for (const e of [a, b]) for (let t = 3010; t <= 3310; t += 5) e.add(t, 1250);
  assert.ok(b.bitrate()! - 1_000_000 > 2 * (a.bitrate()! - 1_000_000), `fast ${b.bitrate()}, normal ${a.bitrate()}`);
  const c = new AcknowledgedBitrateEstimator();
  for (let t = 0; t <= 1000; t += 10) c.add(t, 1250);
  const held = c.bitrate();
  c.add(2000, 100_000);
  assert.is(c.bitrate(), held, 'the packet after the gap opens a new window');
});

test('libwebrtc loss rule: no limit in the first 2 s without loss; 1.08 x the lowest target of the last second under 2 %; hold from 2 to 10 %; (1 - p/2) over 10 %, once per fraction', () => {
  const l = new LibwebrtcLossController(limits);
  // 100 packets a report every 100 ms, no loss, target 1 Mbit/s.
  for (let t = 100; t < 2000; t += 100) assert.is(l.update(0, 10, t, 1e6, 5e6, 100), Infinity);
  l.update(0, 10, 2100, 1e6, 5e6, 100);
  assert.is(l.bitrate(), 1e6 * 1.08 + 1000);
  // Never above the delay-based estimate.
  assert.is(l.update(0, 10, 2200, 1e6, 900_000, 100), 900_000);
  // 5 % loss over the next second: held.
  const held = new LibwebrtcLossController(limits);
  for (let t = 100; t <= 2100; t += 100) held.update(0, 10, t, 1e6, 5e6, 100);
  const before = held.bitrate();
  // The fraction is formed once a second from the reports since the last one (here 1300-2300, 2400-3400, 3500-4500).
  for (let t = 2200; t <= 4500; t += 100) held.update(t % 200 === 0 ? 1 : 0, 10, t, 1e6, 5e6, 100);
  assert.ok(Math.abs(held.lossFraction()! - 0.05) < 0.01, `${held.lossFraction()}`);
  assert.is(held.bitrate(), before);
  // 20 % loss: one cut to target x (1 - 0.1), not another until a new fraction.
  const cut = new LibwebrtcLossController(limits);
  for (let t = 100; t <= 2100; t += 100) cut.update(0, 10, t, 1e6, 5e6, 100);
  for (let t = 2200; t <= 4500; t += 100) cut.update(2, 10, t, 1e6, 5e6, 100);
  const fraction = cut.lossFraction()!;
  assert.is(fraction, Math.floor(0.2 * 256) / 256);
  assert.ok(Math.abs(cut.bitrate() - 1e6 * (1 - fraction / 2)) < 1, `${cut.bitrate()} after ${fraction}`);
  const once = cut.bitrate();
  cut.update(2, 10, 4600, once, 5e6, 100);
  assert.is(cut.bitrate(), once, 'the same fraction does not cut twice');
});

test('libwebrtc AIMD: a decrease to 0.85 R - 5 kbit/s; no second decrease within an RTT; increase capped at 1.5 R + 10 kbit/s; the additive rate of one average packet per 2 (RTT + 100 ms)', () => {
  const a = new AimdRateController({ initialBitrate: 1e6, minBitrate: 50_000, maxBitrate: 10e6 }, { rule: 'libwebrtc' });
  assert.is(a.update('overuse', 800_000, 1000, 100), 0.85 * 800_000 - 5000);
  assert.is(a.update('overuse', 700_000, 1050, 100), 0.85 * 800_000 - 5000, 'within an RTT of the last change');
  assert.is(a.update('overuse', 700_000, 1100, 100), 0.85 * 700_000 - 5000);
  const b = new AimdRateController({ initialBitrate: 1e6, minBitrate: 50_000, maxBitrate: 10e6 }, { rule: 'libwebrtc' });
  b.update('normal', 500_000, 0, 100);
  assert.is(b.update('normal', 500_000, 1000, 100), 1e6, 'above 1.5 x 500 + 10 kbit/s: no increase');
  // 1 Mbit/s at 30 fps: 4167-byte frames in 4 packets of 1042 bytes; 2 x (100 + 100) ms.
  assert.ok(Math.abs(libwebrtcAdditiveRate(1e6, 100) - (1e6 / 30 / 4) / 0.4) < 1e-6);
  assert.is(libwebrtcAdditiveRate(30_000, 100), 4000);
});

test('probe estimator: the rate of a probe the link carried is the send rate; of one it could not, 95 % of the receive rate; too few packets: none', () => {
  const cluster = { id: 0, bitrate: 2e6, minPackets: 5, minBytes: 3750 };
  const carried = new ProbeBitrateEstimator();
  // 6 packets of 1200 bytes every 4.8 ms (2 Mbit/s), arriving as sent.
  let r: number | undefined;
  for (let i = 0; i < 6; i++) r = carried.add(cluster, i * 4.8, 50 + i * 4.8, 1200);
  assert.ok(Math.abs(r! - 2e6) < 1, `${r}`);
  const squeezed = new ProbeBitrateEstimator();
  // Arriving every 9.6 ms: the link carries 1 Mbit/s.
  for (let i = 0; i < 6; i++) r = squeezed.add(cluster, i * 4.8, 50 + i * 9.6, 1200);
  assert.ok(Math.abs(r! - 0.95 * 1e6) < 1, `${r}`);
  const few = new ProbeBitrateEstimator();
  for (let i = 0; i < 3; i++) r = few.add(cluster, i * 4.8, 50 + i * 4.8, 1200);
  assert.is(r, undefined);
  assert.is(few.fetchAndReset(), undefined);
  assert.ok(Math.abs(carried.fetchAndReset()! - 2e6) < 1);
  assert.is(carried.fetchAndReset(), undefined, 'once');
});

test('probe controller: clusters at 3x and 6x the initial rate from the first packet, each of at least 5 packets and 15 ms; then back to the target; a further probe at 2x a high estimate', () => {
  const p = new ProbeController(limits);
  const rates: Array<number | undefined> = [];
  for (let seq = 0; seq < 12; seq++) {
    p.onPacketSent(seq, 1200, seq * 5);
    rates.push(p.pacingBitrate());
  }
  // 900 kbit/s x 15 ms = 1688 bytes (2 packets) < 5 packets: 5 packets each.
  assert.equal(rates, [900_000, 900_000, 900_000, 900_000, 1_800_000, 1_800_000, 1_800_000, 1_800_000, 1_800_000, undefined, undefined, undefined]);
  assert.is(p.clusterOf(0)!.bitrate, 900_000);
  assert.is(p.clusterOf(7)!.bitrate, 1_800_000);
  assert.is(p.clusterOf(11), undefined);
  p.onEstimate(1_000_000, 200);
  assert.is(p.pacingBitrate(), undefined, '1 Mbit/s is not above 70 % of 1.8');
  p.onEstimate(1_700_000, 300);
  assert.is(p.pacingBitrate(), 3_400_000);
});

test('ALR: never while sending at the estimate; from the first packet after a pause until the budget is half spent; at 40 % of the estimate, once 80 % of the budget has built up', () => {
  const alr = new AlrDetector();
  alr.setEstimate(1e6);
  // 1200 bytes every 9.6 ms: 1 Mbit/s.
  let t = 0;
  for (; t < 5000; t += 9.6) {
    alr.onPacketSent(1200, t);
    assert.not.ok(alr.inAlr(), `at ${t}`);
  }
  t += 10_000;
  alr.onPacketSent(1200, t);
  assert.ok(alr.inAlr(), 'after a 10 s pause');
  let left: number | undefined;
  for (let n = 0; n < 200 && left === undefined; n++) {
    t += 9.6;
    alr.onPacketSent(1200, t);
    left = alr.takeEndedMs();
  }
  // Full budget (500 ms at 650 kbit/s) spent at 1000 - 650 kbit/s down to half: about 460 ms.
  assert.ok(left === t && left - 15_000 > 400 && left - 15_000 < 600, `left ALR at ${left}`);
  const slow = new AlrDetector();
  slow.setEstimate(1e6);
  let at: number | undefined;
  for (let s = 0; s < 2000 && at === undefined; s += 24) {
    slow.onPacketSent(1200, s);
    if (slow.inAlr()) at = s;
  }
  // 80 % of 500 ms at 650 kbit/s (32.5 kB), filled at 650 - 400 kbit/s: 1.04 s.
  assert.ok(at !== undefined && Math.abs(at - 1040) < 30, `400 kbit/s against 1 Mbit/s: ALR from ${at} ms`);
});

test('gcc has libwebrtc\'s over-use gains, gcc-draft02 the draft\'s', () => {
  assert.equal(GCC_LIBWEBRTC.detector, { kUp: 0.0087, kDown: 0.039 });
  assert.equal([DETECTOR_DEFAULTS.kUp, DETECTOR_DEFAULTS.kDown], [0.01, 0.00018]);
  assert.equal(GCC_DRAFT02.detector, {});
});

test('start-up on a 2.5 Mbit/s link (50 ms, 300 ms queue): gcc with probing is above 2 Mbit/s within 3 s; gcc-draft02 needs over 10 s', async () => {
  const trace = scheduleTrace([[0, 2_500_000]], 20_000);
  const reach = async (module: typeof gccController) => {
    const run = await runMediaFlow(module, { trace, durationMs: 20_000 });
    return run.targets.find(([, target]) => target >= 2_000_000)?.[0];
  };
  const fast = await reach(gccController);
  const slow = await reach(gccDraft02Controller);
  assert.ok(fast !== undefined && fast < 3000, `gcc: ${fast} ms`);
  assert.ok(slow === undefined || slow > 10_000, `gcc-draft02: ${slow} ms`);
});

test.run();
