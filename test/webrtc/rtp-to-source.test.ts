// An RTP timestamp names its source frame through the capture clock's offset, taken as the median
// over every shown frame: a first shown frame whose callback reported the next frame's RTP timestamp
// (a loaded renderer) used to shift every frame by one, so that a frame's send time came before its
// capture (the intermittent record-check failure "frame 0: sendMs ... before the capture").
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { browserLabel, rtpToSource } from '../../src/webrtc/bench.ts';
import type { SourceFrame } from '../../src/webrtc/measure.ts';

const interval = 1000 / 30;
const base = 4_000_000_000; // near the 32-bit wrap
const rtpOf = (captureMs: number) => (base + Math.round(captureMs * 90)) % 2 ** 32;
const frames: SourceFrame[] = Array.from({ length: 20 }, (_, i) => {
  const captureMs = 1000 + i * interval;
  return { sourceIndex: i, fileFrame: i, captureMs, shownMs: captureMs + 80, displayMs: captureMs + 80, signalDelayMs: 80, rtp: rtpOf(captureMs) };
});

test('every RTP timestamp names its own frame, across the 32-bit wrap', () => {
  const sourceOf = rtpToSource(frames, 30);
  for (const f of frames) assert.is(sourceOf(f.rtp!)?.sourceIndex, f.sourceIndex);
  assert.is(sourceOf(rtpOf(1000 + 2.5 * interval)), null, 'half-way between two frames: none');
});

test('a first shown frame carrying the next frame\'s RTP timestamp does not shift the others', () => {
  const misread = frames.map((f, i) => (i === 0 ? { ...f, rtp: frames[1].rtp } : f));
  const sourceOf = rtpToSource(misread, 30);
  for (const f of frames.slice(1)) assert.is(sourceOf(f.rtp!)?.sourceIndex, f.sourceIndex);
});

test("Firefox: RTP times placed up to 20 ms late name the wrong frame by time alone; the decoded barcodes name the right one", () => {
  // Firefox stamps a canvas frame at its next refresh: an RTP time up to a refresh interval after the capture.
  const late = [0, 20, 3, 18, 1, 16, 0, 19, 2, 17, 0, 20, 4, 15, 0, 18, 1, 19, 0, 20];
  const rtpLate = (f: SourceFrame) => rtpOf(f.captureMs + late[f.sourceIndex]!);
  const shown = frames.map((f) => ({ ...f, rtp: rtpLate(f) }));
  const byTime = rtpToSource(shown, 30);
  assert.ok(frames.some((f) => byTime(rtpLate(f))?.sourceIndex !== f.sourceIndex), 'time alone misnames some');
  const barcodes = new Map(frames.map((f) => [rtpLate(f), f.fileFrame]));
  const byBarcode = rtpToSource(shown, 30, barcodes);
  for (const f of frames) assert.is(byBarcode(rtpLate(f))?.sourceIndex, f.sourceIndex);
  // A timestamp whose picture was not decoded (a frame lost on the way) is matched by time, within half a frame interval.
  const undecoded = rtpToSource(shown, 30, new Map());
  assert.is(undecoded(rtpOf(frames[6]!.captureMs + 5))?.sourceIndex, 6);
});

test('browser labels: Chromium and Firefox by their major version', () => {
  assert.is(browserLabel('Chrome/156.0.8078.114'), 'Chromium 156');
  assert.is(browserLabel('HeadlessChrome/156.0.8078.114'), 'Chromium 156');
  assert.is(browserLabel('firefox/153.8.0'), 'Firefox 153');
  assert.is(browserLabel('something else'), 'something else');
});

test('without a shown frame nothing is named', () => {
  assert.is(rtpToSource(frames.map(({ shownMs: _, ...f }) => f), 30)(frames[0].rtp!), null);
});

test.run();
