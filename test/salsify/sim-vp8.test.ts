// A few slower runs with the real VP8 codec (libvpx through the codec bridge)
// instead of the model codec: frames decode to exactly the state the sender
// encoded, and loss recovery works without a key frame.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runSalsifySim } from '../../src/salsify/sim-runner.ts';

const base = { downlink: { constantMbps: 1 }, uplink: { constantMbps: 1 }, durationS: 2, video: 'synthetic:320x180', codec: 'vp8', delayMs: 10 } as const;

test('VP8: a clean run shows every frame sent, with real SSIM', async () => {
  const r = await runSalsifySim({ ...base, scheme: 'salsify-2' });
  const c = r.counters.receiver;
  assert.is(c.framesShown, r.summary.framesSent);
  assert.is(c.decodeFailures + c.missingReference + c.corruptFrames, 0);
  assert.ok(r.summary.linkUtilization > 0.7, `${r.summary.linkUtilization}`);
  assert.ok(r.summary.ssimDb.mean > 8 && r.summary.ssimDb.mean < 40, `${r.summary.ssimDb.mean}`);
  // 100 ms of delay budget, 20 ms of propagation, encode and decode, and a start from a guessed capacity.
  assert.ok(r.summary.signalDelayMs.p95 < 300, `${r.summary.signalDelayMs.p95}`);
});

test('VP8: a lost datagram is recovered from a state the receiver holds, not a key frame', async () => {
  const r = await runSalsifySim({ ...base, scheme: 'salsify-1', dropDownlinkDatagrams: [60] });
  assert.is(r.counters.sender.lossesDetected, 1);
  assert.is(r.counters.sender.keyFrames, 1);
  const rec = r.senderEvents.filter((e) => e.kind === 'recovery');
  assert.is(rec.length, 1);
  assert.is(r.counters.receiver.decodeFailures, 0);
  const last = r.frames.slice(-30);
  assert.ok(last.every((f) => f.fate !== 'lost' && f.fate !== 'never-shown'), 'frames sent after the recovery are not all shown');
});

test.run();
