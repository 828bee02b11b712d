import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { StateStore } from '../../src/salsify/state-store.ts';
import type { CodecState } from '../../src/codec-bridge/types.ts';

// Plain states: the store only looks at ids.
const state = (n: number): CodecState => ({
  id: n.toString(16).padStart(16, '0'), width: 2, height: 2, byteLength: 0, serialize: () => new Uint8Array(0),
});

test('keeps the newest states up to its capacity', () => {
  const s = new StateStore(3);
  for (let i = 1; i <= 5; i++) s.add(state(i));
  assert.is(s.size, 3);
  assert.not.ok(s.has(state(2).id));
  assert.ok(s.has(state(3).id));
  assert.equal(s.idsNewestFirst(), [state(5).id, state(4).id, state(3).id]);
  s.add(state(3)); // refreshed: now the newest
  s.add(state(6));
  assert.equal(s.idsNewestFirst(), [state(6).id, state(3).id, state(5).id]);
  assert.throws(() => new StateStore(0), /capacity/);
});

test('dropOlderThan forgets everything added before the given state', () => {
  const s = new StateStore(10);
  for (let i = 1; i <= 6; i++) s.add(state(i));
  assert.is(s.dropOlderThan(state(4).id), 3);
  assert.equal(s.idsNewestFirst(), [state(6).id, state(5).id, state(4).id]);
  assert.is(s.dropOlderThan(state(99).id), 0);
  assert.is(s.size, 3);
  assert.is(s.get(state(5).id)?.id, state(5).id);
});

test.run();
