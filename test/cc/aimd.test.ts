// The AIMD reference controller: its rules on hand-made feedback, then over
// the simulator on a constant 1 Mbit/s link.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AIMD_DEFAULTS, aimdController, createController } from '../../src/cc/aimd.ts';
import { quantile, runMediaFlow, scheduleTrace } from './media-flow-harness.ts';

const options = { initialBitrate: 1_000_000, minBitrate: 100_000, maxBitrate: 3_000_000 };

/** Sends 10 packets at `t` (send times t..t+9) and reports them at t + 100 with one-way delay 50 + queueMs, `lost` of them lost. */
function round(c: ReturnType<typeof createController>, seq: number, t: number, queueMs: number, lost = 0) {
  const packets = [];
  for (let i = 0; i < 10; i++) {
    c.onPacketSent({ sequence: seq + i, sizeBytes: 1200, sendTimeMs: t + i });
    packets.push({ sequence: seq + i, arrivalTimeMs: i < lost ? undefined : t + i + 50 + queueMs });
  }
  c.onFeedback({ packets }, t + 100);
  return seq + 10;
}

test('no loss, no queue: +50 kbit/s per second of reports', () => {
  const c = createController(options);
  let seq = 0;
  for (let t = 0; t <= 1000; t += 100) seq = round(c, seq, t, 0);
  assert.ok(Math.abs(c.targetBitrate() - 1_050_000) < 1e-6, `${c.targetBitrate()}`);
});

test('loss above 2 % or queueing above 50 ms: x 0.85, at most once per 300 ms; 1 % loss and 40 ms still increase', () => {
  const c = createController(options);
  let seq = round(c, 0, 0, 0);
  seq = round(c, seq, 100, 0, 1); // 10 % loss
  assert.is(c.targetBitrate(), 850_000);
  seq = round(c, seq, 200, 0, 1);
  assert.is(c.targetBitrate(), 850_000, 'within the hold');
  seq = round(c, seq, 400, 0, 1);
  assert.is(c.targetBitrate(), 850_000 * 0.85, '300 ms later');
  const d = createController(options);
  seq = round(d, 0, 0, 0); // the least one-way delay: 50 ms
  seq = round(d, seq, 100, 60);
  assert.is(d.targetBitrate(), 850_000, 'queueing 60 ms');
  const e = createController(options);
  seq = round(e, 0, 0, 0);
  seq = round(e, seq, 100, 40);
  assert.ok(e.targetBitrate() > 1_000_000, '40 ms of queueing is under the threshold');
  // 1 % loss over a report of 100 packets.
  const f = createController(options);
  const packets = [];
  for (let i = 0; i < 100; i++) {
    f.onPacketSent({ sequence: i, sizeBytes: 1200, sendTimeMs: i });
    packets.push({ sequence: i, arrivalTimeMs: i === 0 ? undefined : i + 50 });
  }
  f.onFeedback({ packets }, 0);
  f.onFeedback({ packets: [] }, 100);
  assert.is(f.targetBitrate(), 1_000_000, 'first report: no time elapsed, no decrease');
  assert.is(AIMD_DEFAULTS.lossThreshold, 0.02);
});

test('after a pause (no reports for 10 s) the first report adds at most one second of increase', () => {
  const c = createController(options);
  let seq = round(c, 0, 0, 0);
  seq = round(c, seq, 100, 0);
  const before = c.targetBitrate();
  round(c, seq, 10_100, 0);
  assert.ok(Math.abs(c.targetBitrate() - (before + 50_000)) < 1e-6, `${c.targetBitrate()} after ${before}`);
});

test('the rate stays within [min, max]', () => {
  const c = createController(options);
  let seq = 0;
  for (let t = 0; t < 60_000; t += 100) seq = round(c, seq, t, 0);
  assert.is(c.targetBitrate(), 3_000_000);
  for (let t = 60_000; t < 120_000; t += 100) seq = round(c, seq, t, 0, 5);
  assert.is(c.targetBitrate(), 100_000);
});

test('over a constant 1 Mbit/s link (50 ms, 300 ms drop-tail): 70 to 100 % of capacity with short queues', async () => {
  const run = await runMediaFlow(aimdController, { trace: scheduleTrace([[0, 1_000_000]], 60_000), durationMs: 60_000 });
  const wire = (run.receivedBitrate(20_000, 60_000) * 1232) / 1200;
  assert.ok(wire >= 700_000 && wire <= 1_000_000, `link rate ${wire}`);
  assert.ok(quantile(run.queueingDelays(20_000, 60_000), 0.95) < 100, `p95 ${quantile(run.queueingDelays(20_000, 60_000), 0.95)}`);
});

test.run();
