// The paper's display: a decoded frame is shown on the display's next refresh.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { nextRefreshMs, PAPER_REFRESH_HZ } from '../../src/results/display-times.ts';
import { parseSimArgs } from '../../src/cli/salsify.ts';
import { runSalsifySim } from '../../src/salsify/sim-runner.ts';

test('the next refresh at or after the decode, on the 59.94 Hz grid', () => {
  const period = 1000 / PAPER_REFRESH_HZ;
  assert.ok(Math.abs(period - 16.6833) < 1e-3);
  assert.is(nextRefreshMs(0, PAPER_REFRESH_HZ), 0);
  assert.ok(Math.abs(nextRefreshMs(1, PAPER_REFRESH_HZ) - period) < 1e-9);
  assert.ok(Math.abs(nextRefreshMs(period, PAPER_REFRESH_HZ) - period) < 1e-9, 'a refresh instant itself');
  assert.ok(Math.abs(nextRefreshMs(100, 60) - 100) < 1e-9);
  assert.throws(() => nextRefreshMs(5, 0), /Hz > 0/);
});

test('the simulator shows each frame on a refresh, never before its decode, and later on average', async () => {
  const base = { downlink: { constantMbps: 8 }, uplink: { constantMbps: 8 }, delayMs: 20, durationS: 4, measureFromS: 1 } as const;
  const atDecode = await runSalsifySim(base);
  const onRefresh = await runSalsifySim({ ...base, displayRefreshHz: PAPER_REFRESH_HZ });
  const period = 1000 / PAPER_REFRESH_HZ;
  const decoded = new Map(atDecode.frames.filter((f) => f.shownMs !== undefined).map((f) => [f.sourceIndex, f.shownMs!]));
  let compared = 0;
  for (const f of onRefresh.frames) {
    if (f.shownMs === undefined) continue;
    const k = f.shownMs / period;
    assert.ok(Math.abs(k - Math.round(k)) < 1e-6, `frame ${f.sourceIndex} shown at ${f.shownMs}, not a refresh`);
    const d = decoded.get(f.sourceIndex);
    if (d !== undefined) {
      assert.ok(f.shownMs >= d - 1e-9 && f.shownMs < d + period, `frame ${f.sourceIndex}: decoded ${d}, shown ${f.shownMs}`);
      compared++;
    }
  }
  assert.ok(compared > 100);
  assert.ok(onRefresh.summary.signalDelayMs.mean > atDecode.summary.signalDelayMs.mean);
  const bad = await runSalsifySim({ ...base, displayRefreshHz: 0 }).then(() => undefined, (e: Error) => e);
  assert.match(bad?.message ?? '', /displayRefreshHz must be a number of Hz/);
});

test('salsify sim --display-refresh HZ', () => {
  assert.is(parseSimArgs(['--preset', 'on-off', '--display-refresh', '59.94']).configs[0]!.displayRefreshHz, 59.94);
  assert.is(parseSimArgs(['--preset', 'on-off']).configs[0]!.displayRefreshHz, undefined);
  assert.throws(() => parseSimArgs(['--preset', 'on-off', '--display-refresh', '0']), /--display-refresh/);
});

test.run();
