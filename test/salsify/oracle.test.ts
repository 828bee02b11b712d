// The oracle: a simulator-only scheme that knows the link's future, and a
// bound on every scheme's signal delay (delay-first).
// test-runner: slow
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { oracle } from '../../src/salsify/schemes/oracle.ts';
import { createScheme, SCHEME_NAMES, SIM_SCHEME_NAMES } from '../../src/salsify/schemes/registry.ts';
import { runSalsifySim } from '../../src/salsify/sim-runner.ts';

process.env.LINKSHELL_TRACES ??= new URL('../../../shared/traces/', import.meta.url).pathname;

test('simulator-only: no live sender can build it', () => {
  assert.ok(SIM_SCHEME_NAMES.includes('oracle'));
  assert.not.ok((SCHEME_NAMES as readonly string[]).includes('oracle'));
  assert.throws(() => createScheme('oracle', { initialQuantizer: 64, betterStep: -17, worseStep: 23, maxSkips: 3, frameIntervalMs: 16.7, maxPayload: 1400 }), /unknown scheme "oracle"/);
  assert.throws(() => oracle({ frameIntervalMs: 16.7 }), /simulator-only/);
});

test('on a constant link it never queues', async () => {
  const rateMbps = 8;
  const r = await runSalsifySim({
    scheme: 'oracle', downlink: { constantMbps: rateMbps }, uplink: { constantMbps: rateMbps }, delayMs: 20,
    durationS: 6, measureFromS: 1, drainMs: 500,
  });
  const s = r.summary;
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

test('when not even quantizer 127 fits it skips only while the next frame would arrive as soon; on a steady link it still sends', async () => {
  const r = await runSalsifySim({ scheme: 'oracle', downlink: { constantMbps: 0.3 }, uplink: { constantMbps: 1 }, durationS: 3, drainMs: 2000 });
  assert.ok(r.summary.framesSkipped > 0);
  assert.ok(r.summary.framesShown > 0);
  // Never a standing queue of its own frames: each frame sent has arrived within two encode cycles (38 ms at most here) and an interval of its sending, plus its own transmission.
  for (const f of r.frames.filter((x) => x.fate === 'shown' && !x.keyFrame)) {
    const ownMs = (f.bytes! * 8) / 300;
    assert.ok(f.lastArrivalMs! - f.sendMs! <= ownMs + 2 * 50 + 17, `frame ${f.sourceIndex}: ${f.lastArrivalMs! - f.sendMs!} ms for ${f.bytes} bytes`);
  }
});

// The bound: no scheme has a lower mean or p95 signal delay than the oracle on
// the same path, on traces with fades and outages (a 40 s window from the
// trace's start: tmobile-umts's first outage of more than 3 s is in it), with
// the paper's encode timing and the libvpx one.
const BOUND_PRESETS = ['tmobile-umts', 'att-lte', 'verizon-lte'] as const;
for (const preset of BOUND_PRESETS) {
  test(`no scheme beats the oracle's mean or p95 signal delay on ${preset}`, async () => {
    const window = { measureFromS: 2, measureForS: 40 };
    for (const encodeTiming of ['paper', 'libvpx'] as const) {
      if (encodeTiming === 'libvpx' && preset !== 'tmobile-umts') continue;
      const run = (scheme: string) => runSalsifySim({ preset, scheme: scheme as 'oracle', encodeTiming, ...window });
      const bound = (await run('oracle')).summary.signalDelayMs;
      for (const scheme of SIM_SCHEME_NAMES.filter((s) => s !== 'oracle')) {
        const d = (await run(scheme)).summary.signalDelayMs;
        assert.ok(bound.mean <= d.mean, `${preset} ${encodeTiming}: ${scheme}'s mean ${d.mean.toFixed(1)} ms below the oracle's ${bound.mean.toFixed(1)}`);
        assert.ok(bound.p95 <= d.p95, `${preset} ${encodeTiming}: ${scheme}'s p95 ${d.p95.toFixed(1)} ms below the oracle's ${bound.p95.toFixed(1)}`);
      }
    }
  });
}

test.run();
