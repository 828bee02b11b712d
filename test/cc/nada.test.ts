// NADA's published equilibrium (RFC 8698 Section 4.3, Eq. 5-7): in steady
// state x_offset = 0, so the congestion signal (here the queueing delay)
// settles at PRIO x XREF x RMAX / r_ref: the delay it keeps is set by RMAX.
// On a constant 1 Mbit/s link the rate settles just below the capacity,
// smoothly, and the queueing delay where the equation puts it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { NADA_DEFAULTS, nadaController } from '../../src/cc/nada/nada.ts';
import { quantile, runMediaFlow, scheduleTrace } from './media-flow-harness.ts';

for (const maxBitrate of [1_500_000, 10_000_000]) {
  test(`RMAX ${maxBitrate / 1e6} Mbit/s on 1 Mbit/s: the rate within 5 % of the link, steady to 2 %, the queueing delay at XREF x RMAX / rate (+0 to 10 ms)`, async () => {
    const run = await runMediaFlow(nadaController, { trace: scheduleTrace([[0, 1_000_000]], 60_000), durationMs: 60_000, flow: { minBitrate: 150_000, initialBitrate: 150_000, maxBitrate } });
    const targets = run.targets.filter(([ms]) => ms >= 30_000).map(([, r]) => r);
    const mean = targets.reduce((a, b) => a + b, 0) / targets.length;
    assert.ok(run.receivedBitrate(30_000, 60_000) > 950_000, `${run.receivedBitrate(30_000, 60_000)} bit/s`);
    assert.ok(Math.max(...targets) - Math.min(...targets) < 0.02 * mean, `targets ${Math.min(...targets)} to ${Math.max(...targets)}`);
    // The 15-sample minimum filter reads the queue's low points: the median packet waits a few ms more.
    const predictedMs = (NADA_DEFAULTS.prio * NADA_DEFAULTS.xrefMs * maxBitrate) / mean;
    const medianMs = quantile(run.queueingDelays(30_000, 60_000), 0.5);
    assert.ok(medianMs >= predictedMs && medianMs <= predictedMs + 10, `median ${medianMs} ms, predicted ${predictedMs.toFixed(1)} ms`);
  });
}

test.run();
