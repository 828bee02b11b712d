// GCC's loss-based controller: the draft's rules at 1 %, 5 % and 20 % loss.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LossBasedController, lossBasedRate } from '../../src/cc/gcc/loss-controller.ts';

const limits = { initialBitrate: 1_000_000, minBitrate: 100_000, maxBitrate: 2_000_000 };

test('the rules: under 2 % up 5 %, 2 to 10 % unchanged, over 10 % down by half the loss', () => {
  assert.is(lossBasedRate(1_000_000, 0.01), 1_050_000);
  assert.is(lossBasedRate(1_000_000, 0.05), 1_000_000);
  assert.is(lossBasedRate(1_000_000, 0.2), 900_000);
  assert.is(lossBasedRate(1_000_000, 0.02), 1_000_000, 'the bounds belong to the middle band');
  assert.is(lossBasedRate(1_000_000, 0.1), 1_000_000);
});

test('at 1 %, 5 % and 20 % loss over the last second of reports: up 5 %, unchanged, down 10 %', () => {
  for (const [lossPercent, expected] of [[1, 1_050_000], [5, 1_000_000], [20, 900_000]] as const) {
    const c = new LossBasedController(limits);
    // One report of 100 packets, `lossPercent` lost: enough packets for a first decision.
    c.update(lossPercent, 100, 0, 1_000_000);
    assert.is(c.bitrate(), expected, `${lossPercent} % loss`);
    assert.is(c.lossFraction(), lossPercent / 100);
  }
});

test('decisions need 20 packets in the window; losses older than the window no longer count', () => {
  const c = new LossBasedController(limits);
  for (let t = 0; t < 1000; t += 100) c.update(1, 1, t, 1_000_000);
  assert.is(c.bitrate(), 1_000_000, '10 packets: no decision');
  assert.is(c.lossFraction(), undefined);
  // 100 % loss, then a second of clean reports: the window forgets the losses.
  const d = new LossBasedController(limits);
  d.update(30, 30, 0, 1_000_000);
  assert.is(d.bitrate(), 1_000_000 * (1 - 0.5));
  d.update(0, 30, 1000, d.bitrate());
  assert.is(d.lossFraction(), 0, 'the report at 0 ms left the window');
  assert.is(d.bitrate(), 500_000 * 1.05);
});

test('a loss episode cuts once per window; the estimate starts from the lower of itself and the target', () => {
  const c = new LossBasedController(limits);
  for (let t = 0; t < 1000; t += 100) c.update(20, 100, t, c.bitrate());
  assert.is(c.bitrate(), 900_000, 'one cut in the first second');
  c.update(20, 100, 1000, c.bitrate());
  assert.is(c.bitrate(), 810_000, 'the next a window later');
  // From the target when the target is lower (the delay-based part limits it).
  const d = new LossBasedController(limits);
  d.update(0, 100, 0, 600_000);
  assert.is(d.bitrate(), 630_000);
  // Bounds.
  const low = new LossBasedController(limits);
  for (let t = 0; t <= 60_000; t += 100) low.update(50, 100, t, low.bitrate());
  assert.is(low.bitrate(), 100_000);
  const high = new LossBasedController(limits);
  for (let t = 0; t <= 60_000; t += 100) high.update(0, 100, t, 5_000_000);
  assert.is(high.bitrate(), 2_000_000);
});

test.run();
