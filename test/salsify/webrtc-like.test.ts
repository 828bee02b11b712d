// The webrtc-like scheme (a model: GCC + a libvpx-like one-pass CBR rate
// control over Salsify's sender): its rate control and feedback on hand-made
// inputs, then over the simulator on RFC 8867 5.1's capacity steps.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Simulator } from '../../src/net/simulator.ts';
import { createSimNetwork } from '../../src/net/sim-network.ts';
import { pathStages } from '../../src/link-emu/path.ts';
import { SalsifySender, type SenderEvent } from '../../src/salsify/sender.ts';
import { SalsifyReceiver } from '../../src/salsify/receiver.ts';
import { createModelCodec } from '../../src/salsify/model-codec.ts';
import { createSyntheticScene } from '../../src/codec-bridge/video/synthetic-scene.ts';
import { createScheme } from '../../src/salsify/schemes/registry.ts';
import type { ChoiceView, SchemeParams } from '../../src/salsify/schemes/scheme.ts';
import { sizeShape, webrtcLike } from '../../src/salsify/schemes/webrtc-like.ts';
import { RFC8867_5_1, scheduleTrace } from '../cc/media-flow-harness.ts';

const PARAMS: SchemeParams = { initialQuantizer: 64, betterStep: -17, worseStep: 23, maxSkips: 3, frameIntervalMs: 1000 / 30, maxPayload: 1400 };
const view = (over: Partial<ChoiceView> = {}): ChoiceView => ({
  now: 0, startMs: 0, lastQuantizer: 64, sourceQuantizer: 64, interArrivalUs: undefined, skipsInARow: 0, keyFrame: false, target: Infinity,
  targetBytes: () => Infinity, trialBytes: () => Promise.reject(new Error('not used')), ...over,
});

test('the size shape is the measured VP8 table, log-interpolated, decreasing', () => {
  assert.is(Math.round(sizeShape(8)), 16207);
  assert.is(Math.round(sizeShape(64)), 2034);
  assert.is(Math.round(sizeShape(127)), 645);
  assert.ok(Math.abs(sizeShape(52) - Math.sqrt(3703 * 2034)) < 1e-6, 'geometric mean half-way');
  for (let q = 1; q <= 127; q++) assert.ok(sizeShape(q) < sizeShape(q - 1));
});

test('rate control: the lowest quantizer predicted to fit target / fps; the correction follows actual sizes; an overflowing frame is dropped, a key frame never', async () => {
  const s = webrtcLike(PARAMS, { initialBitrate: 300_000 });
  assert.is(createScheme('webrtc-like', PARAMS).name, 'webrtc-like');
  // 300 kbit/s at 30 fps: 1250 bytes a frame; uncalibrated, the shape itself: the first q with shape <= 1250.
  const first = await s.plan(view({ keyFrame: true }));
  assert.equal(first, { quantizers: [89], timing: 'serial' });
  assert.ok(sizeShape(89) <= 1250 && sizeShape(88) > 1250);
  // The key frame came out 10x the prediction: it is sent (never dropped), the key factor calibrates, the buffer holds it.
  const keyBytes = Math.round(10 * sizeShape(89));
  assert.equal(s.choose([{ quantizer: 89, bytes: keyBytes }], view({ keyFrame: true })), { index: 0, label: 'only' });
  s.onSent?.({ time: 0, bytes: keyBytes, quantizer: 89, keyFrame: true });
  assert.is(s.bufferLevel(0), keyBytes);
  // 100 ms later 3750 bytes have drained.
  assert.ok(Math.abs(s.bufferLevel(100) - (keyBytes - 3750)) < 1e-6);
  // An inter frame whose bytes would overflow the 1 s (37500-byte) buffer is dropped.
  s.onSent?.({ time: 100, bytes: 30_000, quantizer: 127, keyFrame: false });
  assert.is(s.choose([{ quantizer: 127, bytes: 5000 }], view({ now: 100 })), 'skip');
  assert.equal(s.choose([{ quantizer: 127, bytes: 5000 }], view({ now: 3000 })), { index: 0, label: 'only' }, 'fits once drained');
  // The inter factor: calibrated by the first inter frame (30000 bytes at q 127 -> 30000 / 645), so the next plan is at 127 while the buffer is full.
  assert.equal((await s.plan(view({ now: 150 }))).quantizers, [127]);
  // Once drained, the budget is target / fps again: the quantizer whose corrected size fits 1250 bytes, here still 127 (46.5 x shape > 1250 everywhere).
  assert.equal((await s.plan(view({ now: 10_000 }))).quantizers, [127]);
});

