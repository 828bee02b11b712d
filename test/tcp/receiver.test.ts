// The receiver's ACKs, segment by segment, over a zero-delay simulated path
// (the test plays the sender with hand-made segments).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createSimNetwork } from '../../src/net/sim-network.ts';
import { Simulator } from '../../src/net/simulator.ts';
import { TcpReceivingEndpoint } from '../../src/tcp/endpoints.ts';
import { decodeSegment, encodeSegment, FLAG_ACK, FLAG_FIN, FLAG_SYN, type Segment } from '../../src/tcp/segment.ts';

const MSS = 1000;

function setup(delayedAckMs?: number, sack = false) {
  const sim = new Simulator();
  const net = createSimNetwork(sim, { uplink: [], downlink: [], seed: 1 });
  const receiving = new TcpReceivingEndpoint(net.outside, { mss: MSS, delayedAckMs, receiveWindow: 65535, sack });
  const acks: Array<{ at: number } & Segment> = [];
  net.inside.onReceive((bytes) => acks.push({ at: sim.now(), ...decodeSegment(bytes) }));
  const at = (time: number, seq: number, length = MSS, flags = 0) => sim.at(time, () => net.inside.send(encodeSegment({ flags, connection: 7, seq, ack: 0, window: 0, length })));
  at(0, 0, 0, FLAG_SYN);
  return { sim, net, receiving, acks, at };
}

test('a SYN gets a SYN-ACK at once, with the receive window', async () => {
  const { sim, acks } = setup();
  await sim.run();
  assert.equal(acks.map((a) => [a.at, a.flags, a.ack, a.window]), [[0, FLAG_SYN | FLAG_ACK, 0, 65535]]);
});

test('in-order data: one ACK for every second full-size segment, the odd one after the 40 ms delayed-ACK timer', async () => {
  const { sim, acks, at } = setup();
  for (let i = 0; i < 5; i++) at(10 + i, i * MSS);
  await sim.run();
  assert.equal(acks.slice(1).map((a) => [a.at, a.ack]), [[11, 2000], [13, 4000], [14 + 40, 5000]]);
});

test('the delayed-ACK timer is a choice: 200 ms waits 200 ms, 0 acknowledges every segment', async () => {
  const slow = setup(200);
  slow.at(10, 0);
  await slow.sim.run();
  assert.equal(slow.acks.slice(1).map((a) => [a.at, a.ack]), [[210, 1000]]);
  const quick = setup(0);
  quick.at(10, 0);
  quick.at(11, MSS);
  await quick.sim.run();
  assert.equal(quick.acks.slice(1).map((a) => [a.at, a.ack]), [[10, 1000], [11, 2000]]);
});

test('out-of-order data is acknowledged at once (duplicate ACKs); the segment that fills the hole too, up to all it buffered', async () => {
  const { sim, acks, at, receiving } = setup();
  at(10, 0);
  at(10, MSS);
  // segment 2 is lost
  at(11, 3 * MSS);
  at(12, 4 * MSS);
  at(13, 2 * MSS); // fills the hole
  await sim.run();
  assert.equal(acks.slice(1).map((a) => [a.at, a.ack]), [[10, 2000], [11, 2000], [12, 2000], [13, 5000]]);
  const receiver = receiving.connections.get(7)!;
  assert.is(receiver.stats.outOfOrder, 2);
  assert.is(receiver.stats.bytesDelivered, 5000);
  assert.is(receiver.bufferedBytes(), 0);
});

test('filling part of a gap is acknowledged at once', async () => {
  const { sim, acks, at } = setup();
  at(10, 0);
  at(11, 3 * MSS); // holes at 1 and 2
  at(12, MSS); // fills part of the gap
  await sim.run();
  // segment 0 waits for the delayed ACK until the out-of-order segment forces one
  assert.equal(acks.slice(1).map((a) => [a.at, a.ack]), [[11, 1000], [12, 2000]]);
});

test('an old duplicate is acknowledged at once; the last segment (FIN) too', async () => {
  const { sim, acks, at, receiving } = setup();
  at(10, 0);
  at(10, MSS);
  at(20, 0); // duplicate
  at(30, 2 * MSS, 500, FLAG_FIN);
  await sim.run();
  assert.equal(acks.slice(1).map((a) => [a.at, a.ack]), [[10, 2000], [20, 2000], [30, 2500]]);
  const receiver = receiving.connections.get(7)!;
  assert.is(receiver.stats.duplicates, 1);
  assert.is(receiver.stats.completedAtMs, 30);
});

test('with SACK, each ACK beyond a gap carries the ranges held, the one the latest segment joined first (RFC 2018)', async () => {
  const { sim, acks, at } = setup(undefined, true);
  at(10, 0);
  at(11, 2 * MSS); // hole at 1
  at(12, 5 * MSS); // hole at 3, 4
  at(13, 3 * MSS);
  at(14, MSS); // fills the first hole
  await sim.run();
  assert.equal(acks.slice(1).map((a) => [a.ack, a.sack ?? []]), [
    [1000, [[2000, 3000]]],
    [1000, [[5000, 6000], [2000, 3000]]],
    [1000, [[2000, 4000], [5000, 6000]]],
    [4000, [[5000, 6000]]],
  ]);
});

test('datagrams that are not segments are counted and dropped; data without a SYN is ignored', async () => {
  const { sim, net, receiving, acks } = setup();
  sim.at(5, () => net.inside.send(new Uint8Array([1, 2, 3])));
  sim.at(6, () => net.inside.send(encodeSegment({ flags: 0, connection: 99, seq: 0, ack: 0, window: 0, length: MSS })));
  await sim.run();
  assert.is(receiving.counters.malformed, 1);
  assert.is(receiving.counters.unknownConnection, 1);
  assert.is(acks.length, 1);
});

test.run();
