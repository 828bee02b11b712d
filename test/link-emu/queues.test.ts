import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRng } from '../../src/common/random.ts';
import { PacketRing } from '../../src/link-emu/queues/packet-ring.ts';
import { InfiniteQueue } from '../../src/link-emu/queues/infinite.ts';
import { DropTailQueue } from '../../src/link-emu/queues/droptail.ts';
import { DropHeadQueue } from '../../src/link-emu/queues/drophead.ts';
import { CoDelQueue } from '../../src/link-emu/queues/codel.ts';
import { PieQueue } from '../../src/link-emu/queues/pie.ts';
import { dropLog, packet } from './queue-helpers.ts';

test('PacketRing: FIFO order and byte count through wrap-around and growth, against an array model', () => {
  const rng = createRng('ring');
  const ring = new PacketRing<string>(4);
  const model: { size: number; id: string }[] = [];
  let next = 0;
  for (let step = 0; step < 20000; step++) {
    // Bias towards pushing in the first half, popping in the second, so the ring both grows and empties.
    const pushBias = step < 10000 ? 0.6 : 0.4;
    if (rng.next() < pushBias) {
      const size = 1 + rng.int(1504);
      ring.push(packet(next, size, step));
      model.push({ size, id: String(next) });
      next++;
    } else {
      const got = ring.shift();
      const want = model.shift();
      assert.is(got?.payload, want?.id);
    }
    assert.is(ring.length, model.length);
    assert.is(ring.bytes, model.reduce((sum, p) => sum + p.size, 0));
    assert.is(ring.peek()?.payload, model[0]?.id);
  }
  assert.ok(next > 5000);
});

test('PacketRing: shift and peek on an empty ring give undefined', () => {
  const ring = new PacketRing<string>();
  assert.is(ring.shift(), undefined);
  assert.is(ring.peek(), undefined);
  ring.push(packet('a', 10, 0));
  assert.is(ring.shift()?.payload, 'a');
  assert.is(ring.shift(), undefined);
  assert.is(ring.bytes, 0);
});

test('infinite: keeps everything, in order, and never drops', () => {
  const q = new InfiniteQueue<string>();
  const log = dropLog();
  for (let i = 0; i < 1000; i++) q.enqueue(packet(i, 1500, i), i, log.onDrop);
  assert.is(q.sizePackets(), 1000);
  assert.is(q.sizeBytes(), 1_500_000);
  for (let i = 0; i < 1000; i++) assert.is(q.dequeue(2000, log.onDrop)?.payload, String(i));
  assert.is(q.dequeue(2000, log.onDrop), undefined);
  assert.equal(log.drops, []);
  assert.is(q.describe(), 'infinite');
  assert.is(q.kind, 'infinite');
});

test('droptail packets=3: the 4th and 5th arrivals are refused; room frees after a dequeue', () => {
  const q = new DropTailQueue<string>({ packets: 3 });
  const log = dropLog();
  for (const id of ['a', 'b', 'c', 'd', 'e']) q.enqueue(packet(id, 100, 1), 1, log.onDrop);
  assert.equal(log.drops, ['d@1', 'e@1']);
  assert.is(q.sizePackets(), 3);
  assert.is(q.dequeue(2, log.onDrop)?.payload, 'a');
  q.enqueue(packet('f', 100, 3), 3, log.onDrop);
  q.enqueue(packet('g', 100, 3), 3, log.onDrop);
  assert.equal(log.drops, ['d@1', 'e@1', 'g@3']);
  assert.equal([q.dequeue(4, log.onDrop), q.dequeue(4, log.onDrop), q.dequeue(4, log.onDrop)].map((p) => p?.payload), ['b', 'c', 'f']);
});

test('droptail bytes=3000: a packet that would exceed the byte limit is refused, one that fills it exactly is kept', () => {
  const q = new DropTailQueue<string>({ bytes: 3000 });
  const log = dropLog();
  q.enqueue(packet('a', 1000, 0), 0, log.onDrop); // 1000
  q.enqueue(packet('b', 1500, 0), 0, log.onDrop); // 2500
  q.enqueue(packet('c', 600, 0), 0, log.onDrop); // 3100 > 3000: refused
  q.enqueue(packet('d', 500, 0), 0, log.onDrop); // 3000: kept
  q.enqueue(packet('e', 1, 0), 0, log.onDrop); // 3001: refused
  assert.equal(log.drops, ['c@0', 'e@0']);
  assert.is(q.sizeBytes(), 3000);
  assert.is(q.sizePackets(), 3);
});

test('droptail with both limits: whichever binds first refuses', () => {
  const q = new DropTailQueue<string>({ packets: 2, bytes: 2000 });
  const log = dropLog();
  q.enqueue(packet('a', 1500, 0), 0, log.onDrop);
  q.enqueue(packet('b', 600, 0), 0, log.onDrop); // bytes 2100: refused
  q.enqueue(packet('c', 100, 0), 0, log.onDrop); // 2 packets, 1600 bytes
  q.enqueue(packet('d', 10, 0), 0, log.onDrop); // 3 packets: refused
  assert.equal(log.drops, ['b@0', 'd@0']);
  assert.is(q.describe(), 'droptail [bytes=2000, packets=2]');
});

