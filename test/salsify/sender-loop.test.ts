// The reference control loop in the sender, driven directly (a hand-made
// endpoint, acknowledgements made by hand): the target size as the sender
// computes it, the frame clock, the grace period each frame carries and the
// pacing of a frame's fragments.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createSyntheticScene } from '../../src/codec-bridge/video/synthetic-scene.ts';
import type { SenderScheme } from '../../src/salsify/schemes/scheme.ts';
import { FPS, harness } from './sender-harness.ts';
import { singleBufferFrameCycleMs } from '../../src/salsify/timing-model.ts';

/** Always one encoding at `q`, always sent (or skipped where `skip` says). */
function fixed(q: number, extra: Partial<SenderScheme> = {}, skip: (n: number) => boolean = () => false): SenderScheme {
  let n = 0;
  return { name: 'fixed', plan: () => ({ quantizers: [q], timing: 'serial' }), choose: () => (skip(n++) ? 'skip' : { index: 0, label: 'only' }), ...extra };
}
const constantMs = (ms: number) => () => ms;
const BIG = createSyntheticScene({ width: 640, height: 360, fps: FPS }); // several fragments per frame at a low quantizer

test('target in the sender: unlimited before the first acknowledgement, then floor(budget / estimate) minus the packets in flight, the acknowledged one counted', async () => {
  const h = harness(); // conventional-1s on 64x36: one datagram per frame
  h.sender.start();
  await h.at(250);
  assert.is(h.sent().length, 3);
  assert.is(h.sender.currentTarget(), Infinity);
  assert.is(h.frame(0).targetBytes, Infinity, 'the first frame saw no limit');
  assert.is(h.sender.packetsInFlight, 3);
  h.ack(0, h.frame(0).targetStateId, [], 3001);
  assert.is(h.sender.interArrivalUs, 3001);
  // sequence numbers 0, 1, 2 sent, 0 acknowledged: 3 in flight; floor(100000 / 3001) = 33 packets.
  assert.is(h.sender.packetsInFlight, 3);
  assert.is(h.sender.currentTarget(), 1400 * (33 - 3));
  h.ack(2, h.frame(2).targetStateId, [], 3001);
  assert.is(h.sender.packetsInFlight, 1, 'everything acknowledged but the acknowledged packet itself');
  assert.is(h.sender.currentTarget(), 1400 * 32);
  h.ack(2, h.frame(2).targetStateId, [], 0);
  assert.is(h.sender.currentTarget(), 1400 * (100_000 - 1), 'an estimate of 0 us counts as 1 us');
  await h.at(350);
  assert.is(h.frame(3).targetBytes, 1400 * (100_000 - 1), 'the target is taken once the encoding is done');
});

test('frame clock: an encode takes the next camera frame and waits for it (the default), or the newest already captured (option)', async () => {
  const next = harness({ scheme: fixed(30), encodeMs: constantMs(130) });
  assert.is(next.sender.frameClock, 'next-frame');
  next.sender.start();
  await next.at(1000);
  // frame 0 at 0 (done 130), then frame 2 at 200, frame 4 at 400, ...: no frame waits for the encoder
  assert.equal(next.sent().map((e) => e.sourceIndex), [0, 2, 4, 6, 8]);
  next.sent().forEach((e, i) => assert.ok(Math.abs(e.time - (200 * i + 130)) < 1e-9, `sent at ${e.time}`));
  assert.is(next.sender.counters.superseded, 5, 'frames 1, 3, 5, 7, 9 (frame 10 is being encoded)');

  const newest = harness({ scheme: fixed(30), encodeMs: constantMs(130), frameClock: 'newest-frame' });
  newest.sender.start();
  await newest.at(1000);
  // each encode starts when the previous one ends, on the newest frame captured: 1 (captured at 100) at 130, ...
  assert.equal(newest.sent().map((e) => e.sourceIndex), [0, 1, 2, 3, 5, 6, 7]);
  newest.sent().forEach((e, i) => assert.ok(Math.abs(e.time - 130 * (i + 1)) < 1e-9, `sent at ${e.time}`));
  assert.is(newest.sender.counters.superseded, 2, 'frames 4 and 8');
});

test('frame clock: a frame due the moment the previous encode ends is the next one; a source that ends leaves no frame behind', async () => {
  const h = harness({ scheme: fixed(30), encodeMs: constantMs(100), frames: 6 });
  h.sender.start();
  await h.at(2000);
  assert.equal(h.sent().map((e) => e.sourceIndex), [0, 1, 2, 3, 4, 5]);
  h.sent().forEach((e, i) => assert.ok(Math.abs(e.time - 100 * (i + 1)) < 1e-9, `frame ${i} sent at ${e.time}`));
  assert.is(h.sender.counters.superseded, 0);
  // A slower encoder: the last frame captured is still encoded once the source has ended.
  const slow = harness({ scheme: fixed(30), encodeMs: constantMs(130), frames: 6 });
  slow.sender.start();
  await slow.at(2000);
  assert.equal(slow.sent().map((e) => e.sourceIndex), [0, 2, 4, 5]);
});

