// The bench's measurement, without a browser: signal delay per source frame
// exactly as ../shared/reference/README.md defines it (d_i: frame i or any
// later frame first shown), the camera file's frame numbers unwrapped across
// its loops, the received frames put in decode order, the barcode strip left
// out of SSIM, and the send-rate check over getStats intervals.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SyntheticScene } from '../../src/codec-bridge/video/synthetic-scene.ts';
import { stampBarcode } from '../../src/webrtc/barcode.ts';
import { measureFrames, unwrapCaptures, type CapturedFrame, type ShownFrame } from '../../src/webrtc/measure.ts';
import { cropTop, decodeOrder, parseEncodedFrames, shownSsim } from '../../src/webrtc/quality.ts';
import { ssim } from '../../src/codec-bridge/ssim.ts';
import { resizePicture } from '../../src/webrtc/scale.ts';
import { longestAbove } from '../../src/webrtc/stats-summary.ts';
import { frameRecords, rtpDelta } from '../../src/webrtc/bench.ts';

const L = 10; // frames in the camera file

/** Frames 0..count-1 captured every 33 ms from t = 1000, numbered modulo L. */
function captures(count: number): CapturedFrame[] {
  return Array.from({ length: count }, (_, i) => ({ n: i % L, captureMs: 1000 + 33 * i }));
}

test('camera numbers are unwrapped across the loops of the file, an unreadable one skipped', () => {
  const c = captures(25);
  assert.equal(unwrapCaptures(c, L), Array.from({ length: 25 }, (_, i) => i));
  const gap = [...c.slice(0, 8), { n: null, captureMs: 1264 }, ...c.slice(12)];
  assert.equal(unwrapCaptures(gap, L), [0, 1, 2, 3, 4, 5, 6, 7, null, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24]);
});

test('signal delay: d_i is the first show of frame i or any later frame, as the reference defines it', () => {
  const c = captures(6);
  // Frame 0 shown at 1100; 1 never; 2 at 1150; 3 and 4 never, 5 at 1400. Frame 1 counts until 2 was shown.
  const shown: ShownFrame[] = [
    { n: 0, shownMs: 1100 },
    { n: 2, shownMs: 1150 },
    { n: 2, shownMs: 1160 }, // shown again: the first show counts
    { n: 5, shownMs: 1400 },
  ];
  const m = measureFrames(c, shown, L, { fromMs: 0, toMs: 5000, endMs: 5000 });
  assert.equal(m.frames.map((f) => f.displayMs), [1100, 1150, 1150, 1400, 1400, 1400]);
  assert.equal(m.frames.map((f) => f.signalDelayMs), [100, 1150 - 1033, 1150 - 1066, 1400 - 1099, 1400 - 1132, 1400 - 1165]);
  assert.equal(m.frames.map((f) => f.shownMs), [1100, undefined, 1150, undefined, undefined, 1400]);
});

test('a later frame shown earlier than an older one sets d_i of the older one', () => {
  const c = captures(3);
  const m = measureFrames(c, [{ n: 2, shownMs: 1200 }, { n: 0, shownMs: 1300 }], L, { fromMs: 0, toMs: 5000, endMs: 5000 });
  assert.equal(m.frames.map((f) => f.displayMs), [1200, 1200, 1200]);
});

test('a frame never caught up counts until the end of the run (a lower bound)', () => {
  const m = measureFrames(captures(3), [{ n: 0, shownMs: 1100 }], L, { fromMs: 0, toMs: 5000, endMs: 3000 });
  assert.equal(m.frames.map((f) => f.displayMs), [1100, undefined, undefined]);
  assert.equal(m.frames.map((f) => f.signalDelayMs), [100, 3000 - 1033, 3000 - 1066]);
});

