// The media flow: pacing at the controller's target, transport-wide
// sequence numbers, feedback every 100 ms covering every number, bad
// datagrams counted and ignored, pause/resume/stop, determinism.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRng } from '../../src/common/random.ts';
import type { FeedbackReport, RateControllerModule, SentPacket } from '../../src/cc/controller.ts';
import { mediaFlow } from '../../src/cc/media-flow.ts';
import { encodeFeedback, encodeMediaPacket, parseFeedback, parseMediaPacket, MAX_REPORTED_PER_FEEDBACK } from '../../src/cc/media-flow-wire.ts';
import type { StageSpec } from '../../src/link-emu/chain.ts';
import { createSimNetwork } from '../../src/net/sim-network.ts';
import { Simulator } from '../../src/net/simulator.ts';

/** A constant-bitrate controller that keeps what it is told. */
function constantRate(bitrate: number) {
  const sent: SentPacket[] = [];
  const reports: Array<{ report: FeedbackReport; nowMs: number }> = [];
  const module: RateControllerModule = {
    name: 'constant',
    createController: () => ({
      name: 'constant',
      targetBitrate: () => bitrate,
      onPacketSent: (p) => void sent.push(p),
      onFeedback: (report, nowMs) => void reports.push({ report, nowMs }),
    }),
  };
  return { module, sent, reports };
}

function setup(uplink: StageSpec[], bitrate = 1_000_000) {
  const sim = new Simulator();
  const net = createSimNetwork(sim, { uplink, downlink: [{ kind: 'delay', ms: 20 }], seed: 7 });
  const c = constantRate(bitrate);
  const flow = mediaFlow(c.module, { maxBitrate: 20_000_000 }).create(net.inside, net.outside, { flowId: 3, seed: '1' });
  return { sim, net, flow, ...c };
}

test('wire: media packets and feedback round-trip; every field is checked', () => {
  const m = encodeMediaPacket({ flowId: 9, sequence: 123456, sendTimeMs: 1234.5 }, 1200);
  assert.is(m.length, 1200);
  assert.equal(parseMediaPacket(m), { ok: true, value: { flowId: 9, sequence: 123456, sendTimeMs: 1234.5 } });
  const f = encodeFeedback({ flowId: 9, firstSequence: 40, arrivals: [100.25, undefined, 99.5, 130.001] });
  assert.is(f.length, 18 + 16);
  assert.equal(parseFeedback(f), { ok: true, value: { flowId: 9, firstSequence: 40, arrivals: [100.25, undefined, 99.5, 130.001] } });
  assert.equal(parseFeedback(encodeFeedback({ flowId: 1, firstSequence: 0, arrivals: [undefined] })), { ok: true, value: { flowId: 1, firstSequence: 0, arrivals: [undefined] } });
  // Truncated, wrong magic, wrong version, count and length disagreeing, a count of 0.
  assert.is(parseMediaPacket(m.subarray(0, 15)).ok, false);
  assert.is(parseFeedback(f.subarray(0, f.length - 1)).ok, false);
  assert.is(parseFeedback(m).ok, false);
  assert.is(parseMediaPacket(f).ok, false);
  const v = f.slice();
  v[1] = 2;
  assert.match((parseFeedback(v) as { reason: string }).reason, /version 2/);
  const c = f.slice();
  new DataView(c.buffer).setUint16(8, 0);
  assert.match((parseFeedback(c) as { reason: string }).reason, /count 0/);
  const n = m.slice();
  new DataView(n.buffer).setFloat64(8, NaN);
  assert.is(parseMediaPacket(n).ok, false);
  assert.throws(() => encodeFeedback({ flowId: 1, firstSequence: 0, arrivals: new Array(MAX_REPORTED_PER_FEEDBACK + 1).fill(1) }), /1 to 345/);
  // Random bytes never throw.
  const rng = createRng('wire-fuzz');
  for (let i = 0; i < 2000; i++) {
    const bytes = new Uint8Array(rng.int(60));
    for (let j = 0; j < bytes.length; j++) bytes[j] = rng.int(256);
    if (i % 2 === 0 && bytes.length > 0) bytes[0] = i % 4 === 0 ? 0x46 : 0x4d;
    if (bytes.length > 1) bytes[1] = 1;
    parseFeedback(bytes);
    parseMediaPacket(bytes);
  }
});

