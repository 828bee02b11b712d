// The oracle: a simulator-only scheme that knows the link's future. On a
// constant link it must fill the link with no queueing.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { oracle } from '../../src/salsify/schemes/oracle.ts';
import { createScheme, SCHEME_NAMES, SIM_SCHEME_NAMES } from '../../src/salsify/schemes/registry.ts';
import { runSalsifySim } from '../../src/salsify/sim-runner.ts';

test('simulator-only: no live sender can build it', () => {
  assert.ok(SIM_SCHEME_NAMES.includes('oracle'));
  assert.not.ok((SCHEME_NAMES as readonly string[]).includes('oracle'));
  assert.throws(() => createScheme('oracle', { initialQuantizer: 64, betterStep: -17, worseStep: 23, maxSkips: 3, frameIntervalMs: 16.7, maxPayload: 1400 }), /unknown scheme "oracle"/);
  assert.throws(() => oracle({ frameIntervalMs: 16.7, maxSkips: 3 }), /simulator-only/);
});

test('on a constant link it fills the link with no queueing', async () => {
  const rateMbps = 8;
  const r = await runSalsifySim({
    scheme: 'oracle', downlink: { constantMbps: rateMbps }, uplink: { constantMbps: rateMbps }, delayMs: 20,
    durationS: 6, measureFromS: 1, drainMs: 500,
  });
  const s = r.summary;
  // Fills the link: the quantizer steps leave a little of each interval unused.
  assert.ok(s.linkUtilization > 0.85, `link use ${s.linkUtilization}`);
  assert.is(s.framesShown, s.framesCaptured);
  const interval = 1000 / 60;
  // No queueing: every frame has fully arrived within one frame interval (+ the 20 ms of propagation) of its
  // sending, to 3 ms (the oracle plans with the pacing gap of the moment it plans; the pacer's may differ by then).
  for (const f of r.frames.filter((x) => x.captureMs >= 1000)) {
    assert.ok(f.lastArrivalMs! - f.sendMs! <= 20 + interval + 3, `frame ${f.sourceIndex}: sent ${f.sendMs}, complete ${f.lastArrivalMs}`);
  }
  // ... so the delay is the encode, the propagation and at most one interval of transmission (and the decode).
  assert.ok(s.signalDelayMs.p95 < 20 + interval + 10, `p95 ${s.signalDelayMs.p95}`);
  // A real sender on the same link queues: salsify-1's delay is higher.
  const salsify = await runSalsifySim({ scheme: 'salsify-1', downlink: { constantMbps: rateMbps }, uplink: { constantMbps: rateMbps }, delayMs: 20, durationS: 6, measureFromS: 1, drainMs: 500 });
  assert.ok(salsify.summary.signalDelayMs.mean > s.signalDelayMs.mean, `${salsify.summary.signalDelayMs.mean} vs ${s.signalDelayMs.mean}`);
});

test('when not even quantizer 127 fits it skips (but not more than 3 frames in a row)', async () => {
  const r = await runSalsifySim({ scheme: 'oracle', downlink: { constantMbps: 0.3 }, uplink: { constantMbps: 1 }, durationS: 3, drainMs: 2000 });
  assert.ok(r.summary.framesSkipped > 0);
  let run = 0;
  for (const f of r.frames) {
    run = f.fate === 'skipped' ? run + 1 : 0;
    assert.ok(run <= 3, `frame ${f.sourceIndex}: ${run} skipped in a row`);
  }
});

test.run();
