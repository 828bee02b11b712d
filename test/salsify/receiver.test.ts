// The receiver fed hand-made datagram sequences through a real simulated path
// (the simulator and a plain delay chain), its acknowledgements read back.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Simulator } from '../../src/net/simulator.ts';
import { createSimNetwork } from '../../src/net/sim-network.ts';
import { SalsifyReceiver, type ShownFrame } from '../../src/salsify/receiver.ts';
import { createModelCodec } from '../../src/salsify/model-codec.ts';
import { crc32 } from '../../src/salsify/crc32.ts';
import { decodeDatagram, encodeFragment, splitFrame, type AckDatagram } from '../../src/salsify/datagram.ts';
import type { CodecState, EncodeResult } from '../../src/codec-bridge/types.ts';
import { createSyntheticScene } from '../../src/codec-bridge/video/synthetic-scene.ts';
import { createRng } from '../../src/common/random.ts';
import { Pacer } from '../../src/salsify/pacer.ts';

const W = 320, H = 180, CONN = 77;
const scene = createSyntheticScene({ width: W, height: H, seed: 5 });

async function chain(n: number, q = 20): Promise<{ initial: CodecState; frames: EncodeResult[] }> {
  const codec = createModelCodec();
  const initial = codec.initialState(W, H);
  const frames: EncodeResult[] = [];
  let s = initial;
  for (let i = 0; i < n; i++) {
    const r = await codec.encode(s, await scene.frame(i), q);
    frames.push(r);
    s = r.state;
  }
  return { initial, frames };
}

function datagramsOf(frameNumber: number, from: string, r: EncodeResult, maxPayload = 300, conn = CONN, gapUs = 0): Uint8Array[] {
  const pieces = splitFrame(r.frame, maxPayload);
  return pieces.map((payload, i) => encodeFragment({
    connectionId: conn, frameNumber, fragmentIndex: i, fragmentCount: pieces.length, width: W, height: H,
    sourceStateId: from, targetStateId: r.state.id, timeSincePreviousFrameUs: gapUs, frameLength: r.frame.length,
    frameChecksum: crc32(r.frame), payload,
  }));
}

function setup(options: { maxDecodeQueue?: number; conceal?: boolean } = {}) {
  const sim = new Simulator();
  const net = createSimNetwork(sim, { uplink: [{ kind: 'delay', ms: 1 }], downlink: [{ kind: 'delay', ms: 1 }], seed: 1 });
  const shown: ShownFrame[] = [];
  const acks: AckDatagram[] = [];
  net.outside.onReceive((bytes) => acks.push(decodeDatagram(bytes) as AckDatagram));
  const receiver = new SalsifyReceiver({ ctx: net.inside, codec: createModelCodec(), connectionId: CONN, onShown: (s) => shown.push(s), ...options });
  /** Sends the datagrams 1 ms apart starting at `at`. */
  const sendAt = (at: number, datagrams: Uint8Array[]) => datagrams.forEach((d, i) => sim.at(at + i, () => net.outside.send(d)));
  return { sim, net, receiver, shown, acks, sendAt };
}

test('frames are reassembled in any fragment order, decoded, shown and acknowledged', async () => {
  const { initial, frames } = await chain(3);
  const { sim, receiver, shown, acks, sendAt } = setup();
  const d0 = datagramsOf(0, initial.id, frames[0]);
  const d1 = datagramsOf(1, frames[0].state.id, frames[1]);
  assert.ok(d0.length >= 3 && d1.length >= 2);
  sendAt(0, d0.slice().reverse()); // reordered within the frame
  sendAt(50, d1);
  await sim.run();
  assert.equal(shown.map((s) => s.frameNumber), [0, 1]);
  assert.is(shown[1].targetStateId, frames[1].state.id);
  assert.is(acks.length, d0.length + d1.length);
  assert.is(acks.at(-1)!.currentStateId, frames[1].state.id);
  assert.ok(acks.at(-1)!.heldStateIds.includes(frames[0].state.id));
  assert.is(acks[0].interArrivalUs, 0, 'the first datagram sets the estimate to 0, as the reference receiver does');
  assert.ok(acks.at(-1)!.interArrivalUs > 0);
  assert.ok(Number.isInteger(acks.at(-1)!.interArrivalUs));
  assert.is(receiver.counters.framesShown, 2);
  assert.is(receiver.failure, undefined);
});