test("frame clock single-buffer (the paper's camera): an encode starts when a frame whose scan began after the previous encode ends completes, and takes the frame before it", async () => {
  const h = harness({ scheme: fixed(30), encodeMs: constantMs(130), frameClock: 'single-buffer' });
  h.sender.start();
  await h.at(1000);
  // Frame j is scanned over ((j - 1) x 100, j x 100]. The buffer queued at 0 takes frame 1 (t = 100): the first grab
  // holds nothing, so it is queued again and takes frame 2 (200). The grab at 200 returns frame 1: encoded 200-330.
  // Queued at 330: the first scan starting at or after 330 is frame 5's (400-500): at 500 frame 2 is encoded (500-630),
  // then at 800 frame 5 (800-930). A cycle of (ceil(130 / 100) + 1) x 100 = 300 ms; each frame is encoded one cycle
  // after its capture (frame 2: captured 200, encoded from 500).
  assert.equal(h.sent().map((e) => e.sourceIndex), [1, 2, 5]);
  h.sent().forEach((e, i) => assert.ok(Math.abs(e.time - (330 + 300 * i)) < 1e-9, `sent at ${e.time}`));
  assert.is(singleBufferFrameCycleMs(130, 100), 300);
  assert.is(singleBufferFrameCycleMs(100, 100), 200, 'an encode of exactly one interval: the next scan starts as it ends');
  assert.is(h.sender.counters.superseded, 3, 'frames 0, 3 and 4');

  // A source that ends: the frame in the buffer is still encoded (the reference's grab would wait for good).
  const end = harness({ scheme: fixed(30), encodeMs: constantMs(130), frameClock: 'single-buffer', frames: 6 });
  end.sender.start();
  await end.at(2000);
  assert.equal(end.sent().map((e) => e.sourceIndex), [1, 2, 5]);
  assert.equal(end.sent().map((e) => Math.round(e.time)), [330, 630, 760]);
});

test('grace period: the first fragment carries the time since the previous frame was handed to the pacer (skips included), the others 0', async () => {
  const h = harness({ scheme: fixed(4, {}, (n) => n === 2), encodeMs: constantMs(7), source: BIG, frames: 5 });
  h.sender.start();
  await h.at(1000);
  const sent = h.sent();
  assert.equal(sent.map((e) => e.sourceIndex), [0, 1, 3, 4]);
  assert.ok(sent.every((e) => e.fragments >= 3), `fragments ${sent.map((e) => e.fragments)}`);
  const grace = (n: number) => h.datagrams.filter((d) => d.frameNumber === n).map((d) => d.timeSincePreviousFrameUs);
  // handed over at 7 (since the start at 0), 107, 307 (frame 2 was skipped), 407
  assert.equal(grace(0), [7000, ...new Array(sent[0].fragments - 1).fill(0)]);
  assert.equal(grace(1), [100_000, ...new Array(sent[1].fragments - 1).fill(0)]);
  assert.equal(grace(2), [200_000, ...new Array(sent[2].fragments - 1).fill(0)], 'the whole interval since the frame before the skip');
  assert.equal(grace(3)[0], 100_000);

  const none = harness({ scheme: fixed(4, { grace: false }), encodeMs: constantMs(7), source: BIG, frames: 3 });
  none.sender.start();
  await none.at(1000);
  assert.ok(none.datagrams.length > 6);
  assert.ok(none.datagrams.every((d) => d.timeSincePreviousFrameUs === 0), 'a scheme without grace period sends 0');
});

test('pacing: a frame\'s fragments min(2000, max(500, floor(estimate / 5))) us apart, 2000 before any estimate', async () => {
  const h = harness({ scheme: fixed(4), encodeMs: constantMs(1), source: BIG });
  h.sender.start();
  const gapsOf = (n: number) => {
    const times = h.datagrams.map((d, i) => [d.frameNumber, h.departures[i]] as const).filter(([f]) => f === n).map(([, t]) => t);
    assert.ok(times.length >= 3, `frame ${n}: ${times.length} fragments`);
    return times.slice(1).map((t, i) => Math.round((t - times[i]) * 1e6) / 1e3); // us
  };
  await h.at(90);
  assert.ok(gapsOf(0).every((g) => g === 2000), `${gapsOf(0)}`);
  const cases: [number, number][] = [[5004, 1000], [1000, 500], [20_000, 2000], [7777, 1555]];
  for (const [k, [estimate, gap]] of cases.entries()) {
    h.ack(k, h.frame(k).targetStateId, [], estimate);
    await h.at(100 * (k + 1) + 90);
    const gaps = gapsOf(k + 1);
    assert.ok(gaps.every((g) => g === gap), `estimate ${estimate} us: gaps ${gaps}, expected ${gap}`);
    assert.ok(Math.abs(h.departures[h.datagrams.findIndex((d) => d.frameNumber === k + 1)] - (100 * (k + 1) + 1)) < 1e-9, 'the first fragment at once');
  }
});

test.run();
