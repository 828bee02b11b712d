// PIE (RFC 8033 as Mahimahi implements it), with hand-computed probability
// updates. qdelay_ref=15 ms, max_burst=150 ms, bytes=40000 throughout.
// `poke(t)` offers a 40000-byte packet, which the byte limit always refuses:
// it runs the due probability updates without changing the queue.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PieQueue } from '../../src/link-emu/queues/pie.ts';
import { createRng, type Rng } from '../../src/common/random.ts';
import { dropLog, packet } from './queue-helpers.ts';

/** A real seeded generator that also records what it hands out. */
function recordingRng(seed: string): Rng & { draws: number[] } {
  const base = createRng(seed);
  const draws: number[] = [];
  return { ...base, draws, next: () => { const x = base.next(); draws.push(x); return x; } };
}

/** `count` 1000-byte packets at time 0, then 17 dequeues one per ms from t=10 (the 17th, at 26, measures the rate). */
function measured(count: number, seed = 'pie') {
  const rng = recordingRng(seed);
  const q = new PieQueue<string>({ bytes: 40000, qdelayRef: 15, maxBurst: 150, rng });
  const log = dropLog();
  for (let i = 0; i < count; i++) q.enqueue(packet(`p${i}`, 1000, 0), 0, log.onDrop);
  for (let t = 10; t < 26; t++) q.dequeue(t, log.onDrop);
  assert.is(q.departureRate, 0, 'no rate before 16384 bytes have left');
  q.dequeue(26, log.onDrop);
  const poke = (t: number) => q.enqueue(packet('poke', 40000, t), t, log.onDrop);
  return { q, log, rng, poke };
}

test('pie: the departure rate sample is bytes / ms over a 16384-byte measurement', () => {
  const { q, log } = measured(40);
  assert.equal(log.drops, []);
  assert.is(q.departureRate, 1062); // 17000 bytes in 16 ms, integer division
  assert.is(q.sizeBytes(), 23000);
});

test('pie: updates every 30 ms (strictly after), with the /128 and /16 scaling and catch-up of missed periods', () => {
  const { q, poke, rng } = measured(40);
  poke(30);
  assert.is(q.dropProbability, 0, 'now - last update must exceed 30 ms');
  poke(31);
  // delay 23000/1062 = 21; p = 0.125 (21 - 15) + 1.25 (21 - 0) = 27; below 0.01: /128.
  assert.is(q.queueDelay, 21);
  assert.is(q.dropProbability, 27 / 128);
  poke(61);
  // p = 0.125 (21 - 15) + 1.25 (21 - 21) = 0.75; probability >= 0.1: /16.
  assert.is(q.dropProbability, 27 / 128 + 0.75 / 16);
  poke(181); // updates for 90, 120, 150 and 180 all fell due
  assert.is(q.dropProbability, 27 / 128 + 5 * (0.75 / 16));
  assert.is(rng.draws.length, 0, 'refused arrivals never draw');
});

test('pie: the /32 scaling, the reset to max_burst when the delay is low, and the burst allowance running out', () => {
  const { q, poke } = measured(23); // 6000 bytes left: delay 6000/1062 = 5
  poke(31);
  // p = 0.125 (5 - 15) + 1.25 (5 - 0) = 5; /128.
  assert.is(q.dropProbability, 5 / 128);
  assert.is(q.queueDelay, 5);
  poke(61);
  // p = 0.125 (5 - 15) + 0 = -1.25; 0.01 <= probability < 0.1: /32, giving exactly 0.
  // Probability 0, both delays < 15/2, a known rate: rate measurement reset, burst allowance = max_burst.
  assert.is(q.dropProbability, 0);
  assert.is(q.burstAllowanceLeft, 150);
  assert.is(q.departureRate, 0);
  poke(91);
  assert.is(q.queueDelay, 0); // no rate: no delay estimate
  assert.is(q.burstAllowanceLeft, 120);
  poke(211); // four more updates: 120 - 4 x 30
  assert.is(q.burstAllowanceLeft, 0);
});

test('pie: early drops follow the seeded Rng (drop iff draw < probability); same seed, same drops', () => {
  const run = (seed: string) => {
    const { q, log, rng, poke } = measured(40, seed);
    poke(31); // probability 27/128 >= 0.2, so low delay no longer exempts
    log.drops.length = 0;
    for (let i = 0; i < 200; i++) q.enqueue(packet(`n${i}`, 10, 31), 31, log.onDrop);
    return { drops: log.drops, draws: rng.draws, kept: q.sizePackets() - 23 };
  };
  const a = run('seed-a');
  assert.is(a.draws.length, 200, 'one draw per arrival');
  const expected = a.draws.flatMap((x, i) => (x < 27 / 128 ? [`n${i}@31`] : []));
  assert.equal(a.drops, expected);
  assert.is(a.kept + a.drops.length, 200);
  assert.ok(a.drops.length > 20 && a.drops.length < 70, `about 21% of 200 dropped, got ${a.drops.length}`);
  assert.equal(run('seed-a').drops, a.drops);
  assert.not.equal(run('seed-b').drops, a.drops);
});

