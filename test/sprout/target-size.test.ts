import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { targetFrameSize } from '../../src/sprout/target-size.ts';
import { InFlightCounter } from '../../src/sprout/in-flight.ts';

test('target = payload x (budget / inter-arrival - in flight), floored at zero', () => {
  // 100 ms budget, 5 ms between packets: 20 packets' worth.
  assert.is(targetFrameSize({ payloadBytesPerPacket: 1000, interArrivalMs: 5, packetsInFlight: 0 }), 20000);
  assert.is(targetFrameSize({ payloadBytesPerPacket: 1000, interArrivalMs: 5, packetsInFlight: 5 }), 15000);
  assert.is(targetFrameSize({ payloadBytesPerPacket: 1000, interArrivalMs: 5, packetsInFlight: 20 }), 0);
  assert.is(targetFrameSize({ payloadBytesPerPacket: 1000, interArrivalMs: 5, packetsInFlight: 40 }), 0);
  assert.is(targetFrameSize({ payloadBytesPerPacket: 1427, interArrivalMs: 3, packetsInFlight: 2, budgetMs: 50 }), Math.floor(1427 * (50 / 3 - 2)));
});

test('target shrinks as packets in flight grow and recovers as they are acknowledged', () => {
  const c = new InFlightCounter();
  const target = () => targetFrameSize({ payloadBytesPerPacket: 1000, interArrivalMs: 10, packetsInFlight: c.packetsInFlight });
  assert.is(target(), 10000);
  c.addFrame(0, 3);
  assert.is(target(), 7000);
  c.addFrame(1, 4);
  assert.is(target(), 3000);
  c.addFrame(2, 5);
  assert.is(c.packetsInFlight, 12);
  assert.is(target(), 0);
  assert.ok(c.acknowledge(1, 1)); // everything up to frame 1 fragment 1: 5 sent, 7 in flight
  assert.is(c.packetsInFlight, 7);
  assert.is(target(), 3000);
  assert.ok(c.acknowledge(0, 2)); // older than the newest: no change
  assert.is(c.packetsInFlight, 7);
  assert.ok(c.acknowledge(2, 4)); // the last one: lost ones before it are forgotten
  assert.is(c.packetsInFlight, 0);
  assert.is(target(), 10000);
});

test('in-flight counter ignores unknown acknowledgements and bounds its memory', () => {
  const c = new InFlightCounter(4);
  for (let f = 0; f < 10; f++) c.addFrame(f, 2);
  assert.is(c.packetsInFlight, 20);
  assert.not.ok(c.acknowledge(3, 0)); // forgotten
  assert.not.ok(c.acknowledge(9, 2)); // no such fragment
  assert.not.ok(c.acknowledge(42, 0));
  assert.is(c.packetsInFlight, 20);
  assert.ok(c.acknowledge(7, 1));
  assert.is(c.packetsInFlight, 4);
  assert.throws(() => c.addFrame(9, 1), /already/);
  assert.throws(() => c.addFrame(11, 0), /fragment count/);
});

test('bad inputs are rejected', () => {
  assert.throws(() => targetFrameSize({ payloadBytesPerPacket: 1000, interArrivalMs: 0, packetsInFlight: 0 }), /inter-arrival/);
  assert.throws(() => targetFrameSize({ payloadBytesPerPacket: 0, interArrivalMs: 1, packetsInFlight: 0 }), /payload/);
  assert.throws(() => targetFrameSize({ payloadBytesPerPacket: 1, interArrivalMs: 1, packetsInFlight: -1 }), /in flight/);
  assert.throws(() => targetFrameSize({ payloadBytesPerPacket: 1, interArrivalMs: 1, packetsInFlight: 0, budgetMs: 0 }), /budget/);
});

test.run();