test('a shown number is the latest source frame with that number captured before it was shown', () => {
  const c = captures(25); // frames 0..24: numbers 0..9, 0..9, 0..4
  // Number 3 shown at 1800: source frames 3 (t 1099) and 13 (t 1429) were captured before, 23 (t 1759) too.
  const m = measureFrames(c, [{ n: 3, shownMs: 1800 }, { n: 7, shownMs: 1500 }], L, { fromMs: 0, toMs: 5000, endMs: 5000 });
  const shownIndices = m.frames.filter((f) => f.shownMs !== undefined).map((f) => f.sourceIndex);
  assert.equal(shownIndices, [7, 23]);
  assert.is(m.unmatchedShown, 0);
  // A number shown before any frame with it was captured matches nothing.
  const early = measureFrames(c, [{ n: 9, shownMs: 1100 }], L, { fromMs: 0, toMs: 5000, endMs: 5000 });
  assert.is(early.unmatchedShown, 1);
});

test('only frames captured in the window count; later shows still set their d_i; missing captures are counted', () => {
  const c = captures(10).filter((f) => f.n !== 4);
  const m = measureFrames(c, [{ n: 9, shownMs: 1400 }], L, { fromMs: 1030, toMs: 1190, endMs: 5000 });
  assert.equal(m.frames.map((f) => f.sourceIndex), [1, 2, 3, 5]);
  assert.ok(m.frames.every((f) => f.displayMs === 1400));
  assert.is(m.missingCaptures, 1);
});

function encoded(frames: { rtp: number; key: boolean; bytes: number[] }[]): Uint8Array {
  const parts: Buffer[] = [];
  for (const f of frames) {
    const head = Buffer.alloc(17);
    head.writeUInt32LE(f.rtp >>> 0, 0);
    head.writeUInt8(f.key ? 1 : 0, 4);
    head.writeDoubleLE(12.5, 5);
    head.writeUInt32LE(f.bytes.length, 13);
    parts.push(head, Buffer.from(f.bytes));
  }
  return new Uint8Array(Buffer.concat(parts));
}

test('received frames: parsed, RTP timestamps unwrapped past 2^32, sorted, deduplicated, from the first key frame', () => {
  const near = 2 ** 32 - 3000;
  const bytes = encoded([
    { rtp: near, key: false, bytes: [1] }, // before the first key frame
    { rtp: near + 3000, key: true, bytes: [2] }, // wraps to 0
    { rtp: 6000, key: false, bytes: [4] },
    { rtp: 3000, key: false, bytes: [3] }, // a retransmission, arriving late
    { rtp: 3000, key: false, bytes: [9] }, // a duplicate
  ]);
  const frames = parseEncodedFrames(bytes, 'test');
  assert.equal(frames.map((f) => f.rtp), [0, 3000, 9000, 6000, 6000]);
  assert.equal(frames.map((f) => f.rawRtp), [near, 0, 6000, 3000, 3000]);
  assert.equal(decodeOrder(frames).map((f) => f.data[0]), [2, 3, 4]);
  assert.throws(() => parseEncodedFrames(bytes.subarray(0, bytes.length - 1), 'cut.frames'), /cut\.frames: frame 4 .*1 bytes announced, 0 left/);
});

test('SSIM leaves the barcode strip out: two frames differing only in it are identical', async () => {
  const scene = new SyntheticScene({ width: 320, height: 180, fps: 30, seed: 3 });
  const a = await scene.frame(2);
  const b = { ...a, data: a.data.slice() };
  stampBarcode(a, 1);
  stampBarcode(b, 40000);
  assert.is(await shownSsim(a, b, 16), 1);
  const other = await scene.frame(9);
  assert.ok((await shownSsim(a, other, 16)) < 0.99);
  // The luma SSIM of the two pictures below the strip; a smaller shown picture is brought back to the source's size first.
  assert.is(await shownSsim(a, other, 16), ssim(cropTop(a, 16), cropTop(other, 16)).y);
  const small = await new SyntheticScene({ width: 160, height: 90, fps: 30, seed: 3 }).frame(9);
  assert.is(await shownSsim(a, small, 16), ssim(cropTop(a, 16), cropTop(resizePicture(small, 320, 180), 16)).y);
  const cropped = cropTop(a, 16);
  assert.equal([cropped.width, cropped.height, cropped.data.length], [320, 164, 320 * 164 * 1.5]);
  assert.equal(cropped.data.subarray(0, 320), a.data.subarray(16 * 320, 17 * 320));
});