test('duplicated, truncated, corrupted, foreign and stale datagrams are counted and ignored', async () => {
  const { initial, frames } = await chain(3);
  const { sim, receiver, shown, acks, sendAt } = setup();
  const d0 = datagramsOf(0, initial.id, frames[0]);
  const d1 = datagramsOf(1, frames[0].state.id, frames[1]);
  const corrupted = d1[0].slice();
  corrupted[60] ^= 4;
  const foreign = datagramsOf(1, frames[0].state.id, frames[1], 300, CONN + 1);
  sendAt(0, [d0[0], d0[0], ...d0.slice(1)]); // a duplicate
  sendAt(40, [d1[0].subarray(0, 30), corrupted, foreign[0], new Uint8Array(0), ...d1, d0[1]]); // truncated, corrupted, foreign, empty, then stale
  await sim.run();
  const c = receiver.counters;
  assert.is(c.duplicateDatagrams, 1);
  assert.is(c.badDatagrams, 3); // truncated + corrupted + empty
  assert.is(c.foreignDatagrams, 1);
  assert.is(c.staleDatagrams, 1);
  assert.equal(shown.map((s) => s.frameNumber), [0, 1]);
  assert.is(acks.length, d0.length + d1.length); // only new, valid datagrams are acknowledged
});

test('without concealment: a frame with a bad checksum is not decoded; a later frame abandons an incomplete one', async () => {
  const { initial, frames } = await chain(4);
  const { sim, receiver, shown, acks, sendAt } = setup({ conceal: false });
  sendAt(0, datagramsOf(0, initial.id, frames[0]));
  // frame 1 with a wrong frame checksum (every datagram consistently re-sealed)
  const pieces = splitFrame(frames[1].frame, 300);
  const lying = pieces.map((payload, i) => encodeFragment({
    connectionId: CONN, frameNumber: 1, fragmentIndex: i, fragmentCount: pieces.length, width: W, height: H,
    sourceStateId: frames[0].state.id, targetStateId: frames[1].state.id, timeSincePreviousFrameUs: 0,
    frameLength: frames[1].frame.length, frameChecksum: (crc32(frames[1].frame) ^ 1) >>> 0, payload,
  }));
  sendAt(40, lying);
  // frame 2 arrives incomplete, then frame 3 (encoded from frame 0's state: a recovery)
  const d2 = datagramsOf(2, frames[0].state.id, frames[2]);
  sendAt(80, d2.slice(0, -1));
  const codec = createModelCodec();
  const recovery = await codec.encode(frames[0].state, await scene.frame(3), 20);
  sendAt(120, datagramsOf(3, frames[0].state.id, recovery));
  await sim.run();
  assert.is(receiver.counters.corruptFrames, 1);
  assert.is(receiver.counters.framesAbandoned, 1);
  assert.equal(shown.map((s) => s.frameNumber), [0, 3]);
  // while frame 2 was incomplete, acks reported frame 0's state
  assert.is(acks.find((a) => a.frameNumber === 2)!.currentStateId, frames[0].state.id);
  assert.is(acks.at(-1)!.currentStateId, recovery.state.id);
});

test('without concealment: a complete frame whose reference the receiver lacks is dropped, not mis-decoded', async () => {
  const { initial, frames } = await chain(3);
  const { sim, receiver, shown, sendAt } = setup({ conceal: false });
  sendAt(0, datagramsOf(0, initial.id, frames[0]));
  sendAt(40, datagramsOf(2, frames[1].state.id, frames[2])); // frame 1 never arrives
  await sim.run();
  assert.is(receiver.counters.missingReference, 1);
  assert.equal(shown.map((s) => s.frameNumber), [0]);
  assert.is(receiver.stateId, frames[0].state.id);
});

