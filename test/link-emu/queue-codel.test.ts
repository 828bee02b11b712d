// CoDel (RFC 8289 as Mahimahi applies it at delivery opportunities), with
// hand-computed schedules. target=5 ms, interval=100 ms throughout; 1000-byte
// packets, so "more than one 1504-byte packet still queued" means at least two
// packets remain behind the one taken.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CoDelQueue } from '../../src/link-emu/queues/codel.ts';
import { dropLog, packet } from './queue-helpers.ts';

function filled(count: number, arrival: number, prefix = 'p', q = new CoDelQueue<string>({ packets: 1000, target: 5, interval: 100 })) {
  const log = dropLog();
  for (let i = 0; i < count; i++) q.enqueue(packet(`${prefix}${i}`, 1000, arrival), arrival, log.onDrop);
  return { q, log };
}

test('codel: below target nothing is dropped, however long it lasts', () => {
  const { q, log } = filled(0, 0);
  // One packet every ms, dequeued 4 ms after arrival (sojourn 4 < target 5), a standing queue of 4 packets.
  for (let t = 0; t < 2000; t++) {
    q.enqueue(packet(t, 1000, t), t, log.onDrop);
    if (t >= 4) assert.is(q.dequeue(t, log.onDrop)?.payload, String(t - 4));
  }
  assert.equal(log.drops, []);
  assert.is(q.isDropping, false);
});

test('codel: above target for one interval enters dropping; drops then follow interval/sqrt(count)', () => {
  const { q, log } = filled(20, 0);
  const out = (t: number) => q.dequeue(t, log.onDrop)?.payload;
  assert.is(out(10), 'p0'); // sojourn 10 >= 5: first above, may drop from 110
  assert.is(out(50), 'p1'); // still within the interval
  assert.equal(log.drops, []);
  assert.is(out(110), 'p2'); // interval elapsed: drop (Mahimahi drops the packet behind the one it returns)
  assert.equal(log.drops, ['p3@110']);
  assert.ok(q.isDropping);
  assert.is(q.dropCount, 1);
  assert.is(q.nextDropTime, 210); // 110 + 100/sqrt(1)
  assert.is(out(150), 'p4'); // before the scheduled drop: none
  assert.is(log.drops.length, 1);
  assert.is(out(210), 'p5');
  assert.equal(log.drops.slice(1), ['p6@210']);
  assert.is(q.dropCount, 2);
  assert.is(q.nextDropTime, 280); // 210 + floor(100/sqrt 2 = 70.7)
  assert.is(out(280), 'p7');
  assert.is(q.nextDropTime, 337); // 280 + floor(57.7)
  assert.is(out(337), 'p9');
  assert.is(q.nextDropTime, 387); // 337 + 50
  assert.is(out(387), 'p11');
  assert.is(q.nextDropTime, 431); // 387 + floor(44.7)
  assert.equal(log.drops, ['p3@110', 'p6@210', 'p8@280', 'p10@337', 'p12@387']);
  assert.is(q.dropCount, 5);
  assert.is(q.sizePackets(), 7);
});

test('codel: a late dequeue catches up on every drop that fell due (several drops in one call)', () => {
  const { q, log } = filled(20, 0);
  q.dequeue(10, log.onDrop);
  q.dequeue(110, log.onDrop); // enter: drop p2 behind p1, next drop at 210
  assert.is(q.dequeue(300, log.onDrop)?.payload, 'p3');
  // 300 >= 210: drop p4, count 2, next 280; 300 >= 280: drop p5, count 3, next 337.
  assert.equal(log.drops, ['p2@110', 'p4@300', 'p5@300']);
  assert.is(q.dropCount, 3);
  assert.is(q.nextDropTime, 337);
});

test('codel: leaves the dropping state when at most one MTU stays queued behind the head', () => {
  const { q, log } = filled(10, 0);
  q.dequeue(10, log.onDrop);
  q.dequeue(110, log.onDrop); // enter, drop p2
  assert.ok(q.isDropping);
  for (const [t, id] of [[120, 'p3'], [130, 'p4'], [140, 'p5'], [150, 'p6'], [160, 'p7']] as const) {
    assert.is(q.dequeue(t, log.onDrop)?.payload, id);
    assert.ok(q.isDropping, `still dropping at ${t}`);
  }
  // Taking p8 leaves only p9 (1000 bytes <= 1504): not above any more.
  assert.is(q.dequeue(170, log.onDrop)?.payload, 'p8');
  assert.is(q.isDropping, false);
  assert.is(q.dequeue(300, log.onDrop)?.payload, 'p9'); // past the old schedule, yet no drop
  assert.equal(log.drops, ['p2@110']);
});