test('the pacer sends at the target, at most one packet per 5 ms interval at 1 Mbit/s, numbered 0, 1, 2, ...', async () => {
  const { sim, flow, sent } = setup([{ kind: 'delay', ms: 20 }]);
  sim.at(0, () => flow.start());
  sim.at(10_000, () => flow.stop());
  await sim.run({ until: 11_000 });
  const bits = sent.length * 1200 * 8;
  assert.ok(Math.abs(bits - 10_000_000) <= 1200 * 8, `${bits} bits in 10 s at 1 Mbit/s`);
  assert.equal(sent.map((p) => p.sequence), sent.map((_, i) => i));
  const perTick = new Map<number, number>();
  for (const p of sent) perTick.set(p.sendTimeMs, (perTick.get(p.sendTimeMs) ?? 0) + 1);
  assert.ok([...perTick.values()].every((n) => n === 1), 'one packet per pacing tick at 1 Mbit/s (625 bytes a tick)');
  assert.ok(sim.isIdle(), 'stop() leaves no timer behind');
});

test('at 20 Mbit/s a tick sends ceil(12500 / 1200) packets at most: no bursts beyond the interval budget', async () => {
  const { sim, flow, sent } = setup([{ kind: 'delay', ms: 20 }], 20_000_000);
  sim.at(0, () => flow.start());
  sim.at(2_000, () => flow.stop());
  await sim.run({ until: 2_500 });
  const perTick = new Map<number, number>();
  for (const p of sent) perTick.set(p.sendTimeMs, (perTick.get(p.sendTimeMs) ?? 0) + 1);
  assert.ok(Math.max(...perTick.values()) <= 11, `max ${Math.max(...perTick.values())} a tick`);
  assert.ok(Math.abs(sent.length * 9600 - 40_000_000) <= 9600, `${sent.length} packets`);
});

test('feedback every 100 ms reports every sequence number once, in order, lost ones as not received', async () => {
  const { sim, flow, sent, reports } = setup([{ kind: 'loss', rate: 0.1 }, { kind: 'delay', ms: 20 }]);
  sim.at(0, () => flow.start());
  sim.at(5_000, () => flow.stop());
  await sim.run({ until: 6_000 });
  const reported = reports.flatMap((r) => r.report.packets);
  assert.equal(reported.map((p) => p.sequence), reported.map((_, i) => i), 'contiguous from 0');
  // All but those sent in the last feedback interval and a delay before the stop.
  assert.ok(reported.length >= sent.length - 14, `${reported.length} of ${sent.length} reported before the stop`);
  const lost = reported.filter((p) => p.arrivalTimeMs === undefined).length;
  assert.ok(lost / reported.length > 0.07 && lost / reported.length < 0.13, `loss ${lost / reported.length}`);
  // Reports leave the receiver every 100 ms and cross a 20 ms delay.
  const gaps = reports.slice(1).map((r, i) => r.nowMs - reports[i]!.nowMs);
  assert.ok(gaps.every((g) => g === 100), `gaps ${[...new Set(gaps)]}`);
  // Arrival times: 20 ms after the send time plus nothing else (no bottleneck).
  const byseq = new Map(sent.map((p) => [p.sequence, p.sendTimeMs]));
  for (const p of reported) if (p.arrivalTimeMs !== undefined) assert.is(p.arrivalTimeMs - byseq.get(p.sequence)!, 20);
  assert.is(flow.stats().badAtSender + flow.stats().badAtReceiver, 0);
});

