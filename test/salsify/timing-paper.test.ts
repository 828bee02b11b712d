// --encode-timing paper: the paper's encoder, calibrated on its runs on the
// unconstrained 12 Mbit/s on-off link (timing-model.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeTimeFunction, modelledEncodeMs, paperEncodeMs, PAPER_ENCODE_MS_720P, referenceFrameCycleMs } from '../../src/salsify/timing-model.ts';
import { runSalsifySim } from '../../src/salsify/sim-runner.ts';

const INTERVAL = 1000 / 59.94;

test('calibration: 83 and 50 ms between displayed frames for Salsify-1 and -2, 35 to 40 ms per 720p encoding', () => {
  const t = paperEncodeMs(1280, 720, 40);
  assert.ok(t >= 35 && t <= 40, `${t}`);
  // Salsify-1: two encodings in a row; Salsify-2: two at once (the longer counts).
  const salsify1 = referenceFrameCycleMs(2 * t, INTERVAL);
  const salsify2 = referenceFrameCycleMs(t, INTERVAL);
  assert.ok(Math.abs(salsify1 - 83) < 1, `salsify-1 ${salsify1}`);
  assert.ok(Math.abs(salsify2 - 50) < 1, `salsify-2 ${salsify2}`);
  // Every value in (33.4, 41.7] gives the same cycles; 33 or 42 would not.
  assert.is.not(referenceFrameCycleMs(2 * 42, INTERVAL), salsify1);
  assert.is.not(referenceFrameCycleMs(33, INTERVAL), salsify2);
  // The paper's p5 frame delays (173, 113 ms) exceed the encode time: the rest is the path and the decode.
  assert.ok(173 > 2 * t && 113 > t);
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
  // Under the reference frame clock (the default), the paper's medians: 83 and 50 ms between displayed frames.
  assert.ok(Math.abs(gaps(one) - 83.4) < 2, `salsify-1 median ${gaps(one)}`);
  assert.ok(Math.abs(gaps(two) - 50) < 2, `salsify-2 median ${gaps(two)}`);
  assert.is(one.config.encodeTiming, 'paper');
  // No frame is shown sooner than its encodings allow.
  assert.ok(one.summary.signalDelayMs.p5 > 2 * PAPER_ENCODE_MS_720P && two.summary.signalDelayMs.p5 > PAPER_ENCODE_MS_720P, `p5 ${one.summary.signalDelayMs.p5}, ${two.summary.signalDelayMs.p5}`);
  assert.ok(one.summary.signalDelayMs.p5 > fast.summary.signalDelayMs.p5, `p5 ${one.summary.signalDelayMs.p5} vs ${fast.summary.signalDelayMs.p5}`);
});

test.run();