test('codel: leaves the dropping state on a sojourn below target', () => {
  const { q, log } = filled(6, 0);
  q.dequeue(10, log.onDrop);
  q.dequeue(110, log.onDrop); // enter, drop p2; p3..p5 remain
  for (let i = 0; i < 4; i++) q.enqueue(packet(`n${i}`, 1000, 138), 138, log.onDrop);
  assert.is(q.dequeue(120, log.onDrop)?.payload, 'p3');
  assert.is(q.dequeue(130, log.onDrop)?.payload, 'p4');
  assert.is(q.dequeue(140, log.onDrop)?.payload, 'p5');
  assert.ok(q.isDropping);
  assert.is(q.dequeue(141, log.onDrop)?.payload, 'n0'); // sojourn 3 < 5
  assert.is(q.isDropping, false);
  // Re-entering needs a full interval above target again: n1 (sojourn 103) is only the first above.
  assert.is(q.dequeue(241, log.onDrop)?.payload, 'n1');
  assert.equal(log.drops, ['p2@110']);
});

test('codel: RFC 8289 count reuse when re-entering soon after a dropping cycle, reset to 1 after 16 intervals', () => {
  const run = (reentryArrival: number) => {
    const { q, log } = filled(20, 0);
    q.dequeue(10, log.onDrop); // p0; first above
    q.dequeue(110, log.onDrop); // enter: count 1 (lastcount 1), next 210
    q.dequeue(210, log.onDrop); // count 2, next 280
    q.dequeue(280, log.onDrop); // count 3, next 337
    assert.is(q.dropCount, 3);
    // Drain without reaching the next drop (337): the last take leaves one packet and ends the state.
    while (q.sizePackets() > 0) q.dequeue(300, log.onDrop);
    assert.is(q.isDropping, false);
    assert.is(log.drops.length, 3);
    filled(10, reentryArrival, 'r', q);
    q.dequeue(reentryArrival + 10, log.onDrop); // first above
    q.dequeue(reentryArrival + 110, log.onDrop); // enter again
    assert.ok(q.isDropping);
    return { q, log, enteredAt: reentryArrival + 110 };
  };
  // Re-entry at 420: delta = count 3 - lastcount 1 = 2 > 1, and 420 - 337 = 83 < 1600: count = 2.
  const soon = run(310);
  assert.is(soon.q.dropCount, 2);
  assert.is(soon.q.nextDropTime, 420 + 70);
  // Re-entry at 5110: 5110 - 337 >= 1600: count = 1.
  const late = run(5000);
  assert.is(late.q.dropCount, 1);
  assert.is(late.q.nextDropTime, 5110 + 100);
});

test('codel: with delta <= 1 (a single-drop cycle) the count restarts at 1', () => {
  const { q, log } = filled(8, 0);
  q.dequeue(10, log.onDrop);
  q.dequeue(110, log.onDrop); // enter: count 1, lastcount 1; drop p2
  while (q.sizePackets() > 0) q.dequeue(150, log.onDrop); // leaves before the next drop at 210
  filled(10, 160, 'r', q);
  q.dequeue(170, log.onDrop);
  q.dequeue(270, log.onDrop); // re-enter: delta 0
  assert.is(q.dropCount, 1);
  assert.is(q.nextDropTime, 370);
  assert.equal(log.drops, ['p2@110', 'r2@270']); // r1 returned, r2 behind it dropped
});

test('codel: the packet limit refuses arrivals like droptail; an empty queue dequeues undefined', () => {
  const q = new CoDelQueue<string>({ packets: 2, target: 5, interval: 100 });
  const log = dropLog();
  for (const id of ['a', 'b', 'c']) q.enqueue(packet(id, 100, 0), 0, log.onDrop);
  assert.equal(log.drops, ['c@0']);
  assert.is(q.dequeue(1, log.onDrop)?.payload, 'a');
  assert.is(q.dequeue(1, log.onDrop)?.payload, 'b');
  assert.is(q.dequeue(1, log.onDrop), undefined);
});

test.run();