test('bad datagrams at either end are counted and ignored, never thrown', async () => {
  const { sim, net, flow, reports } = setup([{ kind: 'delay', ms: 20 }]);
  sim.at(0, () => flow.start());
  const rng = createRng('bad');
  sim.at(1_000, () => {
    for (let i = 0; i < 50; i++) {
      const junk = new Uint8Array(1 + rng.int(100));
      for (let j = 0; j < junk.length; j++) junk[j] = rng.int(256);
      net.outside.send(junk); // to the sender
      net.inside.send(junk); // to the receiver
    }
    net.inside.send(encodeMediaPacket({ flowId: 4, sequence: 1, sendTimeMs: 1 }, 100)); // another flow's media
    net.outside.send(encodeFeedback({ flowId: 4, firstSequence: 0, arrivals: [1] })); // another flow's feedback
    net.outside.send(encodeFeedback({ flowId: 3, firstSequence: 1_000_000, arrivals: [1] })); // numbers never sent
  });
  sim.at(3_000, () => flow.stop());
  await sim.run({ until: 3_500 });
  const s = flow.stats();
  assert.is(s.badAtSender, 52);
  assert.is(s.badAtReceiver, 51);
  const reported = reports.flatMap((r) => r.report.packets);
  assert.equal(reported.map((p) => p.sequence), reported.map((_, i) => i), 'the flow went on undisturbed');
});

test('pause stops the media and keeps the receiver reporting; resume sends again; stop silences both ends', async () => {
  const { sim, flow, sent, reports } = setup([{ kind: 'delay', ms: 20 }]);
  sim.at(0, () => flow.start());
  sim.at(1_000, () => flow.pause());
  sim.at(2_000, () => flow.resume());
  sim.at(3_000, () => flow.stop());
  await sim.run({ until: 4_000 });
  assert.ok(!sent.some((p) => p.sendTimeMs >= 1_000 && p.sendTimeMs < 2_000), 'nothing sent while paused');
  assert.ok(sent.some((p) => p.sendTimeMs >= 2_000 && p.sendTimeMs < 2_010), 'sends at once on resume');
  assert.ok(!sent.some((p) => p.sendTimeMs >= 3_000), 'nothing after stop');
  assert.ok(reports.some((r) => r.nowMs > 1_000 && r.nowMs < 1_100), 'the last packets before the pause are reported during it');
  assert.ok(!reports.some((r) => r.nowMs > 3_100), 'no reports after stop');
  assert.ok(sim.isIdle());
});

test('same inputs, same packets and reports', async () => {
  const run = async () => {
    const s = setup([{ kind: 'loss', rate: 0.05 }, { kind: 'delay', ms: 20 }]);
    s.sim.at(0, () => s.flow.start());
    s.sim.at(3_000, () => s.flow.stop());
    await s.sim.run({ until: 3_500 });
    return JSON.stringify([s.sent, s.reports]);
  };
  assert.is(await run(), await run());
});

test('options are checked; a controller returning NaN is a clear error', () => {
  const { module } = constantRate(1e6);
  assert.throws(() => mediaFlow(module, { payloadBytes: 8 }), /payloadBytes must be at least 16/);
  assert.throws(() => mediaFlow(module, { minBitrate: 2e6, initialBitrate: 1e6 }), /min <= initial <= max/);
  assert.throws(() => mediaFlow(module, { feedbackIntervalMs: 0 }), /feedbackIntervalMs/);
  const sim = new Simulator();
  const net = createSimNetwork(sim, { uplink: [], downlink: [], seed: 1 });
  const bad: RateControllerModule = { name: 'bad', createController: () => ({ name: 'bad', targetBitrate: () => NaN, onPacketSent() {}, onFeedback() {} }) };
  const flow = mediaFlow(bad).create(net.inside, net.outside, { flowId: 0, seed: '1' });
  assert.throws(() => flow.start(), /controller bad: targetBitrate\(\) returned NaN/);
});

test.run();
