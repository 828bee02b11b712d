// The verdict of a real-time run from its facts: each bound fails alone, with its figure in the
// reason; linkshell's own verdict wins over its lateness figure; the load decides only without PSI.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cpuFacts, parsePressureTotal } from '../../src/results/cpu-pressure.ts';
import { judgeRealtimeRun, VALIDITY_BOUNDS } from '../../src/results/validity.ts';
import { callFacts, linkFacts } from '../../src/webrtc/call-validity.ts';
import { callLinkshellArgs, readLinkshellSummary } from '../../src/webrtc/linkshell-summary.ts';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const calm = { wallS: 20, cpuPressure: 0.02, load: { start: 0.3, end: 0.5, cores: 2 }, cameraFrames: { delivered: 600, asked: 601 }, framesEncoded: { encoded: 590, asked: 600 }, displayCallbacks: { seen: 580, presented: 585 }, linkLatenessP99Ms: 0.4 };

test('a calm run is valid, with its figures', () => {
  const v = judgeRealtimeRun(calm);
  assert.is(v.verdict, 'valid');
  assert.equal(v.reasons, []);
  assert.is(v.figures.cpuPressure, 0.02);
  assert.is(v.figures.cameraFrames, 0.998);
});

test('each starved fact alone makes the run invalid, naming its figure and bound', () => {
  const cases: [object, RegExp][] = [
    [{ cpuPressure: 0.35 }, /CPU pressure: .* 35\.0 % of the time \(bound 10\.0 %\)/],
    [{ cameraFrames: { delivered: 1375, asked: 1800 } }, /camera frames delivered: 1375 of 1800 \(76\.4 %/],
    [{ framesEncoded: { encoded: 294, asked: 900 } }, /frames encoded: 294 of 900/],
    [{ displayCallbacks: { seen: 400, presented: 573 } }, /display callbacks for presented frames: 400 of 573/],
    [{ linkLatenessP99Ms: 35 }, /link departure lateness p99 35\.00 ms \(bound 2 ms\)/],
    [{ linkVerdict: 'late' }, /the emulated link's own verdict: late/],
  ];
  for (const [change, reason] of cases) {
    const v = judgeRealtimeRun({ ...calm, ...change });
    assert.is(v.verdict, 'invalid', JSON.stringify(change));
    assert.is(v.reasons.length, 1, v.reasons.join('; '));
    assert.match(v.reasons[0], reason);
  }
});

test('linkshell\'s own valid verdict stands over a lateness figure; the load decides only without PSI', () => {
  assert.is(judgeRealtimeRun({ ...calm, linkLatenessP99Ms: 9, linkVerdict: 'valid' }).verdict, 'valid');
  assert.is(judgeRealtimeRun({ ...calm, load: { start: 1, end: 9, cores: 2 } }).verdict, 'valid');
  const { cpuPressure: _, ...noPsi } = calm;
  assert.match(judgeRealtimeRun({ ...noPsi, load: { start: 1, end: 9, cores: 2 } }).reasons[0], /load average 9\.00 above the 2 cores/);
  assert.is(VALIDITY_BOUNDS.linkLatenessP99Ms, 2);
});

test('PSI: the "some" total parsed, and its share of the interval', () => {
  const text = 'some avg10=99.20 avg60=99.23 avg300=99.33 total=2511417313\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n';
  assert.is(parsePressureTotal(text), 2511417313);
  assert.is(parsePressureTotal('nothing'), undefined);
  const facts = cpuFacts({ atMs: 1000, pressureUs: 5_000_000, load1: 1 }, { atMs: 11_000, pressureUs: 7_500_000, load1: 3 }, 2);
  assert.equal(facts, { wallS: 10, cpuPressure: 0.25, load: { start: 1, end: 3, cores: 2 } });
  assert.not.ok('cpuPressure' in cpuFacts({ atMs: 0, load1: 1 }, { atMs: 1000, load1: 1 }, 2));
});

test('a call\'s facts: frames spanned at the camera\'s rate, callbacks against presentedFrames, linkshell\'s summary document', () => {
  const facts = callFacts({
    fps: 30,
    sender: [0, 1, 3].map((i) => ({ captureUs: (i * 1e6) / 30 })),
    sent: [0, 33.3, 66.7, 100].map((t) => ({ t })),
    receiver: [{ presented: 10 }, {}, { presented: 14 }],
    linkshellSummary: { verdict: 'late', latenessP99Ms: 14.77 },
    cpuStart: { atMs: 0, pressureUs: 0, load1: 0.1 },
    cpuEnd: { atMs: 4000, pressureUs: 40_000, load1: 0.2 },
  });
  assert.equal(facts.cameraFrames, { delivered: 3, asked: 4 });
  assert.equal(facts.framesEncoded, { encoded: 4, asked: 4 });
  assert.equal(facts.displayCallbacks, { seen: 2, presented: 5 });
  assert.is(facts.linkLatenessP99Ms, 14.77);
  assert.is(facts.linkVerdict, 'late');
  assert.is(facts.cpuPressure, 0.01);
});

test('linkshell\'s summary document: its verdict (not "unverified", where the lateness bound applies), a missing document, a trace clock held to the end', () => {
  assert.equal(linkFacts({ verdict: 'valid', latenessP99Ms: 0.4 }), { linkLatenessP99Ms: 0.4, linkVerdict: 'valid' });
  assert.equal(linkFacts({ verdict: 'kernel drops', latenessP99Ms: null }), { linkVerdict: 'kernel drops' });
  assert.equal(linkFacts({ verdict: 'unverified', latenessP99Ms: 3 }), { linkLatenessP99Ms: 3 });
  assert.match(judgeRealtimeRun({ wallS: 1, ...linkFacts({ verdict: 'unverified', latenessP99Ms: 3 }) }).reasons.join(), /lateness p99 3\.00 ms \(bound 2 ms\)/);
  assert.match(judgeRealtimeRun({ wallS: 1, ...linkFacts(undefined) }).reasons.join(), /no summary/);
  const held = linkFacts({ verdict: 'valid', latenessP99Ms: null, traceClock: { start: 'first-rtp', startedAtMs: 9000, heldToEnd: true } });
  assert.equal(judgeRealtimeRun({ wallS: 1, ...held }).reasons, ["the emulated link's trace never started: no media packet reached it"]);
});

test('linkshell\'s summary is read from its --summary-json file; a missing or foreign file gives none', () => {
  const dir = mkdtempSync(join(tmpdir(), 'validity-test-'));
  try {
    const file = join(dir, 'linkshell.json');
    writeFileSync(file, JSON.stringify({ verdict: 'valid', latenessP99Ms: 0.5, traceClock: { start: 'first-rtp', startedAtMs: 12, heldToEnd: false, passedUnemulated: [] } }));
    assert.equal(readLinkshellSummary(file)?.latenessP99Ms, 0.5);
    writeFileSync(file, '{"rows": []}');
    assert.is(readLinkshellSummary(file), undefined);
    assert.is(readLinkshellSummary(join(dir, 'missing.json')), undefined);
    // A call's arguments remove an earlier run's document: a linkshell that does not end cleanly leaves none to be misread.
    writeFileSync(file, JSON.stringify({ verdict: 'valid', latenessP99Ms: 0.5 }));
    assert.equal(callLinkshellArgs('first-rtp', file), ['--trace-clock-start', 'first-rtp', '--summary-json', file]);
    assert.is(readLinkshellSummary(file), undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
