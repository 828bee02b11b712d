// GCC as a whole: on hand-made feedback, then over the simulator on a
// constant 1 Mbit/s link (50 ms, 300 ms drop-tail queue) and on RFC 8867
// 5.1's capacity steps; deterministic; milliseconds of wall time per
// simulated minute.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createController as createAny, gccController, GCC_DRAFT02 } from '../../src/cc/gcc/gcc.ts';
import { RFC8867_5_1, quantile, runMediaFlow, scheduleTrace } from './media-flow-harness.ts';

const options = { initialBitrate: 500_000, minBitrate: 50_000, maxBitrate: 5_000_000 };
/** The hand-made feedback tests check the draft's rules (gcc-draft02); gcc's own parts have tests of their own (gcc-libwebrtc.test.ts). */
const createController = (o: typeof options) => createAny(o, GCC_DRAFT02);

/** Drives a controller with 1200-byte packets every `gapMs`, reported every 100 ms; `extraDelay(t)` is the queueing delay a packet sent at t meets; `lost(seq)` drops it. */
function drive(controller: ReturnType<typeof createController>, untilMs: number, gapMs: number, extraDelay: (t: number) => number, lost: (seq: number) => boolean = () => false, startSeq = 0, startMs = 0) {
  let seq = startSeq;
  let pending: Array<{ sequence: number; arrivalTimeMs: number | undefined }> = [];
  let nextReport = startMs + 100;
  for (let t = startMs; t < untilMs; t += gapMs) {
    while (t >= nextReport) {
      const arrived = pending.filter((p) => p.arrivalTimeMs === undefined || p.arrivalTimeMs <= nextReport);
      if (arrived.length > 0) controller.onFeedback({ packets: arrived }, nextReport + 50);
      pending = pending.filter((p) => !arrived.includes(p));
      nextReport += 100;
    }
    controller.onPacketSent({ sequence: seq, sizeBytes: 1200, sendTimeMs: t });
    pending.push({ sequence: seq, arrivalTimeMs: lost(seq) ? undefined : t + 50 + extraDelay(t) });
    seq++;
  }
  return seq;
}

test('hand-made feedback: no queue, the target grows about 8 % a second; a queue building up turns it to over-use and a decrease below the received rate', () => {
  const c = createController(options);
  // 1 Mbit/s of packets (every 9.6 ms), no queue, for 5 s.
  drive(c, 5_000, 9.6, () => 0);
  const grown = c.snapshot();
  assert.is(grown.usage, 'normal');
  assert.is(grown.state, 'increase');
  const expected = 500_000 * Math.pow(1.08, 4.9);
  assert.ok(Math.abs(grown.target - expected) / expected < 0.03, `target ${grown.target}, about ${expected}`);
  // From 5 s on the queue grows 2 ms for every 10 ms: the delay-based part must cut.
  const c2 = createController(options);
  drive(c2, 8_000, 9.6, (t) => (t < 5_000 ? 0 : (t - 5_000) * 0.2));
  const cut = c2.snapshot();
  assert.is(cut.usage, 'overuse');
  assert.ok(cut.modifiedTrendMs > cut.thresholdMs, `${cut.modifiedTrendMs} > ${cut.thresholdMs}`);
  assert.ok(cut.target < 0.9 * (cut.receivedBitrate ?? 0), `target ${cut.target} under the received ${cut.receivedBitrate}`);
  assert.ok(cut.rttMs! > 100 && cut.rttMs! < 2000, `rtt ${cut.rttMs}`);
});

test('hand-made feedback: 20 % loss cuts the target through the loss-based part, 1 % does not', () => {
  const lossy = createController(options);
  drive(lossy, 5_000, 9.6, () => 0, (seq) => seq % 5 === 0);
  const s = lossy.snapshot();
  assert.ok(Math.abs(s.lossFraction! - 0.2) < 0.05, `loss ${s.lossFraction} over the last interval (about 21 packets)`);
  assert.ok(s.lossBased < s.delayBased && s.target === s.lossBased, `loss-based ${s.lossBased} below delay-based ${s.delayBased}`);
  assert.ok(s.target < 500_000, `${s.target}`);
  const light = createController(options);
  drive(light, 5_000, 9.6, () => 0, (seq) => seq % 100 === 0);
  const l = light.snapshot();
  assert.is(l.target, l.delayBased, '1 % loss: the delay-based estimate rules');
  assert.ok(l.target > 600_000);
});