test('memory stays bounded under random loss, reordering and garbage (seeded)', async () => {
  const rng = createRng('receiver-soak');
  const { initial, frames } = await chain(40, 60);
  const { sim, receiver, sendAt } = setup({ maxDecodeQueue: 4 });
  let t = 0;
  for (let round = 0; round < 30; round++) {
    for (let f = 0; f < frames.length; f++) {
      const n = round * frames.length + f;
      const from = f === 0 ? initial.id : frames[f - 1].state.id;
      let ds = datagramsOf(n, from, frames[f], 100);
      ds = ds.filter(() => rng.next() > 0.1);
      if (rng.next() < 0.3) ds.reverse();
      if (rng.next() < 0.2) {
        const junk = new Uint8Array(rng.int(200));
        for (let i = 0; i < junk.length; i++) junk[i] = rng.int(256);
        ds.push(junk);
      }
      sendAt(t, ds);
      t += ds.length + 2;
    }
  }
  let maxQueue = 0;
  const probe = () => {
    maxQueue = Math.max(maxQueue, receiver.decodeQueueLength);
    if (sim.now() < t) sim.after(5, probe);
  };
  probe();
  await sim.run();
  assert.ok(receiver.heldStates <= 8);
  assert.ok(maxQueue <= 4);
  assert.ok(receiver.counters.framesShown > 30);
  assert.ok(receiver.counters.framesAbandoned > 100);
  assert.ok(receiver.counters.badDatagrams > 0);
  assert.is(receiver.failure, undefined);
});

test('a backlog beyond the decode queue is dropped and the state reported stays truthful', async () => {
  const { initial, frames } = await chain(6);
  const { sim, receiver, shown, acks, net } = setup({ maxDecodeQueue: 2 });
  // all six frames arrive in the same millisecond: decoding (about 1 ms each) cannot keep up
  const all = frames.flatMap((f, i) => datagramsOf(i, i === 0 ? initial.id : frames[i - 1].state.id, f, 5000));
  sim.at(0, () => all.forEach((d) => net.outside.send(d)));
  await sim.run();
  assert.ok(receiver.counters.decodeQueueOverflow >= 1);
  // the frame after the dropped one lacks its reference; the shown ones are a prefix of the chain
  assert.equal(shown.map((s) => s.frameNumber), [0, 1, 2].slice(0, shown.length));
  assert.ok(shown.length >= 2);
  const last = shown.at(-1)!;
  assert.is(acks.at(-1)!.currentStateId, last.targetStateId);
  assert.is(receiver.failure, undefined);
});

test('held states: kept from the source of the frame decoded last on, so frames all encoded from one older state (a conservative sender) all decode', async () => {
  const codec = createModelCodec();
  const { initial, frames } = await chain(1);
  const base = frames[0]; // frame 0, a key frame; its state is what every later frame is encoded from
  const later: EncodeResult[] = [];
  for (let i = 1; i <= 20; i++) later.push(await codec.encode(base.state, await scene.frame(i), 30));
  const { sim, receiver, shown, sendAt } = setup();
  sendAt(0, datagramsOf(0, initial.id, base));
  later.forEach((r, i) => sendAt(40 * (i + 1), datagramsOf(i + 1, base.state.id, r)));
  await sim.run();
  assert.is(shown.length, 21, `shown ${shown.map((f) => f.frameNumber)}; missing reference ${receiver.counters.missingReference}`);
  assert.is(receiver.counters.missingReference, 0);
  assert.is(receiver.heldStates, 21, 'frame 0\'s state and the 20 decoded from it');
  // A frame encoded from the newest state: the ones older than its source go.
  const next = await codec.encode(later[19].state, await scene.frame(21), 30);
  sendAt(1000, datagramsOf(21, later[19].state.id, next));
  await sim.run();
  assert.is(shown.length, 22);
  assert.is(receiver.heldStates, 2, 'its source and its own');
});

