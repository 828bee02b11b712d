// SSIM of a VP9-SVC call (L2T3, the paper's WebRTC-SVC row): a 10 s call at
// 640x360 over a constant 3 Mbit/s link, its received frames (two spatial
// layers per RTP timestamp) decoded by ffmpeg with libvpx, as Chromium decodes
// them: identical to Chromium's own decoding on every frame checked (the
// receiver page hashes the first frames of its track), SSIM computed for the
// shown frames and plausible. About 40 s on a loaded machine; bounded at 4
// minutes (the call is aborted and cleaned up then).
// test-runner: alone (a real Chromium call, measured frame by frame: a test beside it takes the CPU its camera and encoder need)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import type { WebrtcResult } from '../../src/webrtc/bench.ts';
import { runShortCall } from './short-call.ts';
import { requires } from '../helpers/requires.ts';

const LIMIT_MS = 240_000;
const test = requires(['chromium', 'coturn', 'ffmpeg']);
const dir = mkdtempSync(join(tmpdir(), 'webrtc-vp9-test-'));
let result: WebrtcResult;

test.before(async () => {
  result = await runShortCall(dir, { rateMbps: 3, codec: 'vp9', scalabilityMode: 'L2T3', durationS: 10, limitMs: LIMIT_MS });
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test("VP9 decoded by ffmpeg (libvpx) is identical to Chromium's decoding on every frame checked", () => {
  const c = result.counters;
  assert.match(String(result.config.negotiatedCodec), /vp9/i);
  assert.ok((c.decodingCompared ?? 0) >= 20, `compared ${c.decodingCompared} of ${c.decodingChecked}`);
  assert.is(c.decodingIdentical, c.decodingCompared);
  assert.is(c.barcodeMismatches, 0, 'RTP timestamps and barcodes name the same source frames');
});

test('SSIM computed for the shown frames and plausible', () => {
  const s = result.summary;
  assert.ok(s.framesShown > 0.7 * s.framesCaptured, `shown ${s.framesShown} of ${s.framesCaptured}`);
  const withSsim = result.counters.framesWithSsim ?? 0;
  assert.ok(withSsim >= 0.95 * s.framesShown, `SSIM for ${withSsim} of ${s.framesShown} shown frames`);
  assert.ok(s.ssimDb.mean > 8 && s.ssimDb.mean < 35, `SSIM ${s.ssimDb.mean} dB`);
  for (const f of result.frames) if (f.ssim !== undefined) assert.ok(f.ssim > 0.5 && f.ssim <= 1, `frame ${f.sourceIndex}: SSIM ${f.ssim}`);
});

test.run();
