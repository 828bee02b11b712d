// A short Firefox call (salsify webrtc --browser firefox): two headless
// firefox-esr over coturn and linkshell on a constant 2 Mbit/s link, 8 s at
// 640x360 30 fps. Checks the same chain as the Chromium call's test: frames
// drawn by the page's camera (barcodes readable), encoded (Firefox's
// RTCRtpScriptTransform saw them), delivered through the relay and
// linkshell, shown and matched by barcode to their source frames, measured
// (delay, SSIM); the summary names Firefox and its version; nothing is left
// behind. Skipped (and counted) without firefox-esr or coturn. Bounded at
// 3 minutes (the call is aborted and cleaned up then).
// test-runner: alone (a real Firefox call, measured frame by frame: a test beside it takes the CPU its canvas camera and encoder need)
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import type { WebrtcResult } from '../../src/webrtc/bench.ts';
import { assertNothingLeftBehind, runShortCall } from './short-call.ts';
import { requires } from '../helpers/requires.ts';

const DURATION_S = 8;
const test = requires(['firefox', 'coturn']);


// Made in the hook, not at load: a skipped file (no firefox-esr) runs no hook and would leave it.
let dir: string;
let result: WebrtcResult;

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'webrtc-firefox-test-'));
  result = await runShortCall(dir, { browser: 'firefox', rateMbps: 2, codec: 'vp8', durationS: DURATION_S, limitMs: 180_000 });
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test('the summary names Firefox and its version', () => {
  const json = JSON.parse(readFileSync(join(dir, 'out', 'summary.json'), 'utf8'));
  assert.match(json.browser, /^firefox\/\d+\.\d+/);
  assert.match(json.label, /^webrtc \(Firefox \d+\)$/);
  assert.is(json.config.browser, json.browser);
  assert.is(json.config.negotiatedCodec.toLowerCase(), 'video/vp8');
  assert.is(json.pageClocks.method, 'round trip');
  assert.ok(json.pageClocks.uncertaintyMs < 50, `page clocks known within ${json.pageClocks.uncertaintyMs} ms`);
});

test("frames drawn by the page's camera, encoded, delivered through the relay and linkshell", () => {
  const c = result.counters;
  assert.ok((c.cameraFrames ?? 0) > 0.5 * DURATION_S * 30, `camera frames ${c.cameraFrames}`);
  assert.is(c.unreadableCaptures, 0, 'every camera frame carries a readable barcode');
  assert.ok((c.framesEncoded ?? 0) > 0.3 * DURATION_S * 30, `frames encoded ${c.framesEncoded}`);
  assert.ok((c.framesReceived ?? 0) > 0.3 * DURATION_S * 30, `frames received ${c.framesReceived}`);
  assert.ok(result.link.video.departures > 100, `video link departures ${result.link.video.departures}`);
  assert.is(result.link.linkshellStatus, 0);
  const stats = readFileSync(join(dir, 'out', 'sender-stats.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const last = stats[stats.length - 1].report as Record<string, unknown>[];
  const pair = last.find((s) => s.type === 'candidate-pair' && s.nominated === true && s.state === 'succeeded');
  const local = last.find((s) => s.id === pair?.localCandidateId);
  assert.is(local?.candidateType, 'relay', 'the sender sends through TURN (linkshell, then coturn)');
});

test('shown frames matched by barcode to their source frames, and measured', () => {
  const s = result.summary;
  assert.ok(s.framesShown > 0.3 * s.framesCaptured, `shown ${s.framesShown} of ${s.framesCaptured}`);
  assert.is(result.counters.unmatchedShown, 0, 'every barcode shown names a captured frame');
  assert.ok((result.counters.unreadableShown ?? 0) <= 0.05 * s.framesShown, `unreadable shown ${result.counters.unreadableShown}`);
  assert.ok(s.signalDelayMs.p5 > 0 && Number.isFinite(s.signalDelayMs.mean), JSON.stringify(s.signalDelayMs));
  for (const f of result.frames) if (f.displayMs !== undefined) assert.ok(f.displayMs >= f.captureMs, `frame ${f.sourceIndex} shown before it was captured`);
  const withSsim = result.counters.framesWithSsim ?? 0;
  assert.ok(withSsim >= 0.9 * s.framesShown, `SSIM for ${withSsim} of ${s.framesShown} shown frames`);
  for (const f of result.frames) if (f.ssim !== undefined) assert.ok(f.ssim > 0.3 && f.ssim <= 1, `frame ${f.sourceIndex}: SSIM ${f.ssim}`);
  // Joined by RTP timestamp: every frame shown or received is one the sender's transform noted.
  assert.is(result.counters.sentNotNoted, 0, 'every frame shown or received was noted by the sender page');
  assert.ok(result.frames.some((f) => f.fate === 'shown' && f.bytes !== undefined && f.bytes > 0 && f.arrivalMs !== undefined), 'shown frames carry their size and arrival');
});

test('getStats fields Firefox does not report are null and named, not invented', () => {
  const json = JSON.parse(readFileSync(join(dir, 'out', 'summary.json'), 'utf8'));
  const { totals, notReported } = json.stats;
  assert.ok(Array.isArray(notReported));
  for (const field of notReported as string[]) {
    if (field.startsWith('totals.')) assert.is(totals[field.slice(7)], null, field);
  }
  assert.ok(totals.framesEncoded > 0 && totals.bytesSent > 0, JSON.stringify(totals));
  assert.ok(['valid', 'invalid'].includes(json.validity.verdict));
});

test('no process and no temporary directory is left behind', () => {
  assertNothingLeftBehind(result);
});

test.run();
