// The simulator-only look into a link's future (TraceLink.deliveryTime, the
// oracle's view) and loss at delivery in the one path model (path.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRng } from '../../src/common/random.ts';
import { TraceLink } from '../../src/link-emu/link.ts';
import { pathStages } from '../../src/link-emu/path.ts';
import { createQueue } from '../../src/link-emu/queue-factory.ts';
import type { QueuedPacket } from '../../src/link-emu/queue.ts';

const everyMs = { source: 'every ms', times: new Float64Array([1]), period: 1 };
const sparse = { source: 'sparse', times: new Float64Array([10, 20, 50]), period: 50 };

function link(trace = everyMs, mtu = 1000): TraceLink<number> {
  return new TraceLink<number>({ trace, queue: createQueue('droptail', 'packets=1000', createRng(0)) as never, baseTimestamp: 0, mtu });
}

test('deliveryTime: the opportunity that carries the last byte, after the arrival, byte-granular', () => {
  const l = link();
  // 2500 bytes arriving at 10.5: opportunities at 11, 12, 13 carry 1000 + 1000 + 500.
  assert.is(l.deliveryTime(2500, 10.5), 13);
  // An arrival at 10 exactly misses the opportunity at 10 (as in mm-link).
  assert.is(l.deliveryTime(1000, 10), 11);
  const s = link(sparse);
  assert.is(s.deliveryTime(1500, 0), 20);
  // The trace repeats: after 50 comes 60, 70, 100.
  assert.is(s.deliveryTime(2500, 45), 70);
});

test('deliveryTime counts the backlog and earlier arrivals ahead, and changes nothing', () => {
  const l = link();
  const departures: number[] = [];
  const record = (_p: QueuedPacket<number>, t: number) => departures.push(t);
  l.arrive(0, 1000, 1, record);
  l.arrive(0, 1000, 2, record);
  assert.is(l.backlogBytes(), 2000);
  // 2000 queued ahead at time 0: opportunities 1 and 2; ours at 3 and 4.
  assert.is(l.deliveryTime(1500, 0.5), 4);
  // An arrival at 2.5 still in the delay line is ahead too (opportunities 3, 4), ours at 5, 6.
  assert.is(l.deliveryTime(1500, 2.7, [{ atMs: 2.5, bytes: 2000 }]), 6);
  // Arrivals after ours are not ahead of it.
  assert.is(l.deliveryTime(1500, 0.5, [{ atMs: 3, bytes: 5000 }]), 4);
  assert.is(l.backlogBytes(), 2000);
  l.advanceTo(10, record);
  assert.equal(departures, [1, 2]);
  assert.throws(() => l.deliveryTime(0, 1), /bytes > 0/);
});

test('deliveryTime on a once trace that ends first is Infinity', () => {
  const l = new TraceLink<number>({ trace: sparse, queue: createQueue('droptail', 'packets=10', createRng(0)) as never, baseTimestamp: 0, mtu: 1000, once: true });
  assert.is(l.deliveryTime(5000, 0), Infinity);
});

test('path model: loss at delivery sits right after the link in the direction of travel', () => {
  const spec = { trace: everyMs, delayMs: 20, loss: 0.05, onOff: { meanOnMs: 100, meanOffMs: 10 } };
  assert.equal(pathStages('downlink', { ...spec, lossAt: 'delivery' }).map((s) => s.kind), ['delay', 'onoff', 'link', 'loss']);
  assert.equal(pathStages('uplink', { ...spec, lossAt: 'delivery' }).map((s) => s.kind), ['link', 'loss', 'onoff', 'delay']);
  assert.equal(pathStages('downlink', { ...spec, lossAt: 'entry' }).map((s) => s.kind), ['delay', 'loss', 'onoff', 'link']);
  assert.equal(pathStages('downlink', { trace: everyMs, lossAt: 'delivery' }).map((s) => s.kind), ['link']);
});

test.run();
