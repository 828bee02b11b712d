// The test of the WebRTC bench: a 20 s call at 640x360 between two
// headless Chromium over coturn and linkshell on a constant 2 Mbit/s link.
// Connected through the relay (only relay candidates) and linkshell (its log
// shows the traffic); delay known for at least 90 % of source frames; the
// sending bitrate never above the link's capacity for more than a second;
// SSIM computed for the shown frames and plausible; our VP8 decoding
// identical to Chromium's on the frames checked; the summary complete; no
// process or temporary directory left behind. About a minute on a loaded
// machine; bounded at 5 minutes (the call is aborted and cleaned up then).
// test-runner: alone (a real Chromium call, measured frame by frame: a test beside it takes the CPU its camera and encoder need)
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import type { WebrtcResult } from '../../src/webrtc/bench.ts';
import { assertNothingLeftBehind, runShortCall } from './short-call.ts';
import { longestAbove } from '../../src/webrtc/stats-summary.ts';
import { requires } from '../helpers/requires.ts';

const LIMIT_MS = 300_000;
const test = requires(['chromium', 'coturn']);


const dir = mkdtempSync(join(tmpdir(), 'webrtc-call-test-'));
let result: WebrtcResult;

test.before(async () => {
  result = await runShortCall(dir, { rateMbps: 2, codec: 'vp8', durationS: 20, limitMs: LIMIT_MS });
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test('connected through coturn (relay candidates only) and linkshell, whose logs show the traffic', () => {
  const { video } = result.link;
  assert.ok(video.departures > 1000, `video link departures: ${video.departures}`);
  assert.ok(result.link.linkshellStatus === 0, `linkshell exit status ${result.link.linkshellStatus}`);
  const feedback = readFileSync(join(dir, 'out', 'feedback-link.log'), 'utf8');
  assert.ok((feedback.match(/^\d+ - /gm) ?? []).length > 50, 'the feedback direction carried the receiver reports');
  const stats = readFileSync(join(dir, 'out', 'sender-stats.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const last = stats[stats.length - 1].report as Record<string, unknown>[];
  const transport = last.find((s) => s.type === 'transport');
  const pair = last.find((s) => s.id === transport?.selectedCandidatePairId);
  const local = last.find((s) => s.id === pair?.localCandidateId);
  const remote = last.find((s) => s.id === pair?.remoteCandidateId);
  assert.is(local?.candidateType, 'relay');
  assert.is(remote?.candidateType, 'relay');
  // The sender's TURN server is linkshell's listen address, not coturn's.
  assert.match(String(local?.url ?? ''), /^turn:127\.0\.0\.1:\d+/);
});

test('delay known for at least 90 % of the source frames, and plausible', () => {
  const s = result.summary;
  assert.ok(s.framesCaptured >= 0.9 * 20 * 30, `captured ${s.framesCaptured}`);
  assert.ok(result.delayKnownFraction >= 0.9, `delay known for ${(100 * result.delayKnownFraction).toFixed(1)} %`);
  assert.ok(s.signalDelayMs.p5 > 0 && s.signalDelayMs.mean < 2000, JSON.stringify(s.signalDelayMs));
  for (const f of result.frames) if (f.displayMs !== undefined) assert.ok(f.displayMs >= f.captureMs, `frame ${f.sourceIndex} shown before it was captured`);
});

test('the sending bitrate is never above the link capacity for more than a second', () => {
  const above = longestAbove(result.stats.series, 2.0);
  // getStats is sampled every 500 ms by a page timer whose ticks jitter by a
  // fraction of a millisecond (a CI run measured two samples 1.0001 s apart):
  // "more than a second" is a third interval above, so allow the jitter only.
  assert.ok(above <= 1.0 + 0.02, `above 2 Mbit/s for ${above} s`);
  assert.ok(result.stats.series.some((p) => (p.sendMbps ?? 0) > 0.5), 'the call sent video');
});

test('SSIM computed for the shown frames and in a plausible range', () => {
  const s = result.summary;
  assert.ok(s.framesShown > 0.8 * s.framesCaptured, `shown ${s.framesShown} of ${s.framesCaptured}`);
  const withSsim = result.counters.framesWithSsim ?? 0;
  assert.ok(withSsim >= 0.95 * s.framesShown, `SSIM for ${withSsim} of ${s.framesShown} shown frames`);
  assert.ok(s.ssimDb.mean > 8 && s.ssimDb.mean < 35, `SSIM ${s.ssimDb.mean} dB`);
  for (const f of result.frames) if (f.ssim !== undefined) assert.ok(f.ssim > 0.5 && f.ssim <= 1, `frame ${f.sourceIndex}: SSIM ${f.ssim}`);
  assert.ok(existsSync(join(dir, 'out', 'received.ivf')));
});

test("our VP8 decoding is identical to Chromium's on every frame checked", () => {
  const c = result.counters;
  assert.ok((c.decodingCompared ?? 0) >= 30, `compared ${c.decodingCompared} of ${c.decodingChecked}`);
  assert.is(c.decodingIdentical, c.decodingCompared);
});

test("the summary has every field of the results pipeline's schema, and summary.json and frames.csv are written", () => {
  const fields = ['signalDelayMs', 'ssimDb', 'framesCaptured', 'framesSent', 'framesShown', 'framesNeverShown', 'framesLost', 'framesSkipped', 'framesSuperseded', 'framesNotCaughtUp', 'bytesSent', 'linkUtilization'];
  assert.equal(Object.keys(result.summary).sort(), [...fields].sort());
  assert.is(result.summary.framesCaptured, result.summary.framesSent + result.summary.framesSkipped + result.summary.framesSuperseded);
  assert.is(result.counters.sentNotNoted, 0, 'every frame sent was noted by the sender page');
  assert.is(result.counters.barcodeMismatches, 0, 'RTP timestamps and barcodes name the same source frames');
  assert.ok(result.summary.linkUtilization > 0.2 && result.summary.linkUtilization <= 1, `link use ${result.summary.linkUtilization}`);
  for (const [k, v] of Object.entries(result.summary)) {
    if (typeof v === 'number') assert.ok(Number.isFinite(v), `${k} = ${v}`);
    else for (const [q, x] of Object.entries(v)) assert.ok(Number.isFinite(x), `${k}.${q} = ${x}`);
  }
  const json = JSON.parse(readFileSync(join(dir, 'out', 'summary.json'), 'utf8'));
  assert.match(json.browser, /^Chrome\/\d+\./);
  assert.match(json.label, /^webrtc \(Chromium \d+\)$/);
  assert.equal(json.summary.framesShown, result.summary.framesShown);
  const csv = readFileSync(join(dir, 'out', 'frames.csv'), 'utf8').trim().split('\n');
  assert.is(csv.length, result.run.frames.length + 1);
  assert.match(csv[0]!, /^source_index,capture_ms,fate,/);
});

test('no process and no temporary directory is left behind', () => {
  assertNothingLeftBehind(result);
});

test.run();