test('drophead packets=2: the arrival is kept and the oldest packet dropped', () => {
  const q = new DropHeadQueue<string>({ packets: 2 });
  const log = dropLog();
  for (const [i, id] of ['a', 'b', 'c', 'd'].entries()) q.enqueue(packet(id, 100, i), i, log.onDrop);
  assert.equal(log.drops, ['a@2', 'b@3']);
  assert.equal([q.dequeue(5, log.onDrop), q.dequeue(5, log.onDrop), q.dequeue(5, log.onDrop)].map((p) => p?.payload), ['c', 'd', undefined]);
});

test('drophead bytes=3000: one large arrival drops as many head packets as needed', () => {
  const q = new DropHeadQueue<string>({ bytes: 3000 });
  const log = dropLog();
  q.enqueue(packet('a', 1000, 0), 0, log.onDrop);
  q.enqueue(packet('b', 1000, 0), 0, log.onDrop);
  q.enqueue(packet('c', 1000, 0), 0, log.onDrop); // exactly 3000: nothing dropped
  assert.equal(log.drops, []);
  q.enqueue(packet('d', 1500, 7), 7, log.onDrop); // 4500 -> drop a (3500) -> drop b (2500)
  assert.equal(log.drops, ['a@7', 'b@7']);
  assert.is(q.sizeBytes(), 2500);
  assert.is(q.sizePackets(), 2);
  assert.is(q.dequeue(8, log.onDrop)?.payload, 'c');
});

test('drophead: a packet larger than the byte limit by itself ends up dropped after all others', () => {
  const q = new DropHeadQueue<string>({ bytes: 1000 });
  const log = dropLog();
  q.enqueue(packet('a', 400, 0), 0, log.onDrop);
  q.enqueue(packet('b', 400, 0), 0, log.onDrop);
  q.enqueue(packet('big', 1200, 1), 1, log.onDrop);
  assert.equal(log.drops, ['a@1', 'b@1', 'big@1']);
  assert.is(q.sizePackets(), 0);
  assert.is(q.sizeBytes(), 0);
});

test('describe() gives mm-link\'s "# queue:" text: bytes before packets, only the limits set', () => {
  const rng = createRng(1);
  assert.is(new DropTailQueue({ packets: 20 }).describe(), 'droptail [packets=20]');
  assert.is(new DropTailQueue({ bytes: 30000 }).describe(), 'droptail [bytes=30000]');
  assert.is(new DropTailQueue({ packets: 100, bytes: 30000 }).describe(), 'droptail [bytes=30000, packets=100]');
  assert.is(new DropTailQueue({ packets: 100, bytes: 0 }).describe(), 'droptail [packets=100]');
  assert.is(new DropHeadQueue({ packets: 100, bytes: 30000 }).describe(), 'drophead [bytes=30000, packets=100]');
  // mm-link's codel and pie queues print only their limits.
  assert.is(new CoDelQueue({ packets: 100, target: 5, interval: 100 }).describe(), 'codel [packets=100]');
  assert.is(new PieQueue({ bytes: 60000, packets: 40, qdelayRef: 15, maxBurst: 150, rng }).describe(), 'pie [bytes=60000, packets=40]');
});

test('constructors reject a missing limit and bad numbers, naming the field and value', () => {
  const rng = createRng(1);
  assert.throws(() => new DropTailQueue({}), /droptail queue needs a packet or byte limit/);
  assert.throws(() => new DropHeadQueue({ packets: 0, bytes: 0 }), /drophead queue needs a packet or byte limit/);
  assert.throws(() => new DropTailQueue({ packets: 1.5 }), /droptail queue: packets=1\.5 is not an integer/);
  assert.throws(() => new DropTailQueue({ bytes: -1 }), /droptail queue: bytes=-1 is not an integer/);
  assert.throws(() => new DropTailQueue({ packets: NaN }), /packets=NaN/);
  assert.throws(() => new CoDelQueue({ packets: 10, target: 0, interval: 100 }), /codel queue: target=0 must be a positive integer/);
  assert.throws(() => new CoDelQueue({ packets: 10, target: 5, interval: 2.5 }), /codel queue: interval=2\.5/);
  assert.throws(() => new PieQueue({ packets: 10, qdelayRef: 15, maxBurst: -150, rng }), /pie queue: max_burst=-150/);
  assert.throws(() => new PieQueue({ packets: 10, qdelayRef: 0, maxBurst: 150, rng }), /pie queue: qdelay_ref=0/);
  assert.throws(() => new PieQueue({ qdelayRef: 15, maxBurst: 150, rng }), /pie queue needs a packet or byte limit/);
});

test.run();
