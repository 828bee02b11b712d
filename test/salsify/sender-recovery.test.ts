// The sender's loss recovery, driven directly: a SalsifySender on a hand-made
// endpoint (the simulator's clock, datagrams collected instead of sent) and
// acknowledgements made by hand, so each test names exactly what the
// receiver reports and when.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { targetFrameSize } from '../../src/sprout/target-size.ts';
import { SCHEMES } from '../../src/salsify/sender.ts';
import { harness } from './sender-harness.ts';

test('acknowledgements that match what was sent: no loss, each frame encoded from the one before', async () => {
  const h = harness();
  h.sender.start();
  for (let n = 0; n < 5; n++) await h.at(n * 100 + 50, () => h.ack(n, h.frame(n).targetStateId));
  await h.at(650);
  const sent = h.sent();
  assert.ok(sent.length >= 6);
  assert.is(sent[0].sourceStateId, h.initialId);
  assert.ok(sent[0].keyFrame);
  for (let i = 1; i < sent.length; i++) assert.is(sent[i].sourceStateId, sent[i - 1].targetStateId, `frame ${i}`);
  assert.is(h.sender.counters.lossesDetected, 0);
  assert.is(h.ofKind('recovery').length, 0);
  assert.is(h.sender.counters.keyFrames, 1);
});

test('a receiver behind the frame before the one it acknowledges: for 5 s every frame is encoded from the state it reports', async () => {
  const h = harness();
  h.sender.start();
  await h.at(50, () => h.ack(0, h.frame(0).targetStateId));
  await h.at(150, () => h.ack(1, h.frame(1).targetStateId));
  // Frame 2 is lost: the receiver acknowledges frame 3 still in frame 1's state.
  await h.at(350, () => h.ack(3, h.frame(1).targetStateId));
  assert.is(h.sender.counters.lossesDetected, 1);
  assert.equal(h.ofKind('loss'), [{ kind: 'loss', time: 350, ackFrame: 3, receiverStateId: h.frame(1).targetStateId }]);
  assert.ok(h.sender.conservative);
  await h.at(450);
  const recovery = h.frame(4);
  assert.is(recovery.sourceStateId, h.frame(1).targetStateId);
  assert.not.ok(recovery.keyFrame);
  assert.equal(h.ofKind('recovery').map((e) => [e.frameNumber, e.fromStateId, e.keyFrame]), [[4, h.frame(1).targetStateId, false]]);
  // Still conservative: the next frame too is encoded from the receiver's reported state, not from frame 4's.
  await h.at(550);
  assert.is(h.frame(5).sourceStateId, h.frame(1).targetStateId);
  // The receiver reports frame 4 decoded: the next frames are encoded from there.
  h.ack(4, h.frame(4).targetStateId, [h.frame(4).targetStateId, h.frame(1).targetStateId]);
  await h.at(750);
  assert.is(h.frame(6).sourceStateId, h.frame(4).targetStateId);
  assert.is(h.frame(7).sourceStateId, h.frame(4).targetStateId);
  assert.is(h.sender.counters.keyFrames, 1);
  assert.is(h.ofKind('recovery').length, 1);
});

test('a receiver in a state the sender does not hold: another state it holds, else a key frame', async () => {
  const unknown = 'feedfacefeedface';
  const held = harness();
  held.sender.start();
  await held.at(250, () => held.ack(2, unknown, ['0123456789abcdef', held.frame(0).targetStateId]));
  assert.is(held.sender.counters.lossesDetected, 1);
  await held.at(350);
  assert.is(held.frame(3).sourceStateId, held.frame(0).targetStateId, 'encoded from the held state the sender knows');
  assert.not.ok(held.frame(3).keyFrame);

  const none = harness();
  none.sender.start();
  await none.at(250, () => none.ack(2, unknown, ['0123456789abcdef']));
  assert.is(none.sender.counters.lossesDetected, 1);
  await none.at(350);
  assert.is(none.frame(3).sourceStateId, none.initialId, 'a key frame from the initial state');
  assert.ok(none.frame(3).keyFrame);
  assert.equal(none.ofKind('recovery').map((e) => e.keyFrame), [true]);
  assert.is(none.sender.counters.keyFrames, 2);
});

test('the conservative period: 5 s from the loss, the target not cut, a loss seen in it changes nothing; then the chain again', async () => {
  const h = harness();
  const full = () => targetFrameSize({ payloadBytesPerPacket: 1400, interArrivalUs: h.sender.interArrivalUs!, packetsInFlight: h.sender.packetsInFlight });
  h.sender.start();
  await h.at(50, () => h.ack(0, h.frame(0).targetStateId, [], 20_000));
  assert.is(h.sender.interArrivalUs, 20_000);
  assert.is(h.sender.currentTarget(), full());
  await h.at(250, () => h.ack(2, h.frame(0).targetStateId, [], 20_000)); // frame 1 lost
  assert.is(h.sender.counters.lossesDetected, 1);
  assert.ok(full() > 0);
  assert.is(h.sender.currentTarget(), full(), 'no cut of the target');
  // Another loss in the period (frame 10's source never reached): not counted, the period not prolonged.
  await h.at(1050, () => h.ack(10, h.frame(0).targetStateId, [], 20_000));
  assert.is(h.sender.counters.lossesDetected, 1);
  await h.at(5249);
  assert.ok(h.sender.conservative, 'still conservative 4999 ms later');
  const during = h.sent().filter((e) => e.time > 250 && e.time < 5250);
  assert.is(during.length, 50);
  for (const e of during) assert.is(e.sourceStateId, h.frame(0).targetStateId, `frame ${e.frameNumber}: from the receiver's reported state`);
  await h.at(5251);
  assert.not.ok(h.sender.conservative, 'over 5000 ms after the loss');
  await h.at(5450);
  const after = h.sent().filter((e) => e.time > 5251);
  assert.is(after.length, 2);
  assert.is(after[0].sourceStateId, h.sent().find((e) => e.frameNumber === after[0].frameNumber - 1)!.targetStateId, 'the chain again: from the last frame sent');
  assert.is(after[1].sourceStateId, after[0].targetStateId);
});

