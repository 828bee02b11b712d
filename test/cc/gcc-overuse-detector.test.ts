// The over-use detector and its adaptive threshold.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OveruseDetector } from '../../src/cc/gcc/overuse-detector.ts';

test('over-use only after the estimate has exceeded the threshold for more than 10 ms and two estimates, while not falling', () => {
  const d = new OveruseDetector();
  assert.is(d.threshold(), 12.5);
  // Estimates 5 ms apart: 2.5 ms (half the first), 7.5, 12.5 ms over.
  assert.is(d.detect(20, 5, 0), 'normal');
  assert.is(d.detect(20, 5, 5), 'normal');
  assert.is(d.detect(20, 5, 10), 'overuse');
  // A falling estimate holds the signal back even when long enough.
  const f = new OveruseDetector();
  f.detect(30, 5, 0);
  f.detect(29, 5, 5);
  assert.is(f.detect(28, 5, 10), 'normal');
  assert.is(f.detect(28, 5, 15), 'overuse', 'not falling any more');
  // A 20 ms gap: 10 ms counted for the first, then 30 ms: over at the second.
  const g = new OveruseDetector();
  assert.is(g.detect(20, 20, 0), 'normal');
  assert.is(g.detect(20, 20, 20), 'overuse');
});

test('under the threshold: normal; below minus the threshold: under-use; a dip resets the hold', () => {
  const d = new OveruseDetector();
  assert.is(d.detect(-20, 5, 0), 'underuse');
  assert.is(d.detect(0, 5, 5), 'normal');
  d.detect(20, 5, 10);
  d.detect(20, 5, 15);
  assert.is(d.detect(5, 5, 20), 'normal');
  assert.is(d.detect(20, 5, 25), 'normal', 'the hold starts again');
  assert.is(d.detect(20, 5, 30), 'normal');
  assert.is(d.detect(20, 5, 35), 'overuse');
});

test('the threshold rises towards a persistent |m| (K_u = 0.01 per ms), falls slowly below it (K_d = 0.00018), ignores spikes, stays in [6, 600]', () => {
  const d = new OveruseDetector();
  d.detect(20, 5, 0); // the first estimate only starts the clock
  assert.is(d.threshold(), 12.5);
  d.detect(20, 5, 5);
  assert.ok(Math.abs(d.threshold() - (12.5 + 0.01 * 7.5 * 5)) < 1e-12, `${d.threshold()}`);
  // Persistent 20 ms: the threshold catches up with it (from below), so that 19 ms, over-use at first, is normal now.
  for (let t = 10; t <= 2000; t += 5) d.detect(20, 5, t);
  assert.ok(d.threshold() > 19.9 && d.threshold() <= 20, `${d.threshold()}`);
  assert.is(d.detect(19, 5, 2000), 'normal');
  const fresh = new OveruseDetector();
  for (let t = 0; t <= 15; t += 5) fresh.detect(19, 5, t);
  assert.is(fresh.state(), 'overuse', '19 ms against the initial 12.5 ms threshold');
  // Quiet: it falls, slowly, and stops at 6 ms.
  const before = d.threshold();
  d.detect(0, 5, 2005);
  assert.ok(Math.abs(before - d.threshold() - 0.00018 * before * 5) < 1e-12);
  for (let t = 2010; t <= 200_000; t += 100) d.detect(0, 100, t);
  assert.is(d.threshold(), 6);
  // A spike more than 15 ms above the threshold does not move it.
  d.detect(40, 5, 200_005);
  assert.is(d.threshold(), 6);
  // Time steps count at most 100 ms.
  const e = new OveruseDetector();
  e.detect(20, 5, 0);
  e.detect(20, 5, 10_000);
  assert.ok(Math.abs(e.threshold() - (12.5 + 0.01 * 7.5 * 100)) < 1e-12);
  const high = new OveruseDetector({ initialThresholdMs: 590 });
  for (let t = 0; t < 10_000; t += 100) high.detect(600, 100, t);
  assert.ok(high.threshold() <= 600);
});

test.run();
