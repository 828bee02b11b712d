// Frames Chromium presented without a requestVideoFrameCallback callback
// (src/webrtc/presented-frames.ts): told from presentedFrames' steps and the
// frames received between the two callbacks' RTP timestamps, with their
// display time bounded; counted apart when they cannot be told. On hand-made
// sequences and on the callbacks a loaded call recorded.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { presentedWithoutCallbacks, type DisplayCallback } from '../../src/webrtc/presented-frames.ts';
import { shownFrames } from '../../src/webrtc/bench.ts';
import type { QualityResult } from '../../src/webrtc/quality.ts';

const cb = (presented: number, rtp: number, presentationMs: number): DisplayCallback => ({ presented, rtp, presentationMs });

test('no step above 1: nothing presented without a callback', () => {
  const r = presentedWithoutCallbacks([cb(1, 0, 10), cb(2, 3000, 43), cb(3, 6000, 76)], [0, 3000, 6000]);
  assert.equal(r, { attributed: [], unattributed: 0, gaps: 0 });
});

test('a step of 3 with exactly two frames received between: both presented, shown after the first callback and by the second', () => {
  const r = presentedWithoutCallbacks([cb(5, 1000, 100), cb(8, 10000, 200)], [10000, 4000, 1000, 7000, 4000]);
  assert.equal(r.attributed, [
    { rtp: 4000, afterMs: 100, byMs: 200 },
    { rtp: 7000, afterMs: 100, byMs: 200 },
  ]);
  assert.is(r.unattributed, 0);
  assert.is(r.gaps, 1);
});

test('more (or fewer) frames received between than presented: which were presented is not known, counted apart', () => {
  assert.equal(presentedWithoutCallbacks([cb(5, 1000, 100), cb(7, 10000, 200)], [1000, 4000, 7000, 10000]), { attributed: [], unattributed: 1, gaps: 1 });
  assert.equal(presentedWithoutCallbacks([cb(5, 1000, 100), cb(8, 10000, 200)], [1000, 4000, 10000]), { attributed: [], unattributed: 2, gaps: 1 });
});

test('RTP timestamps that wrap past 2^32, callbacks out of order, and callbacks without presentedFrames', () => {
  const top = 2 ** 32 - 3000;
  const r = presentedWithoutCallbacks([cb(3, 3000, 300), { rtp: 9, presentationMs: 250 }, cb(1, top, 100)], [top, 0, 3000]);
  assert.equal(r.attributed, [{ rtp: 0, afterMs: 100, byMs: 300 }]);
});

interface Recorded {
  callbacks: DisplayCallback[];
  received: number[];
}

test('the callbacks of a loaded call: every step above 1 is either told or counted apart, and a told frame lies between its callbacks', () => {
  const recorded = JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures/rvfc-loaded-call.json'), 'utf8')) as Recorded;
  const r = presentedWithoutCallbacks(recorded.callbacks, recorded.received);
  const steps = recorded.callbacks.slice(1).map((c, i) => c.presented! - recorded.callbacks[i]!.presented! - 1).filter((k) => k > 0);
  assert.is(r.gaps, steps.length);
  assert.is(r.attributed.length + r.unattributed, steps.reduce((a, b) => a + b, 0));
  assert.is(r.gaps, 7, 'the recorded call missed 7 callbacks');
  // Six steps had exactly one frame received between their callbacks; one (presentedFrames 11 to 13) had two for one presentation.
  assert.is(r.attributed.length, 6);
  assert.is(r.unattributed, 1);
  const called = new Set(recorded.callbacks.map((c) => c.rtp));
  for (const p of r.attributed) {
    assert.not.ok(called.has(p.rtp), `${p.rtp} had a callback`);
    assert.ok(recorded.received.includes(p.rtp));
    assert.ok(p.afterMs < p.byMs);
  }
});

test('shown frames: a told frame joins the callbacks\' at its upper bound with the barcode of our decoding; one our decoding cannot read is counted apart', () => {
  const data = { receiverOriginMs: 1000, receiver: [{ n: 1, presentationMs: 100, rtp: 1000, width: 640, height: 360, presented: 5 }] };
  const presented = { attributed: [{ rtp: 4000, afterMs: 100, byMs: 200 }, { rtp: 7000, afterMs: 100, byMs: 200 }], unattributed: 1, gaps: 2 };
  const frame = (rawRtp: number, fileFrame: number | null) => ({ rtp: rawRtp, rawRtp, key: false, bytes: 1, width: 320, height: 180, fileFrame });
  const quality: QualityResult = { frames: [frame(4000, 2), frame(7000, null)], undecodable: 0, notDecoded: 0 };
  const { shown, unattributed } = shownFrames(data, presented, quality);
  assert.equal(shown[1], { n: 2, shownMs: 1200, rtp: 4000, width: 320, height: 180 });
  assert.is(shown.length, 2);
  assert.is(unattributed, 2);
});

test.run();
