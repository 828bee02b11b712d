import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { displayTimes, distribution, frameRecords, percentile, recordsToCsv, ssimToDb, summarize } from '../../src/salsify/metrics.ts';

test('percentiles interpolate between ranks', () => {
  const s = Float64Array.from([10, 20, 30, 40, 50]);
  assert.is(percentile(s, 0), 10);
  assert.is(percentile(s, 50), 30);
  assert.is(percentile(s, 100), 50);
  assert.is(percentile(s, 5), 12);
  assert.is(percentile(s, 95), 48);
  assert.equal(distribution([1, 2, 3]), { mean: 2, p5: 1.1, p95: 2.9 });
});

test('signal delay: a skipped or lost frame counts until a later frame is shown', () => {
  // frames 0..5 captured every 10 ms; 0, 2 and 5 shown; 1 skipped; 3, 4 lost.
  const captures = new Map([0, 1, 2, 3, 4, 5].map((i) => [i, i * 10] as [number, number]));
  const sent = new Map([
    [0, { frameNumber: 0, bytes: 100, quantizer: 40, keyFrame: true }],
    [2, { frameNumber: 1, bytes: 100, quantizer: 40, keyFrame: false }],
    [3, { frameNumber: 2, bytes: 100, quantizer: 40, keyFrame: false }],
    [4, { frameNumber: 3, bytes: 100, quantizer: 40, keyFrame: false }],
    [5, { frameNumber: 4, bytes: 100, quantizer: 40, keyFrame: false }],
  ]);
  const shown = new Map([
    [0, { shownMs: 50, ssim: 0.9 }],
    [1, { shownMs: 70, ssim: 0.99 }],
    [4, { shownMs: 120, ssim: 0.95 }],
  ]);
  const records = frameRecords({ captures, sent, skipped: new Set([1]) }, shown, 200);
  assert.equal(records.map((r) => r.signalDelayMs), [50, 60, 50, 90, 80, 70]);
  assert.equal(records.map((r) => r.fate), ['sent', 'skipped', 'sent', 'sent', 'sent', 'sent']);
  const s = summarize(records, 500, 0.5);
  assert.is(s.framesCaptured, 6);
  assert.is(s.framesSent, 5);
  assert.is(s.framesShown, 3);
  assert.is(s.framesSkipped, 1);
  assert.is(s.signalDelayMs.mean, 400 / 6);
  // SSIM averaged linearly, then converted
  assert.ok(Math.abs(s.ssimDb.mean - ssimToDb((0.9 + 0.99 + 0.95) / 3)) < 1e-9);
  const csv = recordsToCsv(records).trim().split('\n');
  assert.is(csv.length, 7);
  assert.is(csv[0], 'source_index,capture_ms,fate,frame_number,bytes,quantizer,key_frame,shown_ms,ssim,ssim_db,displayed_ms,signal_delay_ms');
  assert.is(csv[2], '1,10,skipped,,,,,,,,70,60');
  assert.is(csv[1], '0,0,sent,0,100,40,1,50,0.9,10,50,50');
});

test('a frame never caught up counts until the end of the run, and is counted as such', () => {
  const captures = new Map([[0, 0], [1, 10], [2, 20]]);
  const sent = new Map([[0, { frameNumber: 0, bytes: 1, quantizer: 1, keyFrame: true }], [1, { frameNumber: 1, bytes: 1, quantizer: 1, keyFrame: false }]]);
  const records = frameRecords({ captures, sent, skipped: new Set() }, new Map([[0, { shownMs: 40, ssim: 0.9 }]]), 100);
  assert.equal(records.map((r) => r.signalDelayMs), [40, 90, 80]);
  assert.equal(records.map((r) => r.displayedMs), [40, undefined, undefined]);
  assert.equal(records.map((r) => r.fate), ['sent', 'sent', 'superseded']);
  const s = summarize(records, 2, 0.1);
  assert.is(s.framesNeverDisplayed, 2);
  assert.is(s.signalDelayMs.mean, 70);
});

test('display times: earliest show of this or any later frame; none after the last show', () => {
  assert.equal(displayTimes(5, new Map([[1, 30], [3, 25]])), [25, 25, 25, 25, undefined]);
});

test('SSIM in dB', () => {
  assert.is(ssimToDb(0.9), 10);
  assert.ok(Math.abs(ssimToDb(0.99) - 20) < 1e-9);
  assert.is(ssimToDb(1), Infinity);
});

test.run();
