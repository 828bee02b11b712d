// The late-frame account: of the frames with more than 1 s of signal delay,
// how many were shown late; the shown frames' p95; the longest stall.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Fate } from '../../src/results/frame-record.ts';
import { lateFrames } from '../../src/results/late-frames.ts';

const f = (i: number, fate: Fate, delay: number) => ({ captureMs: i * 100, fate, signalDelayMs: delay });

test('counts frames over 1 s shown late against never shown, and the longest run of unshown frames', () => {
  const frames = [
    f(0, 'shown', 50), f(1, 'lost', 1500), f(2, 'never-shown', 1400), f(3, 'shown', 1300), f(4, 'shown', 80),
    f(5, 'skipped', 900), f(6, 'shown', 60),
  ];
  const a = lateFrames(frames, null);
  assert.is(a.framesOver1s, 3);
  assert.is(a.framesOver1sShown, 1);
  // Frames 1 and 2 unshown: from 100 ms to frame 3's capture at 300 ms.
  assert.is(a.longestUnshownMs, 200);
  assert.ok(a.shownDelayP95Ms > 1000 && a.shownDelayP95Ms <= 1300);
});

test('a stall to the end of the window counts to the last frame plus one interval; the window applies', () => {
  const frames = [f(0, 'shown', 50), f(1, 'shown', 50), f(2, 'lost', 3000), f(3, 'lost', 3000), f(4, 'lost', 3000), f(5, 'shown', 10)];
  const a = lateFrames(frames, { fromMs: 100, toMs: 500 });
  assert.is(a.framesOver1s, 3);
  assert.is(a.framesOver1sShown, 0);
  assert.is(a.longestUnshownMs, 300);
  const none = lateFrames([f(0, 'lost', 2000), f(1, 'lost', 2000)], null);
  assert.ok(Number.isNaN(none.shownDelayP95Ms));
  assert.is(none.longestUnshownMs, 200);
});

test.run();