test('over a constant 1 Mbit/s link (50 ms, 300 ms drop-tail): 80 to 100 % of capacity, low queueing', async () => {
  const run = await runMediaFlow(gccController, { trace: scheduleTrace([[0, 1_000_000]], 60_000), durationMs: 60_000 });
  // Link bytes: payload + 32 bytes of IP/UDP/TUN header per datagram.
  const wire = (run.receivedBitrate(20_000, 60_000) * 1232) / 1200;
  assert.ok(wire >= 800_000 && wire <= 1_000_000, `link rate ${wire}`);
  const q = run.queueingDelays(20_000, 60_000);
  assert.ok(quantile(q, 0.5) < 40, `median queueing ${quantile(q, 0.5)} ms`);
  assert.ok(quantile(q, 0.95) < 150, `p95 queueing ${quantile(q, 0.95)} ms`);
  assert.ok(run.stats.packetsReceived / run.stats.packetsSent > 0.99, 'hardly any loss');
  assert.ok(run.wallMs < 5_000, `wall ${run.wallMs} ms for a simulated minute`);
});

test('RFC 8867 5.1 schedule (1, 2.5, 0.6, 1 Mbit/s at 0, 40, 60, 80 s): it follows the steps', async () => {
  const run = await runMediaFlow(gccController, { trace: scheduleTrace(RFC8867_5_1, 100_000), durationMs: 100_000 });
  const wire = (from: number, to: number) => (run.receivedBitrate(from, to) * 1232) / 1200;
  assert.ok(wire(25_000, 40_000) > 800_000, `1 Mbit/s phase ${wire(25_000, 40_000)}`);
  // 70 %: the rise to 2.5 Mbit/s is the AIMD's (the loss-based part, LossBasedBweV2, stays in its
  // delay-based state through the phase); with it, an over-use near the end of the 1 Mbit/s phase came
  // 2 s later than with the classic loss rule, and so did the climb (1.79 Mbit/s here against 2.0 then).
  assert.ok(wire(55_000, 60_000) > 0.7 * 2_500_000, `2.5 Mbit/s phase ${wire(55_000, 60_000)}`);
  assert.ok(wire(70_000, 80_000) <= 600_000 && wire(75_000, 80_000) > 0.5 * 600_000, `0.6 Mbit/s phase ${wire(70_000, 80_000)}`);
  assert.ok(wire(90_000, 100_000) > 0.8 * 1_000_000, `last phase ${wire(90_000, 100_000)}`);
  // After the drop to 0.6 Mbit/s the queue (37500 bytes: 500 ms at 0.6 Mbit/s) is drained within 3 s, and stays below full.
  const drained = run.queueingDelays(63_000, 68_000);
  assert.ok(quantile(drained, 0.95) < 100, `p95 queueing 3 to 8 s after the drop ${quantile(drained, 0.95)} ms`);
  const phase = run.queueingDelays(63_000, 80_000);
  assert.ok(quantile(phase, 0.95) < 450, `p95 queueing over the 0.6 Mbit/s phase ${quantile(phase, 0.95)} ms`);
  // The 2.5 Mbit/s phase with almost no queue (the rate is still climbing for most of it).
  assert.ok(quantile(run.queueingDelays(40_000, 60_000), 0.95) < 50);
});

test('pause and resume (RFC 8867 5.8): the target after a 10 s pause is the one before it, not the rate of the first packets after it', async () => {
  const run = await runMediaFlow(gccController, { trace: scheduleTrace([[0, 1_000_000]], 60_000), durationMs: 50_000, pauseAt: [30_000, 40_000] });
  const target = (t: number) => run.targets.find(([time]) => time >= t)![1];
  const before = target(29_900);
  assert.ok(before > 800_000, `${before}`);
  for (const t of [40_500, 41_000, 42_000, 45_000]) assert.ok(target(t) > 0.8 * before, `target ${target(t)} at ${t} ms, ${before} before the pause`);
  assert.ok(!run.packets.some((p) => p.sendTimeMs >= 30_000 && p.sendTimeMs < 40_000), 'nothing sent while paused');
});

test('the received rate forgets what came before a gap longer than its window', async () => {
  const { ReceivedRateEstimator } = await import('../../src/cc/gcc/received-rate.ts');
  const r = new ReceivedRateEstimator(500);
  for (let t = 0; t <= 1000; t += 10) r.add(t, 1250);
  assert.is(r.bitrate(), 1_000_000);
  r.add(5000, 1250);
  assert.is(r.bitrate(), undefined, 'one packet after a 4 s gap: no rate yet');
  for (let t = 5010; t <= 5300; t += 10) r.add(t, 1250);
  assert.ok(Math.abs(r.bitrate()! - (31 * 1250 * 8 * 1000) / 300) < 1e-6, 'measured from the first packet after the gap: 31 packets over 300 ms');
});

test('same run twice: the same targets and packets', async () => {
  const trace = scheduleTrace(RFC8867_5_1, 100_000);
  const a = await runMediaFlow(gccController, { trace, durationMs: 30_000 });
  const b = await runMediaFlow(gccController, { trace, durationMs: 30_000 });
  assert.equal(a.targets, b.targets);
  assert.equal(a.packets, b.packets);
});

test.run();
