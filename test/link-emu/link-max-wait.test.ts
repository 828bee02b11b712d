// TraceLink's wait bound (maxWaitMs, the RFC 8867 cases' time-bounded
// queue): an arriving packet that would wait longer is dropped at once, and
// counted, logged and reported as a queue drop; the rest wait no longer than
// the bound, even where the link's rate falls behind them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRng } from '../../src/common/random.ts';
import { TraceLink, type LinkEventSink } from '../../src/link-emu/link.ts';
import { createQueue } from '../../src/link-emu/queue-factory.ts';
import { capacityScheduleTrace } from '../../src/link-emu/trace-generators.ts';

function link(maxWaitMs: number | undefined, drops: number[], events?: LinkEventSink): TraceLink<number> {
  // 1.2 Mbit/s (one 1500-byte opportunity every 10 ms) for 1 s, then 0.12 Mbit/s (every 100 ms).
  const trace = capacityScheduleTrace({ steps: [{ atMs: 0, rateMbps: 1.2 }, { atMs: 1000, rateMbps: 0.12 }], durationMs: 10_000, bytesPerOpportunity: 1500 });
  return new TraceLink<number>({ trace, queue: createQueue('droptail', 'packets=10000', createRng(0)) as never, baseTimestamp: 0, mtu: 1500, maxWaitMs, events, onDrop: (p) => drops.push(p.payload) });
}

test('maxWaitMs: arrivals that would wait over the bound are dropped; no departure waits longer, across a fall in rate', () => {
  const drops: number[] = [];
  let logged = 0;
  const events: LinkEventSink = { arrival() {}, opportunity() {}, departure() {}, drop: (_t, packets) => { logged += packets; } };
  const l = link(300, drops, events);
  const waits: number[] = [];
  const depart = (p: { arrival: number }, t: number) => waits.push(t - p.arrival);
  // 1500 bytes every 5 ms (2.4 Mbit/s) for 2 s: twice the first rate, 20 times the second.
  for (let i = 0; i < 400; i++) l.arrive(i * 5, 1500, i, depart);
  l.advanceTo(20_000, depart);
  assert.ok(waits.length > 0 && Math.max(...waits) <= 300, `longest wait ${Math.max(...waits)}`);
  assert.ok(Math.max(...waits) >= 290, 'the queue does fill to the bound');
  assert.is(waits.length + drops.length, 400);
  assert.is(l.counters().drops, drops.length);
  assert.is(logged, drops.length);
  // Without the bound, the same arrivals wait seconds behind the slower rate.
  const unbounded: number[] = [];
  const u = link(undefined, []);
  for (let i = 0; i < 400; i++) u.arrive(i * 5, 1500, i, (p, t) => unbounded.push(t - p.arrival));
  u.advanceTo(100_000, (p, t) => unbounded.push(t - p.arrival));
  assert.ok(Math.max(...unbounded) > 5000, `${Math.max(...unbounded)}`);
});

test('maxWaitMs must be a finite number >= 0', () => {
  assert.throws(() => link(-1, []), /maxWaitMs must be a finite number >= 0, got -1/);
  assert.throws(() => link(Infinity, []), /maxWaitMs/);
});

test.run();
