// A trace link that works out each admitted packet's departure when it
// arrives (what lets linkshell hand a departure to its native thread ahead
// of time): the time worked out is the time the packet departs, for random
// arrivals into infinite and droptail queues, traces that repeat and one
// that ends (--once).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRng } from '../../src/common/random.ts';
import { TraceLink } from '../../src/link-emu/link.ts';
import { createQueue } from '../../src/link-emu/queue-factory.ts';

function check(queue: string, args: string, times: number[], once: boolean, seed: number): void {
  const rng = createRng(seed);
  const trace = { source: 'test', times: new Float64Array(times), period: times[times.length - 1] };
  const link = new TraceLink<number>({ trace, queue: createQueue<number>(queue, args, rng.fork('q')), mtu: 1504, once, baseTimestamp: 3, projectDepartures: true });
  const planned = new Map<number, number>();
  const departed = new Map<number, number>();
  const onDeparture = (p: { payload: number }, time: number) => departed.set(p.payload, time);
  let now = 3;
  let admitted = 0;
  for (let id = 0; id < 3000; id++) {
    now += Math.floor(rng.next() * 4);
    const size = 1 + Math.floor(rng.next() * 1504);
    link.arrive(now, size, id, onDeparture, (t) => {
      planned.set(id, t);
      admitted++;
    });
  }
  link.advanceTo(now + 1_000_000, onDeparture);
  assert.ok(admitted > 100, `${admitted} admitted`);
  for (const [id, t] of planned) assert.is(departed.get(id) ?? Infinity, t, `packet ${id}`);
  assert.is(departed.size, [...planned.values()].filter((t) => t < Infinity).length);
}

test('infinite queue: every packet departs when worked out at its arrival', () => {
  for (const seed of [1, 2, 3]) check('infinite', '', [1, 1, 3, 7, 7, 7, 12], false, seed);
});

test('droptail (packets and bytes limits): admitted packets depart when worked out; refused ones are not worked out', () => {
  for (const seed of [4, 5]) check('droptail', 'packets=20', [2, 5, 5, 6, 11], false, seed);
  check('droptail', 'bytes=12000', [1, 2, 4], false, 6);
});

test('a trace that ends (--once): packets that will never leave are worked out as Infinity', () => {
  check('infinite', '', [1, 2, 3, 500], true, 7);
});

test.run();
