// GCC's pre-filtering: arrival-time groups of 5 ms of send time, bursts
// joined, and the inter-group delay variation d(i).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ArrivalGroupFilter, type GroupDelta } from '../../src/cc/gcc/arrival-groups.ts';

const packet = (sendTimeMs: number, arrivalTimeMs: number, sizeBytes = 1200) => ({ sendTimeMs, arrivalTimeMs, sizeBytes });

test('packets sent within 5 ms of a group\'s first form one group; the next packet completes it', () => {
  const f = new ArrivalGroupFilter();
  // Sent every 2 ms: groups {0,2,4}, {6,8,10}, {12,14,16}, ...; no queue: arrival = send + 50.
  const deltas: Array<GroupDelta | undefined> = [];
  for (let s = 0; s <= 18; s += 2) deltas.push(f.add(packet(s, s + 50)));
  // The first delta comes when the third group opens (at send time 12), between groups 1 and 2.
  assert.equal(deltas.map((d) => d !== undefined), [false, false, false, false, false, false, true, false, false, true]);
  assert.equal(deltas[6], { sendDeltaMs: 6, arrivalDeltaMs: 6, delayVariationMs: 0, arrivalTimeMs: 60, packets: 3, sizeBytes: 3600 });
  assert.equal(f.currentGroup(), { firstSendMs: 18, lastSendMs: 18, firstArrivalMs: 68, lastArrivalMs: 68, sizeBytes: 1200, packets: 1 });
});

test('a queue building up gives a positive delay variation of the growth per group', () => {
  const f = new ArrivalGroupFilter();
  // Each packet waits 1 ms longer than the one before: 3 packets a group, so each group's last arrival is 3 ms later than without a queue.
  const deltas: GroupDelta[] = [];
  let k = 0;
  for (let s = 0; s <= 60; s += 2, k++) {
    const d = f.add(packet(s, s + 50 + k));
    if (d) deltas.push(d);
  }
  assert.ok(deltas.length >= 8);
  for (const d of deltas) {
    assert.is(d.sendDeltaMs, 6);
    assert.is(d.arrivalDeltaMs, 9);
    assert.is(d.delayVariationMs, 3);
  }
  // Draining: each packet 0.5 ms earlier than the previous, relative to its send time.
  const g = new ArrivalGroupFilter();
  const drain: GroupDelta[] = [];
  k = 0;
  for (let s = 0; s <= 60; s += 2, k++) {
    const d = g.add(packet(s, s + 100 - 0.5 * k));
    if (d) drain.push(d);
  }
  assert.ok(drain.every((d) => d.delayVariationMs === -1.5), JSON.stringify(drain.map((d) => d.delayVariationMs)));
});

test('a burst released at once (arrivals < 5 ms apart, arriving closer than they were sent) joins the current group', () => {
  const f = new ArrivalGroupFilter();
  f.add(packet(0, 50));
  // Sent 10 ms apart (a new group each, by send time) but held by a stall and released 1 ms apart.
  assert.is(f.add(packet(10, 100)), undefined, 'opens group 2 (50 ms after the last arrival: not a burst)');
  assert.is(f.add(packet(20, 101)), undefined);
  assert.is(f.add(packet(30, 102)), undefined);
  assert.is(f.currentGroup()?.packets, 3, 'the released packets are one group');
  // Sent 1 ms after and arriving 1 ms after: it did not catch up (variation 0), so it opens group 3,
  // completing group 2: its delta against group 1 counts the stall once.
  const d = f.add(packet(31, 103));
  assert.equal(d, { sendDeltaMs: 30, arrivalDeltaMs: 52, delayVariationMs: 22, arrivalTimeMs: 102, packets: 3, sizeBytes: 3600 });
  assert.is(f.currentGroup()?.packets, 1);
});

test('packets sent before the current group began (reordered in sending) are ignored; groups arriving out of order give no delta', () => {
  const f = new ArrivalGroupFilter();
  f.add(packet(10, 60));
  assert.is(f.add(packet(5, 58)), undefined);
  assert.is(f.reordered, 1);
  const g = new ArrivalGroupFilter();
  g.add(packet(0, 100));
  g.add(packet(10, 90)); // second group arrives before the first
  assert.is(g.add(packet(20, 120)), undefined);
  assert.ok(g.add(packet(30, 130)) !== undefined, 'later groups in order give deltas again');
});

test.run();
