// --encode-timing paper: the paper's encoder, calibrated on its runs on the
// unconstrained 12 Mbit/s on-off link (timing-model.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeTimeFunction, modelledEncodeMs, paperEncodeMs, PAPER_ENCODE_MS_720P, referenceFrameCycleMs, singleBufferFrameCycleMs } from '../../src/salsify/timing-model.ts';
import { resolveSimConfig, runSalsifySim, type SalsifySimConfig } from '../../src/salsify/sim-runner.ts';

const pick = (c: SalsifySimConfig) => ({ frameClock: c.frameClock, displayRefreshHz: c.displayRefreshHz });

const INTERVAL = 1000 / 59.94;

test("calibration: 83 and 50 ms between displayed frames for Salsify-1 and -2 under the paper's camera; 25.03 < T <= 33.4 ms, 26 chosen", () => {
  const t = paperEncodeMs(1280, 720, 40);
  assert.is(t, 26);
  // Salsify-1: two encodings in a row; Salsify-2: two at once (the longer counts). The single-buffer camera adds a frame interval, rounded up.
  const salsify1 = singleBufferFrameCycleMs(2 * t, INTERVAL);
  const salsify2 = singleBufferFrameCycleMs(t, INTERVAL);
  assert.ok(Math.abs(salsify1 - 83.4) < 0.1, `salsify-1 ${salsify1}`);
  assert.ok(Math.abs(salsify2 - 50.05) < 0.1, `salsify-2 ${salsify2}`);
  // The range that gives those cycles: 25 or 34 would not.
  assert.is.not(singleBufferFrameCycleMs(2 * 25, INTERVAL), salsify1);
  assert.is.not(singleBufferFrameCycleMs(34, INTERVAL), salsify2);
  assert.is(singleBufferFrameCycleMs(2 * 33.3, INTERVAL), salsify1);
  // Under the next-frame clock the same cycles needed 33.4 < T <= 41.7 (the 38 ms used before the camera was modelled).
  assert.is(referenceFrameCycleMs(2 * 38, INTERVAL), salsify1);
  assert.is(referenceFrameCycleMs(38, INTERVAL), salsify2);
});

test('paper timing: flat in the quantizer, scaled by the pixel count, key frames 1.5 times; libvpx remains the default', () => {
  assert.is(paperEncodeMs(1280, 720, 3), PAPER_ENCODE_MS_720P);
  assert.is(paperEncodeMs(1280, 720, 127), PAPER_ENCODE_MS_720P);
  assert.is(paperEncodeMs(640, 360, 60), PAPER_ENCODE_MS_720P / 4);
  assert.is(paperEncodeMs(1280, 720, 60, true), 1.5 * PAPER_ENCODE_MS_720P);
  assert.is(encodeTimeFunction('paper'), paperEncodeMs);
  assert.is(encodeTimeFunction('libvpx'), modelledEncodeMs);
  assert.ok(modelledEncodeMs(1280, 720, 60) < 10);
  assert.throws(() => encodeTimeFunction('x264' as never), /unknown encode timing "x264"/);
  assert.throws(() => paperEncodeMs(1280, 720, 128), /quantizer/);
});