test('pacer: a frame into an empty pacer leaves at once, its datagrams and any later ones a gap after the one queued before', async () => {
  const sim = new Simulator();
  const net = createSimNetwork(sim, { uplink: [], downlink: [], seed: 1 });
  const times: number[] = [];
  net.inside.onReceive((bytes) => times.push(bytes[0] * 1000 + sim.now()));
  const pacer = new Pacer(net.outside);
  const frame = (...ids: number[]) => ids.map((i) => () => new Uint8Array([i]));
  sim.at(10, () => pacer.enqueue(frame(0, 1, 2, 3), 1.5));
  // queued behind the first frame's last datagram (due at 14.5): 0.5 ms after it
  sim.at(12, () => pacer.enqueue(frame(4), 0.5));
  // the pacer is empty again: at once, though the previous one left only 0.1 ms before
  sim.at(15.1, () => pacer.enqueue(frame(5, 6), 2));
  await sim.run();
  assert.equal(times, [10, 1011.5, 2013, 3014.5, 4015, 5015.1, 6017.1]);
  assert.throws(() => pacer.enqueue(frame(7), -1), /pacing gap/);
});

// Loss as alfalfa's receiver handled it (salsify-receiver.cc lines 223-243, 261-310).
test('with concealment: an incomplete frame is decoded from what arrived and shown once a later frame\'s datagram arrives; acks then report a state the sender never made', async () => {
  const { initial, frames } = await chain(4);
  const { sim, receiver, shown, acks, sendAt } = setup();
  sendAt(0, datagramsOf(0, initial.id, frames[0]));
  sendAt(40, datagramsOf(1, frames[0].state.id, frames[1]));
  const d2 = datagramsOf(2, frames[1].state.id, frames[2]);
  assert.ok(d2.length >= 3);
  sendAt(80, d2.slice(0, -1)); // its last datagram is lost
  sendAt(120, datagramsOf(3, frames[2].state.id, frames[3])); // encoded from frame 2's state: not held
  await sim.run();
  assert.equal(shown.map((s) => s.frameNumber), [0, 1, 2, 3]);
  assert.equal(shown.map((s) => s.concealed), [false, false, true, true]);
  assert.is(receiver.counters.framesConcealed, 1);
  assert.is(receiver.counters.framesOnOtherState, 1);
  assert.is(receiver.counters.framesAbandoned, 0);
  const made = new Set([initial.id, ...frames.map((f) => f.state.id)]);
  assert.not.ok(made.has(acks.at(-1)!.currentStateId), 'the receiver reports its damaged state');
  assert.not.ok(acks.at(-1)!.heldStateIds.some((id) => !made.has(id)), 'a damaged state is never offered to the sender');
  const codec = createModelCodec();
  const ssim = shown.map((s) => codec.modelledSsim(s.frame, s.state));
  assert.ok(ssim[2] < ssim[1] && ssim[3] < ssim[1], `concealed frames are shown at a lower SSIM (${ssim.join(', ')})`);
});

test('with concealment: a frame whose source is not held is decoded from the current state and shown; a frame from a held state then decodes exactly', async () => {
  const { initial, frames } = await chain(3);
  const { sim, receiver, shown, acks, sendAt } = setup();
  sendAt(0, datagramsOf(0, initial.id, frames[0]));
  sendAt(40, datagramsOf(2, frames[1].state.id, frames[2])); // frame 1 never arrives
  const recovery = await createModelCodec().encode(frames[0].state, await scene.frame(3), 20);
  sendAt(80, datagramsOf(3, frames[0].state.id, recovery)); // the sender's recovery from a state the receiver holds
  await sim.run();
  assert.equal(shown.map((s) => [s.frameNumber, s.concealed]), [[0, false], [2, true], [3, false]]);
  assert.is(receiver.counters.framesOnOtherState, 1);
  assert.is(shown[2].state.id, recovery.state.id);
  assert.is(acks.at(-1)!.currentStateId, recovery.state.id);
});

test('with concealment: nothing is decoded of a frame whose first datagram is lost', async () => {
  const { initial, frames } = await chain(3);
  const { sim, receiver, shown, sendAt } = setup();
  sendAt(0, datagramsOf(0, initial.id, frames[0]));
  sendAt(40, datagramsOf(1, frames[0].state.id, frames[1]).slice(1));
  sendAt(80, datagramsOf(2, frames[1].state.id, frames[2]).slice(0, 1));
  await sim.run();
  assert.is(receiver.counters.framesAbandoned, 1);
  assert.equal(shown.map((s) => s.frameNumber), [0]);
  assert.is(receiver.counters.concealment, 1);
});

test.run();
