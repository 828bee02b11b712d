// Salsify's producer of result records: every source frame's fate from the
// sender's events and what reached the receiver, and its signal delay.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FrameArrivals } from '../../src/salsify/frame-arrivals.ts';
import { salsifyFrameRecords, senderView } from '../../src/salsify/metrics.ts';
import type { SenderEvent } from '../../src/salsify/sender.ts';
import { summarize } from '../../src/results/summary.ts';
import { checkRun } from '../../src/results/validate.ts';

const sentEvent = (time: number, sourceIndex: number, frameNumber: number): SenderEvent => ({
  kind: 'sent', time, sourceIndex, frameNumber, bytes: 100, fragments: 1, quantizer: 40, keyFrame: frameNumber === 0, choice: 'better',
  targetBytes: 200, sourceStateId: '0', targetStateId: '1', encodeMs: 1,
} as SenderEvent);

test('each fate named: shown, never shown, lost, skipped by choice, superseded', () => {
  // Source frames 0..6 captured every 10 ms. 0 shown; 1 superseded (never encoded); 2 skipped;
  // 3 sent, arrived whole, never shown; 4 sent, half of it arrived; 5 sent, nothing arrived; 6 shown.
  const events: SenderEvent[] = [];
  for (let i = 0; i < 7; i++) events.push({ kind: 'capture', time: i * 10, sourceIndex: i });
  events.push(sentEvent(5, 0, 0));
  events.push({ kind: 'skip', time: 25, sourceIndex: 2, targetBytes: 1, betterBytes: 5, worseBytes: 4, sizes: [5, 4] });
  events.push(sentEvent(35, 3, 1), sentEvent(45, 4, 2), sentEvent(55, 5, 3), sentEvent(65, 6, 4));
  const arrivals = new FrameArrivals();
  arrivals.fragment({ frameNumber: 0, fragmentIndex: 0, fragmentCount: 1 }, 20);
  arrivals.fragment({ frameNumber: 1, fragmentIndex: 1, fragmentCount: 2 }, 40);
  arrivals.fragment({ frameNumber: 1, fragmentIndex: 1, fragmentCount: 2 }, 41); // a duplicate counts once
  assert.is(arrivals.get(1)?.lastMs, undefined);
  arrivals.fragment({ frameNumber: 1, fragmentIndex: 0, fragmentCount: 2 }, 42);
  arrivals.fragment({ frameNumber: 2, fragmentIndex: 0, fragmentCount: 2 }, 50);
  arrivals.fragment({ frameNumber: 4, fragmentIndex: 0, fragmentCount: 1 }, 70);
  const shown = new Map([[0, { shownMs: 30, ssim: 0.9 }], [4, { shownMs: 80, ssim: 0.95 }]]);
  const frames = salsifyFrameRecords(senderView(events), { arrivals: arrivals.toMap(), shown }, 200);
  assert.equal(frames.map((f) => f.fate), ['shown', 'superseded', 'skipped', 'never-shown', 'lost', 'lost', 'shown']);
  assert.equal(frames.map((f) => f.signalDelayMs), [30, 70, 60, 50, 40, 30, 20]);
  assert.equal([frames[3].firstArrivalMs, frames[3].lastArrivalMs], [40, 42]);
  assert.equal([frames[4].firstArrivalMs, frames[4].lastArrivalMs], [50, undefined]);
  assert.is(frames[3].sendMs, 35);
  assert.is(frames[1].frameNumber, undefined);
  assert.equal(arrivals.incomplete(), [[2, { firstMs: 50, lastMs: undefined, latestMs: 50, fragments: 1, fragmentCount: 2 }]]);
  const s = summarize(checkRun({ label: 'x', config: {}, counters: {}, bytesSent: 500, link: null, endMs: 200, frames }));
  assert.equal(
    [s.framesCaptured, s.framesSent, s.framesShown, s.framesNeverShown, s.framesLost, s.framesSkipped, s.framesSuperseded],
    [7, 5, 2, 1, 2, 1, 1],
  );
});

test('a frame shown with none of its datagrams recorded as arrived is refused; one shown concealed from some of them is shown, without a last arrival', () => {
  const events: SenderEvent[] = [{ kind: 'capture', time: 0, sourceIndex: 0 }, sentEvent(1, 0, 0)];
  assert.throws(
    () => salsifyFrameRecords(senderView(events), { arrivals: new Map(), shown: new Map([[0, { shownMs: 5 }]]) }, 10),
    /frame 0 \(source frame 0\) was shown, but none of its datagrams is recorded as arrived/,
  );
  const partial = new Map([[0, { firstMs: 2, latestMs: 3, fragments: 1, fragmentCount: 3 }]]);
  const [f] = salsifyFrameRecords(senderView(events), { arrivals: partial, shown: new Map([[0, { shownMs: 5, ssim: 0.9 }]]) }, 10);
  assert.is(f.fate, 'shown');
  assert.is(f.firstArrivalMs, 2);
  assert.is(f.lastArrivalMs, undefined);
  assert.is(f.displayMs, 5);
});

test.run();