test("the paper's pipeline comes with paper timing, field by field overridable; its frames are one cycle old and shown on a 59.94 Hz refresh", async () => {
  const base = { downlink: { constantMbps: 12 }, uplink: { constantMbps: 12 }, encodeTiming: 'paper' } as const;
  assert.equal(pick(resolveSimConfig(base)), { frameClock: 'single-buffer', displayRefreshHz: 59.94 });
  assert.equal(pick(resolveSimConfig({ ...base, frameClock: 'next-frame' })), { frameClock: 'next-frame', displayRefreshHz: 59.94 });
  assert.equal(pick(resolveSimConfig({ ...base, displayRefreshHz: 120 })), { frameClock: 'single-buffer', displayRefreshHz: 120 });
  assert.equal(pick(resolveSimConfig({ ...base, encodeTiming: 'libvpx' })), { frameClock: undefined, displayRefreshHz: undefined });
  const run = await runSalsifySim({ ...base, scheme: 'salsify-2', durationS: 3, drainMs: 500 });
  const interval = 1000 / 60; // the synthetic scene's rate
  const events = run.senderEvents.flatMap((e) => (e.kind === 'sent' ? [e] : []));
  assert.ok(events[0]!.keyFrame && events.slice(1).every((e) => !e.keyFrame));
  // The key frame (1.5 x 26 ms) makes a longer cycle; the first inter frame was captured when it began.
  // (The last one, in the buffer when the 3 s source ended, is encoded at once: sender.ts's end-of-source rule.)
  const [key, first, ...sent] = events.slice(0, -1);
  assert.ok(Math.abs(first!.time - first!.encodeMs - first!.sourceIndex * interval - 4 * interval) < 1e-6);
  assert.ok(Math.abs(key!.time - key!.encodeMs - first!.sourceIndex * interval) < 1e-6);
  assert.ok(sent.length > 40, `${sent.length} frames`);
  for (const e of sent) {
    const encodeStart = e.time - e.encodeMs;
    // Salsify-2: 26 ms of encodings, a cycle of 3 intervals; the frame encoded is the one captured a cycle before.
    assert.ok(Math.abs(encodeStart - e.sourceIndex * interval - 3 * interval) < 1e-6, `frame ${e.sourceIndex} encoded from ${encodeStart}`);
  }
  for (const f of run.frames) {
    if (f.shownMs === undefined) continue;
    const refreshes = f.shownMs / (1000 / 59.94);
    assert.ok(Math.abs(refreshes - Math.round(refreshes)) < 1e-6, `frame ${f.sourceIndex} shown at ${f.shownMs}, not on a refresh`);
  }
});

test('the simulator charges the paper timing: salsify-1 two encodings in a row, salsify-2 at once', async () => {
  const run = (scheme: 'salsify-1' | 'salsify-2', encodeTiming?: 'paper') =>
    runSalsifySim({ scheme, encodeTiming, downlink: { constantMbps: 12 }, uplink: { constantMbps: 12 }, durationS: 3, measureFromS: 1, drainMs: 500 });
  const sentEncodeMs = (r: Awaited<ReturnType<typeof run>>) => r.senderEvents.flatMap((e) => (e.kind === 'sent' && !e.keyFrame ? [e.encodeMs] : []));
  const one = await run('salsify-1', 'paper');
  const two = await run('salsify-2', 'paper');
  const fast = await run('salsify-1');
  assert.equal([...new Set(sentEncodeMs(one))], [2 * PAPER_ENCODE_MS_720P]);
  assert.equal([...new Set(sentEncodeMs(two))], [PAPER_ENCODE_MS_720P]);
  assert.ok(Math.max(...sentEncodeMs(fast)) < 20);
  // The median time between displayed frames.
  const gaps = (r: Awaited<ReturnType<typeof run>>) => {
    const shown = r.frames.filter((f) => f.fate === 'shown' && f.captureMs >= 1000).map((f) => f.shownMs!);
    const g = shown.slice(1).map((t, i) => t - shown[i]!).sort((a, b) => a - b);
    return g[g.length >> 1]!;
  };
  // Under the paper's camera (which paper timing brings), the paper's medians: 83 and 50 ms between displayed frames.
  assert.ok(Math.abs(gaps(one) - 83.4) < 2, `salsify-1 median ${gaps(one)}`);
  assert.ok(Math.abs(gaps(two) - 50) < 2, `salsify-2 median ${gaps(two)}`);
  assert.is(one.config.encodeTiming, 'paper');
  assert.is(one.config.frameClock, 'single-buffer');
  assert.is(one.config.displayRefreshHz, 59.94);
  assert.is(fast.config.frameClock, undefined, 'libvpx timing keeps the next-frame clock and shows frames when decoded');
  assert.is(fast.config.displayRefreshHz, undefined);
  // No frame is shown sooner than its encodings allow.
  assert.ok(one.summary.signalDelayMs.p5 > 2 * PAPER_ENCODE_MS_720P && two.summary.signalDelayMs.p5 > PAPER_ENCODE_MS_720P, `p5 ${one.summary.signalDelayMs.p5}, ${two.summary.signalDelayMs.p5}`);
  assert.ok(one.summary.signalDelayMs.p5 > fast.summary.signalDelayMs.p5, `p5 ${one.summary.signalDelayMs.p5} vs ${fast.summary.signalDelayMs.p5}`);
});

test.run();
