// The scheme interface: the registry, today's three schemes as units, and
// what the sender does with a scheme's answers (modelled encode time, trial
// encodings, the state to encode from, a bad choice).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SCHEMES } from '../../src/salsify/sender.ts';
import { createScheme, isSchemeName, SCHEME_NAMES } from '../../src/salsify/schemes/registry.ts';
import type { ChoiceView, Encoded, SchemeParams, SchemeView, SenderScheme } from '../../src/salsify/schemes/scheme.ts';
import { adjustConventionalQuantizer } from '../../src/salsify/quantizer.ts';
import { createSyntheticScene } from '../../src/codec-bridge/video/synthetic-scene.ts';
import { FPS, harness } from './sender-harness.ts';

const PARAMS: SchemeParams = { initialQuantizer: 64, betterStep: -17, worseStep: 23, maxSkips: 3, frameIntervalMs: 100, maxPayload: 1000 };

function view(over: Partial<ChoiceView> = {}): ChoiceView {
  return {
    now: 0, startMs: 0, lastQuantizer: 64, interArrivalMs: undefined, skipsInARow: 0, keyFrame: false, target: 0,
    targetBytes: () => 0, trialBytes: () => Promise.reject(new Error('no trial here')), ...over,
  };
}
const enc = (...bytes: number[]): Encoded[] => bytes.map((b, i) => ({ quantizer: i, bytes: b }));

test('the registry names the schemes, and the sender\'s SCHEMES is that list', () => {
  assert.equal([...SCHEME_NAMES], ['salsify-1', 'salsify-2', 'conventional']);
  assert.is(SCHEMES, SCHEME_NAMES);
  for (const name of SCHEME_NAMES) {
    assert.ok(isSchemeName(name));
    assert.is(createScheme(name, PARAMS).name, name);
  }
  assert.not.ok(isSchemeName('toString'));
  assert.throws(() => createScheme('webrtc', PARAMS), /unknown scheme "webrtc" \(expected one of "salsify-1", "salsify-2", "conventional"\)/);
  // A fresh scheme each time: schemes hold per-run state.
  assert.is.not(createScheme('conventional', PARAMS), createScheme('conventional', PARAMS));
});

test('salsify-1 and salsify-2: the same two quantizers, serial against parallel, the same choice', async () => {
  const one = createScheme('salsify-1', PARAMS);
  const two = createScheme('salsify-2', PARAMS);
  assert.equal(await one.plan(view({ lastQuantizer: 40 })), { quantizers: [23, 63], timing: 'serial' });
  assert.equal(await two.plan(view({ lastQuantizer: 40 })), { quantizers: [23, 63], timing: 'parallel' });
  assert.equal((await one.plan(view({ lastQuantizer: 10 }))).quantizers, [0, 33], 'clamped to 0..127');
  assert.equal((await one.plan(view({ lastQuantizer: 120 }))).quantizers, [103, 127]);
  for (const s of [one, two]) {
    assert.equal(s.choose(enc(900, 400), view({ target: 1000 })), { index: 0, label: 'better' });
    assert.equal(s.choose(enc(1200, 400), view({ target: 1000 })), { index: 1, label: 'worse' });
    assert.is(s.choose(enc(1200, 1100), view({ target: 1000, skipsInARow: 2 })), 'skip');
    assert.equal(s.choose(enc(1200, 1100), view({ target: 1000, skipsInARow: 3 })), { index: 1, label: 'worse' }, 'never more than maxSkips in a row');
  }
});

test('conventional: one encoding, never a skip, the quantizer adjusted once a second from the frames sent', async () => {
  const s = createScheme('conventional', PARAMS);
  const q = async (v: SchemeView) => {
    s.adjust!(v);
    const plan = await s.plan(v);
    assert.is(plan.quantizers.length, 1);
    return plan.quantizers[0];
  };
  assert.is(await q(view({ now: 0, startMs: 0 })), 64);
  for (let i = 0; i < 10; i++) s.onSent!({ time: i * 100, bytes: 4000, quantizer: 64, keyFrame: i === 0 });
  assert.is(await q(view({ now: 999, interArrivalMs: 10 })), 64, 'not yet a second');
  // Budget per frame: 1000 bytes / 10 ms x 100 ms = 10,000 bytes; mean frame 4000 bytes: a finer quantizer.
  const expected = adjustConventionalQuantizer(64, 4000, 10_000);
  assert.is(expected, 48);
  assert.is(await q(view({ now: 1000, interArrivalMs: 10 })), expected);
  // A new window: no frame sent in it, no estimate change, so no change a second later.
  assert.is(await q(view({ now: 2000, interArrivalMs: 10 })), expected);
  for (let i = 0; i < 5; i++) s.onSent!({ time: 2000 + i * 100, bytes: 40_000, quantizer: expected, keyFrame: false });
  assert.is(await q(view({ now: 2500, interArrivalMs: 10 })), expected);
  assert.is(await q(view({ now: 3000, interArrivalMs: 10 })), adjustConventionalQuantizer(expected, 40_000, 10_000));
  assert.equal(s.choose(enc(1e9), view({ target: 1 })), { index: 0, label: 'only' });
});

