// The scheme interface: the registry, the schemes as units, and
// what the sender does with a scheme's answers (modelled encode time, trial
// encodings, the state to encode from, a bad choice).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SCHEMES } from '../../src/salsify/sender.ts';
import { createScheme, isSchemeName, SCHEME_NAMES } from '../../src/salsify/schemes/registry.ts';
import type { ChoiceView, Encoded, SchemeParams, SchemeView, SenderScheme } from '../../src/salsify/schemes/scheme.ts';
import { conventionalUpdate } from '../../src/salsify/schemes/conventional-1s.ts';
import { searchQuantizer } from '../../src/salsify/schemes/salsify-targetsize.ts';
import { createSyntheticScene } from '../../src/codec-bridge/video/synthetic-scene.ts';
import { FPS, harness } from './sender-harness.ts';

const PARAMS: SchemeParams = { initialQuantizer: 64, betterStep: -17, worseStep: 23, maxSkips: 3, frameIntervalMs: 100, maxPayload: 1000 };

function view(over: Partial<ChoiceView> = {}): ChoiceView {
  return {
    now: 0, startMs: 0, lastQuantizer: 64, sourceQuantizer: 64, interArrivalUs: undefined, skipsInARow: 0, keyFrame: false, target: 0,
    targetBytes: () => 0, trialBytes: () => Promise.reject(new Error('no trial here')), ...over,
  };
}
const enc = (...bytes: number[]): Encoded[] => bytes.map((b, i) => ({ quantizer: i, bytes: b }));

const ALL = ['salsify-1', 'salsify-2', 'conventional-1s', 'salsify-nograce', 'salsify-targetsize', 'salsify-4', 'webrtc-like'];

test('the registry names the schemes, and the sender\'s SCHEMES is that list', () => {
  assert.equal([...SCHEME_NAMES], ALL);
  assert.is(SCHEMES, SCHEME_NAMES);
  for (const name of SCHEME_NAMES) {
    assert.ok(isSchemeName(name));
    assert.is(createScheme(name, PARAMS).name, name);
  }
  assert.not.ok(isSchemeName('toString'));
  assert.not.ok(isSchemeName('conventional'), 'replaced by conventional-1s');
  assert.throws(() => createScheme('webrtc', PARAMS), new RegExp(`unknown scheme "webrtc" \\(expected one of ${ALL.map((n) => `"${n}"`).join(', ')}\\)`));
  // A fresh scheme each time: schemes hold per-run state.
  assert.is.not(createScheme('conventional-1s', PARAMS), createScheme('conventional-1s', PARAMS));
});

test('salsify-1, salsify-2: the same two quantizers (-17, +23, clamped to 3..127), serial or parallel, the same choice', async () => {
  const one = createScheme('salsify-1', PARAMS);
  const two = createScheme('salsify-2', PARAMS);
  assert.equal(await one.plan(view({ lastQuantizer: 40 })), { quantizers: [23, 63], timing: 'serial' });
  assert.equal(await two.plan(view({ lastQuantizer: 40 })), { quantizers: [23, 63], timing: 'parallel' });
  assert.equal((await one.plan(view({ lastQuantizer: 10 }))).quantizers, [3, 33], 'clamped to 3..127');
  assert.equal((await one.plan(view({ lastQuantizer: 120 }))).quantizers, [103, 127]);
  assert.is(one.grace, true);
  assert.is(two.grace, true);
  for (const s of [one, two]) {
    assert.equal(s.choose(enc(900, 400), view({ target: 1000 })), { index: 0, label: 'better' });
    assert.equal(s.choose(enc(1200, 400), view({ target: 1000 })), { index: 1, label: 'worse' });
    assert.equal(s.choose(enc(1200, 400), view({ target: Infinity })), { index: 0, label: 'better' }, 'unlimited before the first acknowledgement');
    assert.is(s.choose(enc(1200, 1100), view({ target: 1000, skipsInARow: 2 })), 'skip');
    assert.equal(s.choose(enc(1200, 1100), view({ target: 1000, skipsInARow: 3 })), { index: 1, label: 'worse' }, 'never more than maxSkips in a row');
  }
});

test('salsify-4: four encodings at once, +0, -23, +17 from the last quantizer and 127; the largest that fits', async () => {
  const s = createScheme('salsify-4', PARAMS);
  assert.equal(await s.plan(view({ lastQuantizer: 40 })), { quantizers: [40, 17, 57, 127], timing: 'parallel' });
  assert.equal((await s.plan(view({ lastQuantizer: 10 }))).quantizers, [10, 3, 27, 127]);
  assert.equal((await s.plan(view({ lastQuantizer: 120 }))).quantizers, [120, 97, 127, 127]);
  // sizes in plan order: q+0, q-23, q+17, 127
  assert.equal(s.choose(enc(5000, 9000, 2500, 300), view({ target: 10_000 })), { index: 1, label: 'q-23' });
  assert.equal(s.choose(enc(5000, 9000, 2500, 300), view({ target: 6000 })), { index: 0, label: 'q+0' });
  assert.equal(s.choose(enc(5000, 9000, 2500, 300), view({ target: 3000 })), { index: 2, label: 'q+17' });
  assert.equal(s.choose(enc(5000, 9000, 2500, 300), view({ target: 300 })), { index: 3, label: 'q=127' });
  assert.is(s.choose(enc(5000, 9000, 2500, 300), view({ target: 299, skipsInARow: 2 })), 'skip');
  assert.equal(s.choose(enc(5000, 9000, 2500, 300), view({ target: 299, skipsInARow: 3 })), { index: 3, label: 'q=127' });
});

