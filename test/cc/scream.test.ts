// SCReAM as a controller of the media flow: transport-wide reports become
// SCReAM feedback that leaves no received packet outside an ack vector, and
// on a constant link it fills the link with little queueing (RFC 8298's aim).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createController, screamController, type ScreamCall } from '../../src/cc/scream/scream.ts';
import { quantile, runMediaFlow, scheduleTrace } from './media-flow-harness.ts';

test('a report of 200 received packets becomes feedback at most 65 numbers apart, each with its 64 predecessors acked', () => {
  const calls: ScreamCall[] = [];
  const c = createController({ initialBitrate: 1_000_000, minBitrate: 50_000, maxBitrate: 5_000_000 }, {}, (call) => calls.push(call));
  for (let s = 0; s < 200; s++) c.onPacketSent({ sequence: s, sizeBytes: 1200, sendTimeMs: s * 0.5 });
  c.onFeedback({ packets: Array.from({ length: 200 }, (_, s) => ({ sequence: s, arrivalTimeMs: 50 + s * 0.5 })) }, 150);
  const feedback = calls.filter((x) => x.kind === 'feedback');
  assert.ok(feedback.length >= 3, `${feedback.length} feedback calls`);
  // ScreamTx's numbers are ours plus one.
  let previous = 0;
  for (const f of feedback) {
    const ours = f.highestSeqNr - 1;
    assert.ok(f.highestSeqNr - previous <= 65, `${previous} -> ${f.highestSeqNr}`);
    const expected = ours >= 64 ? (1n << 64n) - 1n : (1n << BigInt(ours)) - 1n;
    assert.is(f.ackVector, expected, `ack vector at ${ours}`);
    assert.is(f.timestampMs, Math.floor(50 + ours * 0.5));
    previous = f.highestSeqNr;
  }
  assert.is(previous, 200);
  assert.is(c.tx.bytesInFlight, 0, 'everything acknowledged');
});

test('1 Mbit/s, 50 ms each way: above 80 % of the link after 20 s with the 95th percentile of queueing under 150 ms', async () => {
  const run = await runMediaFlow(screamController, { trace: scheduleTrace([[0, 1_000_000]], 40_000), durationMs: 40_000 });
  const rate = run.receivedBitrate(20_000, 40_000);
  const p95 = quantile(run.queueingDelays(20_000, 40_000), 0.95);
  assert.ok(rate > 800_000, `${rate} bit/s`);
  assert.ok(p95 < 150, `p95 ${p95} ms`);
});

test.run();