test('option: the earlier variant that halves the target while conservative', async () => {
  const h = harness({ conservativeMs: 300, conservativeTarget: 'halved' });
  const full = () => targetFrameSize({ payloadBytesPerPacket: 1400, interArrivalUs: h.sender.interArrivalUs!, packetsInFlight: h.sender.packetsInFlight });
  h.sender.start();
  await h.at(50, () => h.ack(0, h.frame(0).targetStateId, [], 20_000));
  assert.is(h.sender.currentTarget(), full());
  await h.at(250, () => h.ack(2, h.frame(0).targetStateId, [], 20_000)); // frame 1 lost
  assert.is(h.sender.currentTarget(), Math.floor(full() / 2));
  await h.at(549);
  assert.is(h.sender.currentTarget(), Math.floor(full() / 2));
  await h.at(551);
  assert.is(h.sender.currentTarget(), full());
});

test('states older than the receiver\'s are dropped; the receiver\'s is kept', async () => {
  const h = harness();
  h.sender.start();
  await h.at(450);
  assert.is(h.sent().length, 5);
  assert.is(h.sender.statesKept, 5, 'no acknowledgement yet: every state sent is kept');
  h.ack(2, h.frame(2).targetStateId);
  assert.is(h.sender.statesKept, 3, 'the states of frames 0 and 1 are gone');
  // A loss that points back to the receiver's state can still be recovered from it.
  h.ack(4, h.frame(2).targetStateId);
  assert.is(h.sender.counters.lossesDetected, 1);
  await h.at(550);
  assert.is(h.frame(5).sourceStateId, h.frame(2).targetStateId);
  assert.not.ok(h.frame(5).keyFrame);
});

test('recovery behind a long queue: one loss, one recovery, old-chain acknowledgements ignored after the period too', async () => {
  const h = harness({ conservativeMs: 500 });
  h.sender.start();
  await h.at(2950); // 30 frames sent, none acknowledged: all are in the queue
  assert.is(h.sent().length, 30);
  assert.is(h.sender.packetsInFlight, 30);
  await h.at(2960, () => {
    for (let n = 0; n <= 4; n++) h.ack(n, h.frame(n).targetStateId);
    h.ack(6, h.frame(4).targetStateId); // frame 5 lost
  });
  assert.is(h.sender.counters.lossesDetected, 1);
  await h.at(3050);
  const recovery = h.frame(30);
  assert.is(recovery.sourceStateId, h.frame(4).targetStateId);
  await h.at(3150, () => h.ack(30, recovery.targetStateId));
  await h.at(3250);
  assert.is(h.frame(32).sourceStateId, recovery.targetStateId, 'conservative: from the state the receiver reports');
  await h.at(3460); // the period is over
  assert.not.ok(h.sender.conservative);
  // The rest of the old chain drains: the receiver stays in frame 4's state, which is no news.
  await h.at(3470, () => {
    for (let n = 7; n < 30; n++) h.ack(n, h.frame(4).targetStateId);
  });
  await h.at(3650, () => {
    for (const n of [31, 32, 33, 34, 35]) h.ack(n, h.frame(n).targetStateId);
  });
  assert.is(h.sender.counters.lossesDetected, 1);
  assert.is(h.ofKind('recovery').length, 1);
  assert.is(h.frame(36).sourceStateId, h.frame(35).targetStateId);
  assert.is(h.sender.counters.keyFrames, 1);
  assert.is(h.sender.counters.unexpectedDatagrams, 0);
});

test('behind a queue longer than the state memory the receiver\'s state is gone: a key frame', async () => {
  const h = harness({ stateMemory: 4 });
  h.sender.start();
  await h.at(950);
  assert.is(h.sent().length, 10);
  assert.is(h.sender.statesKept, 4);
  h.ack(2, h.frame(0).targetStateId); // frame 1 lost, and frame 0's state was evicted long ago
  assert.is(h.sender.counters.lossesDetected, 1);
  await h.at(1050);
  assert.is(h.frame(10).sourceStateId, h.initialId);
  assert.ok(h.frame(10).keyFrame);
});

test('the same recovery in every scheme: it belongs to the sender', async () => {
  for (const scheme of SCHEMES) {
    const h = harness({ scheme });
    h.sender.start();
    await h.at(50, () => h.ack(0, h.frame(0).targetStateId));
    await h.at(250, () => h.ack(2, h.frame(0).targetStateId)); // frame 1 lost
    assert.is(h.sender.counters.lossesDetected, 1, scheme);
    await h.at(350);
    assert.is(h.frame(3).sourceStateId, h.frame(0).targetStateId, scheme);
    assert.equal(h.ofKind('recovery').map((e) => e.frameNumber), [3], scheme);
  }
});

test.run();
