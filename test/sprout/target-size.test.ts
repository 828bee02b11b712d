import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { targetFrameSize } from '../../src/sprout/target-size.ts';
import { InFlightCounter } from '../../src/sprout/in-flight.ts';

test('target = payload x max(0, floor(budget / inter-arrival) - in flight), in whole microseconds', () => {
  // 100 ms budget, 5 ms between packets: 20 packets' worth.
  assert.is(targetFrameSize({ payloadBytesPerPacket: 1400, interArrivalUs: 5000, packetsInFlight: 0 }), 28000);
  assert.is(targetFrameSize({ payloadBytesPerPacket: 1400, interArrivalUs: 5000, packetsInFlight: 5 }), 21000);
  assert.is(targetFrameSize({ payloadBytesPerPacket: 1400, interArrivalUs: 5000, packetsInFlight: 20 }), 0);
  assert.is(targetFrameSize({ payloadBytesPerPacket: 1400, interArrivalUs: 5000, packetsInFlight: 40 }), 0);
  assert.is(targetFrameSize({ payloadBytesPerPacket: 1400, interArrivalUs: 3000, packetsInFlight: 2, budgetUs: 50_000 }), 1400 * (16 - 2));
});

test('target: the packet count is floored before the packets in flight are taken off', () => {
  // 100000 / 3001 = 33.32: 33 packets, not 33.32 (a fractional formula would give 1400 x 31.32 = 43851 with 2 in flight).
  assert.is(targetFrameSize({ payloadBytesPerPacket: 1400, interArrivalUs: 3001, packetsInFlight: 2 }), 1400 * 31);
  // 100000 / 6000 = 16.67: 16 packets.
  assert.is(targetFrameSize({ payloadBytesPerPacket: 1400, interArrivalUs: 6000, packetsInFlight: 0 }), 1400 * 16);
  assert.is(targetFrameSize({ payloadBytesPerPacket: 1400, interArrivalUs: 6000, packetsInFlight: 16 }), 0);
  assert.is(targetFrameSize({ payloadBytesPerPacket: 1400, interArrivalUs: 6000, packetsInFlight: 15 }), 1400);
});

test('target: an estimate of 0 us counts as 1 us (the reference\'s guard)', () => {
  assert.is(targetFrameSize({ payloadBytesPerPacket: 1400, interArrivalUs: 0, packetsInFlight: 3 }), 1400 * (100_000 - 3));
  assert.is(targetFrameSize({ payloadBytesPerPacket: 1400, interArrivalUs: 1, packetsInFlight: 3 }), 1400 * (100_000 - 3));
});

test('in flight: the newest acknowledged packet is still counted (+1), before any acknowledgement every packet', () => {
  const c = new InFlightCounter();
  const target = () => targetFrameSize({ payloadBytesPerPacket: 1000, interArrivalUs: 10_000, packetsInFlight: c.packetsInFlight });
  assert.is(c.packetsInFlight, 0);
  assert.not.ok(c.acknowledged);
  assert.is(target(), 10000);
  c.addFrame(0, 3); // sequence numbers 0, 1, 2
  assert.is(c.packetsInFlight, 3);
  c.addFrame(1, 4); // 3..6
  c.addFrame(2, 5); // 7..11
  assert.is(c.packetsInFlight, 12);
  assert.is(target(), 0);
  assert.ok(c.acknowledge(1, 1)); // sequence 4: 12 sent - 4 = 8 in flight (sequences 4..11)
  assert.ok(c.acknowledged);
  assert.is(c.packetsInFlight, 8);
  assert.is(target(), 2000);
  assert.ok(c.acknowledge(0, 2)); // older than the newest: no change
  assert.is(c.packetsInFlight, 8);
  assert.ok(c.acknowledge(2, 4)); // the last one: lost ones before it are forgotten, it still counts
  assert.is(c.packetsInFlight, 1);
  assert.is(target(), 9000);
});

test('in-flight counter ignores unknown acknowledgements and bounds its memory', () => {
  const c = new InFlightCounter(4);
  for (let f = 0; f < 10; f++) c.addFrame(f, 2);
  assert.is(c.packetsInFlight, 20);
  assert.not.ok(c.acknowledge(3, 0)); // forgotten
  assert.not.ok(c.acknowledge(9, 2)); // no such fragment
  assert.not.ok(c.acknowledge(42, 0));
  assert.is(c.packetsInFlight, 20);
  assert.ok(c.acknowledge(7, 1)); // sequence 15
  assert.is(c.packetsInFlight, 5);
  assert.throws(() => c.addFrame(9, 1), /already/);
  assert.throws(() => c.addFrame(11, 0), /fragment count/);
});

test('bad inputs are rejected', () => {
  assert.throws(() => targetFrameSize({ payloadBytesPerPacket: 1000, interArrivalUs: -1, packetsInFlight: 0 }), /inter-arrival/);
  assert.throws(() => targetFrameSize({ payloadBytesPerPacket: 1000, interArrivalUs: 1.5, packetsInFlight: 0 }), /inter-arrival/);
  assert.throws(() => targetFrameSize({ payloadBytesPerPacket: 0, interArrivalUs: 1, packetsInFlight: 0 }), /payload/);
  assert.throws(() => targetFrameSize({ payloadBytesPerPacket: 1, interArrivalUs: 1, packetsInFlight: -1 }), /in flight/);
  assert.throws(() => targetFrameSize({ payloadBytesPerPacket: 1, interArrivalUs: 1, packetsInFlight: 0, budgetUs: 0 }), /budget/);
});

test.run();
