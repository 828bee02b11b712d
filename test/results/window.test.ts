// The measurement window: the summary covers only the source frames captured
// in it, whatever produced the run; the simulator measures its link use over
// the same window.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ssimToDb } from '../../src/codec-bridge/ssim-db.ts';
import { withSignalDelays, type ObservedFrame } from '../../src/results/display-times.ts';
import type { RunRecord } from '../../src/results/frame-record.ts';
import { jsonText, runToJson } from '../../src/results/json.ts';
import { summarize } from '../../src/results/summary.ts';
import { checkRun } from '../../src/results/validate.ts';
import { framesInWindow, measureWindow } from '../../src/results/window.ts';
import { runSalsifySim } from '../../src/salsify/sim-runner.ts';

/** Frames 0..5 every 10 ms: 0 shown late (at 50), 1 skipped, 2..5 shown soon after capture. */
function run(window?: { fromMs: number; toMs: number }): RunRecord {
  const shown = (i: number, at: number, ssim: number): ObservedFrame =>
    ({ sourceIndex: i, captureMs: i * 10, fate: 'shown', frameNumber: i, sendMs: i * 10 + 1, bytes: 10, firstArrivalMs: i * 10 + 2, lastArrivalMs: i * 10 + 2, shownMs: at, ssim }) as ObservedFrame;
  const observed: ObservedFrame[] = [
    shown(0, 50, 0.5),
    { sourceIndex: 1, captureMs: 10, fate: 'skipped' },
    shown(2, 55, 0.9), shown(3, 35, 0.9), shown(4, 45, 0.9), shown(5, 55, 0.9),
  ];
  return { label: 'w', config: {}, counters: {}, bytesSent: 50, link: window ? { fromMs: window.fromMs, toMs: window.toMs, departedBytes: 1, capacityBytes: 2 } : null, endMs: 100, window, frames: withSignalDelays(observed, 100) };
}

test('the summary covers the frames captured in [from, to) only', () => {
  const all = summarize(checkRun(run()));
  assert.is(all.framesCaptured, 6);
  assert.is(all.framesSkipped, 1);
  // Frames 3 and 4 (captured at 30 and 40): delays 5 and 5, SSIM 0.9.
  const w = summarize(checkRun(run({ fromMs: 30, toMs: 50 })));
  assert.is(w.framesCaptured, 2);
  assert.is(w.framesSkipped, 0);
  assert.equal(w.signalDelayMs, { mean: 5, p5: 5, p95: 5 });
  assert.ok(Math.abs(w.ssimDb.mean - ssimToDb(0.9)) < 1e-9);
  assert.is(w.linkUtilization, 0.5);
  // The window's first frame still counts its wait for a later frame: frame 1 (skipped) until frame 3 shows.
  const early = summarize(checkRun(run({ fromMs: 10, toMs: 20 })));
  assert.equal([early.framesCaptured, early.framesSkipped, early.signalDelayMs.mean], [1, 1, 25]);
  // JSON carries the window.
  assert.equal(JSON.parse(jsonText(runToJson(run({ fromMs: 30, toMs: 50 }), w))).window, { fromMs: 30, toMs: 50 });
});

test('window rules: ordered, within the run; the link measured over it', () => {
  assert.throws(() => measureWindow(10, 0, 100), /measure window/);
  assert.throws(() => measureWindow(-1, 5, 100), /measure window/);
  assert.equal(measureWindow(10, Infinity, 100), { fromMs: 10, toMs: 100 });
  assert.equal(framesInWindow([{ captureMs: 0 }, { captureMs: 5 }, { captureMs: 10 }], { fromMs: 5, toMs: 10 }), [{ captureMs: 5 }]);
  assert.throws(() => checkRun({ ...run({ fromMs: 30, toMs: 50 }), link: { fromMs: 0, toMs: 50, departedBytes: 1, capacityBytes: 2 } }), /link.*window/);
  assert.throws(() => checkRun({ ...run({ fromMs: 50, toMs: 30 }), link: null }), /field "window" must have 0 <= fromMs < toMs/);
});