test('salsify-nograce: Salsify-4 with a grace period of 0, as the paper ran it (salsify-results: salsify-4-nograce)', async () => {
  const nograce = createScheme('salsify-nograce', PARAMS);
  const four = createScheme('salsify-4', PARAMS);
  assert.equal(await nograce.plan(view({ lastQuantizer: 40 })), { quantizers: [40, 17, 57, 127], timing: 'parallel' });
  assert.is(nograce.grace, false, 'salsify-nograce sends a grace period of 0');
  assert.is(four.grace, true);
  assert.equal(nograce.choose(enc(5000, 9000, 2500, 300), view({ target: 3000 })), { index: 2, label: 'q+17' });
});

test('conventional-1s: the reference\'s update rule, step by step', () => {
  // No estimate yet: rate 0 against an ewma of 0 (0 / 0): the change is 1.5, as std::min/max make of a NaN.
  let u = conventionalUpdate({ quantizer: 32, rateEwma: 0 }, undefined);
  assert.equal(u, { quantizer: 9, rateEwma: 0, rate: 0, change: 1.5 }); // trunc(32 / 2.5^(4/3) = 9.43)
  // 500 us between packets: rate = 1e6 x 1400 / 500 = 2,800,000 B/s; ewma 0: change +inf, clamped to 1.5.
  u = conventionalUpdate({ quantizer: 32, rateEwma: 0 }, 500);
  assert.equal(u, { quantizer: 9, rateEwma: 2_240_000, rate: 2_800_000, change: 1.5 });
  // The same rate again: change (2.8M - 2.24M) / 2.24M = 0.25; q = trunc(9 / 1.25^(4/3) = 6.68) = 6.
  u = conventionalUpdate(u, 500);
  assert.equal(u, { quantizer: 6, rateEwma: 2_688_000, rate: 2_800_000, change: 0.25 });
  // 2000 us: rate 700,000; change (700000 - 2688000) / 2688000 = -0.7396; q = trunc(6 / 0.2604^(4/3) = 36.09) = 36.
  u = conventionalUpdate(u, 2000);
  assert.is(u.quantizer, 36);
  assert.is(u.rateEwma, 1_097_600); // trunc(0.8 x 700000 + 0.2 x 2688000)
  assert.ok(Math.abs(u.change - (700_000 - 2_688_000) / 2_688_000) < 1e-12);
  // A collapse (change below -0.99): 127.
  assert.is(conventionalUpdate(u, 1e9).quantizer, 127);
  // Floored at 3 and capped at 127 like every derived quantizer; the change capped at 1.5 and floored at -1.
  assert.is(conventionalUpdate({ quantizer: 3, rateEwma: 1000 }, 1).quantizer, 3);
  assert.is(conventionalUpdate({ quantizer: 100, rateEwma: 1_400_000 }, 1).change, 1.5);
  assert.is(conventionalUpdate({ quantizer: 100, rateEwma: 1_400_000 }, 1900).quantizer, 127, 'change -0.47: 100 / 0.53^(4/3) > 127');
  // An estimate of 0 us counts as 1 us.
  assert.equal(conventionalUpdate({ quantizer: 32, rateEwma: 1_400_000_000 }, 0), conventionalUpdate({ quantizer: 32, rateEwma: 1_400_000_000 }, 1));
});

test('conventional-1s: q 32 until a second after start, then updated at the first frame a second or more after the last update; one encoding, never a skip', async () => {
  const s = createScheme('conventional-1s', PARAMS);
  const q = async (v: SchemeView) => {
    s.adjust!(v);
    const plan = await s.plan(v);
    assert.is(plan.quantizers.length, 1);
    return plan.quantizers[0];
  };
  assert.is(await q(view({ now: 0, startMs: 0, interArrivalUs: 500 })), 32);
  assert.is(await q(view({ now: 999, interArrivalUs: 500 })), 32, 'not yet a second');
  assert.is(await q(view({ now: 1003, interArrivalUs: 500 })), 9);
  assert.is(await q(view({ now: 2002, interArrivalUs: 500 })), 9, 'a second after the update at 1003, not after 1000');
  assert.is(await q(view({ now: 2003, interArrivalUs: 500 })), 6);
  assert.is(await q(view({ now: 3100, interArrivalUs: 2000 })), 36);
  assert.equal(s.choose(enc(1e9), view({ target: 1 })), { index: 0, label: 'only' });
  assert.equal(s.choose(enc(1e9), view({ target: 0, skipsInARow: 0 })), { index: 0, label: 'only' });
});