test('pie: no draw while the probability is below 0.2 and the delay low', () => {
  const { q, log, rng, poke } = measured(23);
  poke(31); // probability 5/128, previous delay 0
  log.drops.length = 0;
  for (let i = 0; i < 50; i++) q.enqueue(packet(`n${i}`, 100, 31), 31, log.onDrop);
  assert.is(rng.draws.length, 0);
  assert.equal(log.drops, []);
});

test('pie: probability clamps at 1 and then every eligible arrival is dropped, except below two MTUs of backlog', () => {
  const rng = recordingRng('clamp');
  const q = new PieQueue<string>({ bytes: 40000, qdelayRef: 15, maxBurst: 150, rng });
  const log = dropLog();
  for (let i = 0; i < 40; i++) q.enqueue(packet(`p${i}`, 1000, 0), 0, log.onDrop);
  for (let t = 10; t < 26; t++) q.dequeue(t, log.onDrop);
  // 17000 bytes in 1700 ms: rate 10 bytes/ms, delay 23000 / 10 = 2300 ms: the first update clamps to 1.
  q.dequeue(1710, log.onDrop);
  assert.is(q.departureRate, 10);
  assert.is(q.queueDelay, 2300);
  assert.is(q.dropProbability, 1);
  for (let i = 0; i < 30; i++) q.enqueue(packet(`n${i}`, 100, 1710), 1710, log.onDrop);
  assert.is(log.drops.length, 30);
  assert.is(rng.draws.length, 30);
  // Drain to 3000 bytes (< 2 x 1504) at the same instant: an arrival is then exempt, the next is not.
  while (q.sizeBytes() > 3000) q.dequeue(1710, log.onDrop);
  q.enqueue(packet('small-backlog', 100, 1710), 1710, log.onDrop);
  q.enqueue(packet('next', 100, 1710), 1710, log.onDrop);
  assert.equal(log.drops.slice(30), ['next@1710']);
  assert.is(rng.draws.length, 31);
});

test('pie: with both delay estimates 0 and an empty queue the probability decays by 2% per update', () => {
  const q = new PieQueue<string>({ bytes: 40000, qdelayRef: 1, maxBurst: 150, rng: createRng('decay') });
  const log = dropLog();
  const poke = (t: number) => q.enqueue(packet('poke', 50000, t), t, log.onDrop);
  for (let i = 0; i < 20; i++) q.enqueue(packet(`p${i}`, 1000, 0), 0, log.onDrop);
  for (let t = 10; t <= 26; t++) q.dequeue(t, log.onDrop); // rate 1062, 3000 bytes left: delay 2
  let t = 31;
  let previous = 0;
  for (; q.dropProbability < 0.2; t += 30) {
    poke(t); // delay 2 > qdelay_ref 1: the probability climbs every update
    assert.is(q.queueDelay, 2);
    assert.ok(q.dropProbability > previous);
    previous = q.dropProbability;
  }
  while (q.sizePackets() > 0) q.dequeue(t, log.onDrop); // empty the queue between two updates
  poke(t + 30);
  // delay 0 after 2: p = (0.125 (0 - 1) + 1.25 (0 - 2)) / 16; no decay yet (previous delay was 2).
  assert.is(q.queueDelay, 0);
  assert.is(q.dropProbability, previous + (0.125 * -1 + 1.25 * -2) / 16);
  const before = q.dropProbability;
  assert.ok(before >= 0.01 && before < 0.1, `probability ${before} in the /32 band`);
  poke(t + 60);
  // Both delays 0, queue empty: p = 0.125 (0 - 1) / 32, then x 0.98.
  assert.is(q.dropProbability, (before + (0.125 * -1) / 32) * 0.98);
  const again = q.dropProbability;
  poke(t + 90);
  assert.is(q.dropProbability, (again + (0.125 * -1) / 32) * 0.98);
  assert.is(log.drops.filter((d) => !d.startsWith('poke')).length, 0);
});

test('pie: a clock far from the start time does not stall (idle updates are skipped once nothing changes)', () => {
  const q = new PieQueue<string>({ packets: 100, qdelayRef: 15, maxBurst: 150, rng: createRng(1) });
  const log = dropLog();
  const now = 1.7e12; // e.g. a Unix-epoch clock
  q.enqueue(packet('a', 1000, now), now, log.onDrop);
  assert.is(q.dequeue(now + 1, log.onDrop)?.payload, 'a');
  assert.is(q.dropProbability, 0);
  assert.equal(log.drops, []);
});

test.run();