test('feedback: datagrams numbered in sending order, acknowledgements reported every 100 ms, unacknowledged ones as lost', () => {
  const s = webrtcLike(PARAMS, { initialBitrate: 1_000_000, maxBitrate: 5_000_000 });
  // 1 Mbit/s of 1250-byte datagrams (one every 10 ms), acknowledged 60 ms later; every 10th never acknowledged.
  for (let i = 0; i < 300; i++) {
    s.onDatagramSent?.({ time: 10 * i, frameNumber: i, fragmentIndex: 0, bytes: 1250 });
    if (i >= 6 && (i - 6) % 10 !== 0) s.onAck?.({ time: 10 * i, frameNumber: i - 6, fragmentIndex: 0 });
  }
  const g = s.controller.snapshot();
  assert.ok(g.lossFraction !== undefined && Math.abs(g.lossFraction - 0.1) < 0.02, `loss ${g.lossFraction}`);
  assert.ok(g.receivedBitrate !== undefined && Math.abs(g.receivedBitrate - 900_000) < 50_000, `received ${g.receivedBitrate}`);
  assert.ok(g.rttMs !== undefined && g.rttMs >= 60 && g.rttMs < 200, `rtt ${g.rttMs}`);
  // Acknowledgements of unknown datagrams and repeats are ignored.
  s.onAck?.({ time: 3000, frameNumber: 99_999, fragmentIndex: 3 });
  s.onAck?.({ time: 3000, frameNumber: 290, fragmentIndex: 0 });
});

test('over RFC 8867 5.1 (50 ms, 300 ms drop-tail, model codec, 640x360 at 30 fps): it follows the capacity steps with low delay', async () => {
  const sim = new Simulator();
  const video = scheduleTrace(RFC8867_5_1, 80_000);
  const net = createSimNetwork(sim, {
    downlink: pathStages('downlink', { trace: video, queue: 'droptail', queueArgs: 'bytes=37500', delayMs: 50 }),
    uplink: pathStages('uplink', { trace: scheduleTrace([[0, 12_000_000]], 1000), delayMs: 50 }),
    seed: 1,
  });
  const codec = createModelCodec();
  const events: SenderEvent[] = [];
  const scheme = webrtcLike({ ...PARAMS });
  const sender = new SalsifySender({ ctx: net.outside, codec, source: createSyntheticScene({ width: 640, height: 360, fps: 30 }), scheme, connectionId: 5, concurrentEncodes: true, log: (e) => events.push(e) });
  const receiver = new SalsifyReceiver({ ctx: net.inside, codec, connectionId: 5 });
  const targets: Array<[number, number]> = [];
  const sample = () => {
    targets.push([sim.now(), scheme.controller.targetBitrate()]);
    if (sim.now() < 75_000) sim.after(500, sample);
  };
  sim.at(0, () => {
    sender.start();
    sample();
  });
  sim.at(75_000, () => sender.stop());
  const started = performance.now();
  await sim.run({ until: 76_000 });
  const wallMs = performance.now() - started;
  if (sender.failure) throw sender.failure;
  const sentRate = (from: number, to: number) => (events.reduce((s, e) => s + (e.kind === 'sent' && e.time >= from && e.time < to ? e.bytes : 0), 0) * 8 * 1000) / (to - from);
  assert.ok(sentRate(25_000, 40_000) > 0.7e6 && sentRate(25_000, 40_000) < 1.0e6, `1 Mbit/s phase: ${sentRate(25_000, 40_000)}`);
  assert.ok(sentRate(52_000, 60_000) > 1.6e6, `2.5 Mbit/s phase: ${sentRate(52_000, 60_000)}`);
  assert.ok(sentRate(64_000, 75_000) < 0.6e6 && sentRate(64_000, 75_000) > 0.3e6, `0.6 Mbit/s phase: ${sentRate(64_000, 75_000)}`);
  assert.ok(receiver.counters.framesShown > 0.9 * sender.counters.captured, `${receiver.counters.framesShown} of ${sender.counters.captured} shown`);
  const target = (t: number) => targets.find(([time]) => time >= t)![1];
  assert.ok(target(59_000) > 1.5e6 && target(63_000) < 0.6e6, 'the target follows the steps');
  assert.ok(wallMs < 30_000, `${wallMs} ms`);
});

test.run();