test('salsify-targetsize: the reference\'s binary search within the last quantizer +-16', async () => {
  const tried: number[] = [];
  const sizeAt = async (q: number) => {
    tried.push(q);
    return Math.floor(100_000 / q);
  };
  // last 40: range 24..56; the best quantizer whose size fits 2000 bytes is 50 (100000 / 50).
  assert.is(await searchQuantizer(40, 2000, sizeAt), 50);
  assert.equal(tried, [40, 48, 52, 50, 49]);
  tried.length = 0;
  assert.is(await searchQuantizer(40, 1000, sizeAt), 56, 'none fits: the worst of the range');
  assert.is(await searchQuantizer(40, 1e9, sizeAt), 24, 'all fit: the best of the range');
  assert.is(await searchQuantizer(10, 1e9, sizeAt), 4, 'the range starts at 4 when last - 16 < 4');
  assert.is(await searchQuantizer(20, 1e9, sizeAt), 4);
  assert.is(await searchQuantizer(21, 1e9, sizeAt), 5);
  assert.is(await searchQuantizer(120, 0, sizeAt), 127, 'the range ends at 127');
  assert.is(await searchQuantizer(undefined, 0, sizeAt), 127, 'no last quantizer (a key frame\'s encoder): the whole range 4..127');
  assert.is(await searchQuantizer(undefined, 1e9, sizeAt), 4);
});

test('salsify-targetsize: the target before encoding, one encoding; 32 before any acknowledgement, 127 at a target of 0; skip what does not fit', async () => {
  const s = createScheme('salsify-targetsize', PARAMS);
  const trials = (q: number) => Promise.resolve(Math.floor(100_000 / q));
  assert.equal(await s.plan(view({ targetBytes: () => Infinity, trialBytes: trials })), { quantizers: [32], timing: 'serial', searchMs: 0 });
  assert.equal(s.choose([{ quantizer: 32, bytes: 1e6 }], view({ target: 10 })), { index: 0, label: 'only' }, 'the target before encoding counts, not the one after');
  // The search is on the reference's estimate, 2.1 x the real size: 2000 bytes are 4200 estimated, found at 105 (real: 50).
  assert.equal(await s.plan(view({ sourceQuantizer: undefined, targetBytes: () => 4200, trialBytes: trials })), { quantizers: [50], timing: 'serial', searchMs: 0 });
  assert.equal((await s.plan(view({ sourceQuantizer: undefined, targetBytes: () => 2000, trialBytes: trials }))).quantizers, [105]);
  // Within 40 +- 16 nothing fits by estimate: the range's top, 56; each of the 6 estimates charged its sample encode.
  assert.equal(await s.plan(view({ lastQuantizer: 40, sourceQuantizer: 40, targetBytes: () => 2000, trialBytes: trials, sampleEncodeMs: () => 1.5 })), { quantizers: [56], timing: 'serial', searchMs: 9 });
  assert.equal(s.choose([{ quantizer: 50, bytes: 2000 }], view({ target: 0 })), { index: 0, label: 'only' });
  assert.is(s.choose([{ quantizer: 50, bytes: 2001 }], view({ target: 1e9, skipsInARow: 5 })), 'skip', 'too large for the target before encoding: skipped, however many were skipped');
  assert.equal(await s.plan(view({ lastQuantizer: 40, targetBytes: () => 0, trialBytes: () => Promise.reject(new Error('no search at 0')) })), { quantizers: [127], timing: 'serial', searchMs: 0 });
  assert.is(s.choose([{ quantizer: 127, bytes: 200 }], view({ skipsInARow: 2 })), 'skip');
  assert.equal(s.choose([{ quantizer: 127, bytes: 200 }], view({ skipsInARow: 3 })), { index: 0, label: 'only' }, 'the fail-small after 3 skips');
});

/** A scheme made here: fixed quantizers and timing, always the first encoding. */
function fixed(quantizers: number[], timing: 'serial' | 'parallel', extra: Partial<SenderScheme> = {}): SenderScheme {
  return { name: 'test', plan: () => ({ quantizers, timing }), choose: () => ({ index: 0, label: 'only' }), ...extra };
}
const encodeMs = (_w: number, _h: number, q: number, key: boolean) => q / 10 + (key ? 10 : 0);

test('the sender charges a plan\'s search time before its encodings', async () => {
  const h = harness({ scheme: fixed([10], 'serial', { plan: () => ({ quantizers: [10], timing: 'serial', searchMs: 5 }) }), encodeMs, frames: 2 });
  h.sender.start();
  await h.at(1000);
  assert.is(h.sent()[1]!.encodeMs, 1 + 5);
});

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
