// salsify webrtc --measure-from / --measure-for: the summary covers the source frames captured in a
// window counted from the media's first packet (the paper's window: from 62 s, for 640 s), the link
// use and bytes sent over the same window. The window arithmetic, the getStats byte counter read
// between two times, the options' refusals, and a short Salsify endpoint run (model codec, 5 s,
// window [1, 3) s), bounded at 3 minutes.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseWebrtcArgs } from '../../src/cli/webrtc-command.ts';
import { runSalsifyEndpoint } from '../../src/webrtc/salsify-endpoint.ts';
import { summaryWindow } from '../../src/webrtc/scenario.ts';
import type { StatsSnapshot } from '../../src/webrtc/call.ts';
import { bytesSentBetween } from '../../src/webrtc/stats-summary.ts';

const dir = mkdtempSync(join(tmpdir(), 'webrtc-window-test-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

test('the window counts from the media\'s first packet; none asked for is none; an empty one is refused', () => {
  const scenario = { preset: null, traceStartS: 0 };
  assert.is(summaryWindow(scenario, 250, 10_000), undefined);
  assert.equal(summaryWindow({ ...scenario, measureFromS: 2, measureForS: 3 }, 250, 10_000), { fromMs: 2250, toMs: 5250 });
  assert.equal(summaryWindow({ ...scenario, measureFromS: 2 }, 250, 10_000), { fromMs: 2250, toMs: 10_000 });
  // Media before the run's zero (a held trace clock starts at the first RTP packet, the call's zero is its connection): never before 0.
  assert.equal(summaryWindow({ ...scenario, measureFromS: 0, measureForS: 1 }, -300, 10_000), { fromMs: 0, toMs: 700 });
  assert.throws(() => summaryWindow({ ...scenario, measureFromS: 20 }, 0, 10_000), /window .* is empty/);
});

test('bytes sent between two times: the cumulative counter interpolated between snapshots, held outside them', () => {
  const snap = (t: number, bytes: number): StatsSnapshot => ({ t, report: [{ type: 'outbound-rtp', kind: 'video', bytesSent: bytes, headerBytesSent: 0 }] }) as unknown as StatsSnapshot;
  const series = [snap(1000, 0), snap(1500, 1000), snap(2000, 3000)];
  assert.is(bytesSentBetween(series, 1250, 1750), 1500);
  assert.is(bytesSentBetween(series, 0, 5000), 3000);
  assert.is(bytesSentBetween([], 0, 1), undefined);
});

test('--measure-from at or beyond --duration is refused, naming both', () => {
  const base = ['--endpoint', 'salsify-1', '--downlink', 'const:2', '--uplink', 'const:2', '--video', 'synthetic', '--duration', '5', '--out', join(dir, 'refused')];
  assert.throws(() => parseWebrtcArgs([...base, '--measure-from', '5']), /--measure-from must be below --duration \(5 s\), got 5 s/);
  assert.throws(() => parseWebrtcArgs([...base, '--measure-for', '0']), /--measure-for/);
  const ok = parseWebrtcArgs([...base, '--measure-from', '1', '--measure-for', '2']);
  assert.equal(ok.salsify!.scenario, { preset: null, traceStartS: 0, measureFromS: 1, measureForS: 2 });
});

test('a Salsify endpoint run summarises the window: its frames, its link use, its bytes', async () => {
  const out = join(dir, 'out');
  const args = parseWebrtcArgs(['--endpoint', 'salsify-1', '--salsify-codec', 'model', '--downlink', 'const:4', '--uplink', 'const:4', '--video', 'synthetic', '--size', '320x180', '--fps', '30', '--duration', '5', '--measure-from', '1', '--measure-for', '2', '--out', out]);
  const controller = new AbortController();
  const bound = setTimeout(() => controller.abort(), 180_000);
  try {
    await runSalsifyEndpoint({ ...args.salsify!, signal: controller.signal, log: () => {} });
  } finally {
    clearTimeout(bound);
  }
  const json = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
  const w = json.window as { fromMs: number; toMs: number };
  assert.is(w.toMs - w.fromMs, 2000);
  assert.ok(w.fromMs >= 1000 && w.fromMs < 1300, `window from ${w.fromMs} ms (1 s after the first send)`);
  // 2 s at 30 fps: 60 source frames (one more or less at the edges).
  assert.ok(Math.abs(json.summary.framesCaptured - 60) <= 1, `frames in the window: ${json.summary.framesCaptured}`);
  assert.is(json.link.fromMs, w.fromMs);
  assert.ok(json.summary.linkUtilization > 0 && json.summary.linkUtilization <= 1, `link use ${json.summary.linkUtilization}`);
  assert.ok(json.bytesSent > 0, `bytes ${json.bytesSent}`);
  assert.ok(json.notes.some((n: string) => n.includes('over the window')), JSON.stringify(json.notes));
});

test.run();