/** A scheme made here: fixed quantizers and timing, always the first encoding. */
function fixed(quantizers: number[], timing: 'serial' | 'parallel', extra: Partial<SenderScheme> = {}): SenderScheme {
  return { name: 'test', plan: () => ({ quantizers, timing }), choose: () => ({ index: 0, label: 'only' }), ...extra };
}
const encodeMs = (_w: number, _h: number, q: number, key: boolean) => q / 10 + (key ? 10 : 0);

test('the sender charges a plan\'s encodings their sum (serial) or the longest (parallel), and counts them', async () => {
  for (const [timing, ms] of [['serial', 1 + 2 + 4], ['parallel', 4]] as const) {
    const h = harness({ scheme: fixed([10, 20, 40], timing), encodeMs, frames: 3 });
    h.sender.start();
    await h.at(1000);
    const sent = h.sent();
    assert.is(sent.length, 3);
    assert.is(sent[0].encodeMs, ms + (timing === 'serial' ? 30 : 10), 'the first is a key frame');
    for (const e of sent.slice(1)) assert.is(e.encodeMs, ms);
    sent.forEach((e, i) => assert.ok(Math.abs(e.time - (i * 100 + e.encodeMs)) < 1e-9, `${timing}: frame ${i} sent once its encodings are done`));
    assert.is(h.sender.counters.encoded, 9);
    assert.is(sent[1].quantizer, 10);
  }
});

test('trial encodings are not charged as encoder time and match the real encoding', async () => {
  const trials: number[][] = [];
  const searching: SenderScheme = {
    name: 'search',
    plan: async (v) => {
      const sizes = [];
      for (const q of [100, 50, 25]) sizes.push(await v.trialBytes(q));
      trials.push(sizes);
      return { quantizers: [50], timing: 'serial' };
    },
    choose: () => ({ index: 0, label: 'only' }),
  };
  const h = harness({ scheme: searching, encodeMs, frames: 2, source: createSyntheticScene({ width: 640, height: 360, fps: FPS }) });
  h.sender.start();
  await h.at(1000);
  const sent = h.sent();
  assert.is(sent.length, 2);
  assert.ok(Math.abs(sent[1].time - (100 + 5)) < 1e-9, `only the one encoding is charged (sent at ${sent[1].time})`);
  assert.is(trials.length, 2);
  sent.forEach((e, i) => assert.is(trials[i][1], e.bytes, 'the trial at 50 is the encoding at 50'));
  assert.ok(trials[1][0] < trials[1][1] && trials[1][1] < trials[1][2], `finer quantizers, larger frames: ${JSON.stringify(trials)}`);
  assert.is(h.sender.counters.encoded, 2, 'trials are not counted as encodings');
});

test('a scheme can choose the state to encode from, and the view says whether it makes a key frame', async () => {
  const keyFlags: boolean[] = [];
  const h = harness({
    scheme: fixed([30], 'serial', {
      sourceState: (c) => c.initial,
      plan: (v) => {
        keyFlags.push(v.keyFrame);
        return { quantizers: [30], timing: 'serial' };
      },
    }),
    frames: 3,
  });
  h.sender.start();
  await h.at(1000);
  assert.equal(h.sent().map((e) => [e.keyFrame, e.sourceStateId]), [[true, h.initialId], [true, h.initialId], [true, h.initialId]]);
  assert.equal(keyFlags, [true, true, true]);
  assert.is(h.sender.counters.keyFrames, 3);
});

test('a scheme that plans nothing or chooses an encoding it did not plan fails the sender, with the scheme named', async () => {
  const none = harness({ scheme: { name: 'empty', plan: () => ({ quantizers: [], timing: 'serial' }), choose: () => 'skip' }, frames: 1 });
  none.sender.start();
  await none.at(500);
  assert.match(String(none.sender.failure), /scheme empty planned no encoding/);
  const bad = harness({ scheme: fixed([30], 'serial', { choose: () => ({ index: 1, label: 'worse' }) }), frames: 1 });
  bad.sender.start();
  await bad.at(500);
  assert.match(String(bad.sender.failure), /scheme test chose encoding 1 of 1/);
  assert.is(bad.sent().length, 0);
});

test.run();