test('longestAbove: the longest run of intervals above a rate', () => {
  const series = [0.5, 1, 1.5, 2, 2.5, 3].map((t, i) => ({ t, sendMbps: [1, 2.5, 2.5, 1, 2.1, 1][i] }));
  assert.is(longestAbove(series, 2), 1);
  assert.is(longestAbove(series, 3), 0);
});

test('fates by RTP timestamp: shown; received but never shown; encoded but lost; never encoded (skipped)', () => {
  const c = captures(25);
  // Chromium stamps RTP timestamps from capture times (90 kHz): source k at 7000 + 90 * 33 k.
  const rtp = (k: number) => 7000 + 90 * 33 * k;
  const m = measureFrames(c, [{ n: 2, shownMs: 1200, rtp: rtp(2) }, { n: 4, shownMs: 1600, rtp: rtp(14) }], L, { fromMs: 0, toMs: 5000, endMs: 5000 });
  const sent = [2, 3, 5, 6, 14].map((k, i) => ({ rtp: rtp(k), sentMs: 1010 + 33 * k, bytes: 100 * (i + 1), key: i === 0 }));
  sent.push({ rtp: rtp(14), sentMs: 1500, bytes: 7, key: false }); // a second spatial layer of frame 14
  const received = [2, 3, 5, 14].map((k) => ({ rtp: rtp(k), receivedMs: 1100 + 33 * k, bytes: 1 }));
  const decoded = [{ rtp: 0, rawRtp: rtp(2), key: true, bytes: 100, width: 640, height: 360, fileFrame: 2, ssim: 0.9 }, { rtp: 0, rawRtp: rtp(14), key: false, bytes: 507, width: 640, height: 360, fileFrame: 4, ssim: 0.8 }];
  const { records, unmatchedRtp, barcodeMismatches, sentNotNoted } = frameRecords(m.frames, { sent, received, quality: { frames: decoded, undecodable: 0, notDecoded: 0 } }, 1000, 30);
  const fate = (i: number) => records.find((r) => r.sourceIndex === i)!.fate;
  assert.equal([2, 3, 5, 6, 14].map(fate), ['shown', 'never-shown', 'never-shown', 'lost', 'shown']);
  assert.equal([0, 1, 4, 13, 15, 24].map(fate), ['skipped', 'skipped', 'skipped', 'skipped', 'skipped', 'skipped']);
  const r14 = records.find((r) => r.sourceIndex === 14)!;
  assert.equal([r14.frameNumber, r14.bytes, r14.ssim, r14.arrivalMs], [4, 507, 0.8, 100 + 33 * 14]);
  assert.equal(records.find((r) => r.sourceIndex === 6)!.arrivalMs, undefined);
  assert.equal([unmatchedRtp, barcodeMismatches, sentNotNoted], [0, 0, 0]);
  // A decoded frame whose barcode names another frame than its RTP timestamp is counted.
  const wrong = frameRecords(m.frames, { sent, received, quality: { frames: [{ ...decoded[0]!, fileFrame: 7 }], undecodable: 0, notDecoded: 0 } }, 1000, 30);
  assert.is(wrong.barcodeMismatches, 1);
});

test('rtpDelta: ticks between RTP timestamps across the 32-bit wrap', () => {
  assert.is(rtpDelta(5, 2 ** 32 - 5), 10);
  assert.is(rtpDelta(2 ** 32 - 5, 5), -10);
  assert.is(rtpDelta(3000, 0), 3000);
});

test.run();