test('salsify sim: --measure-from/--measure-for select the frames captured in the window, and the link use over it', async () => {
  const base = { downlink: { constantMbps: 4 }, uplink: { constantMbps: 4 }, durationS: 3, drainMs: 500 } as const;
  const whole = await runSalsifySim(base);
  const part = await runSalsifySim({ ...base, measureFromS: 1, measureForS: 1.5 });
  assert.equal(part.window, { fromMs: 1000, toMs: 2500 });
  assert.is(part.summary.framesCaptured, 90);
  assert.is(whole.summary.framesCaptured, 180);
  assert.equal([part.link!.fromMs, part.link!.toMs], [1000, 2500]);
  // The records are the same run's: the window selects, it does not change the run.
  assert.equal(part.frames, whole.frames);
  const inWindow = whole.frames.filter((f) => f.captureMs >= 1000 && f.captureMs < 2500);
  assert.is(part.summary.signalDelayMs.mean, inWindow.reduce((s, f) => s + f.signalDelayMs, 0) / inWindow.length);
  assert.is(part.summary.framesShown, inWindow.filter((f) => f.fate === 'shown').length);
  await runSalsifySim({ ...base, measureFromS: 3 }).then(
    () => assert.unreachable('a window starting at the end of the capture'),
    (e: Error) => assert.match(e.message, /measureFromS must be a number of seconds from 0 to below durationS \(3\)/),
  );
});

test('salsify sim: a window ending before the capture ends the run a drain after it, with the longer run\'s figures', async () => {
  const base = { downlink: { constantMbps: 4 }, uplink: { constantMbps: 4 }, durationS: 30, drainMs: 500, measureFromS: 1, measureForS: 1 } as const;
  const short = await runSalsifySim(base);
  // Captured until the window's end plus the drain (2.5 s: 150 frames), then drained 0.5 s.
  assert.is(short.endMs, 3000);
  assert.is(short.frames.length, 150);
  assert.is(short.counters.sender.captured, 150);
  // The same window of the whole 30 s run: the same frames, the same figures.
  const whole = await runSalsifySim({ ...base, measureForS: 29 });
  assert.is(whole.frames.length, 1800);
  const inWindow = (r: typeof short) => r.frames.filter((f) => f.captureMs >= 1000 && f.captureMs < 2000);
  assert.equal(inWindow(short), inWindow(whole));
  const longWindow = summarize({ ...whole, window: short.window, link: short.link });
  assert.equal(
    { ...short.summary, bytesSent: 0 },
    { ...longWindow, bytesSent: 0 },
  );
});

test('salsify sim: with a window, bytes sent are those sent while its frames were captured (the counters keep the total)', async () => {
  const base = { downlink: { constantMbps: 4 }, uplink: { constantMbps: 4 }, durationS: 3, drainMs: 2000 } as const;
  // Every window below gives the same run (capture until 3 s, simulate until 5 s).
  const sent = async (fromS: number, forS: number) => {
    const r = await runSalsifySim({ ...base, measureFromS: fromS, measureForS: forS });
    assert.is(r.endMs, 5000);
    return { window: r.summary.bytesSent, total: r.counters.sender.bytesSent };
  };
  const thirds = [await sent(0, 1), await sent(1, 1), await sent(2, 1)];
  const all = await sent(0, 3);
  for (const t of thirds) assert.ok(t.window > 0 && t.window < t.total * 0.6, `${t.window} of ${t.total}`);
  assert.is(thirds.reduce((n, t) => n + t.window, 0), all.window);
  assert.ok(all.window <= all.total);
  // Without a window, every byte the sender sent.
  const plain = await runSalsifySim(base);
  assert.is(plain.summary.bytesSent, plain.counters.sender.bytesSent);
  assert.is(plain.counters.sender.bytesSent, all.total);
});

test.run();
