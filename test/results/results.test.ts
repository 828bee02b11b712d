// The results pipeline: display times and signal delays as the reference
// defines them, the summary, link use, validation, the table, JSON and CSV.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ssimToDb } from '../../src/codec-bridge/ssim-db.ts';
import { framesToCsv, summariesToCsv } from '../../src/results/csv.ts';
import { displayTimes, withSignalDelays, type ObservedFrame } from '../../src/results/display-times.ts';
import type { RunRecord } from '../../src/results/frame-record.ts';
import { jsonText, runToJson } from '../../src/results/json.ts';
import { LinkUseMeter, utilization } from '../../src/results/link-use.ts';
import { readFramesCsv } from '../../src/results/read-csv.ts';
import { distribution, percentile } from '../../src/results/statistics.ts';
import { summarize } from '../../src/results/summary.ts';
import { formatResultsTable } from '../../src/results/table.ts';
import { checkRun } from '../../src/results/validate.ts';
import { createRng } from '../../src/common/random.ts';
import { TraceLink } from '../../src/link-emu/link.ts';
import { createQueue } from '../../src/link-emu/queue-factory.ts';
import { parseTrace } from '../../src/link-emu/trace-parse.ts';

test('percentiles interpolate between ranks', () => {
  const s = Float64Array.from([10, 20, 30, 40, 50]);
  assert.is(percentile(s, 0), 10);
  assert.is(percentile(s, 50), 30);
  assert.is(percentile(s, 100), 50);
  assert.is(percentile(s, 5), 12);
  assert.is(percentile(s, 95), 48);
  assert.equal(distribution([1, 2, 3]), { mean: 2, p5: 1.1, p95: 2.9 });
  assert.ok(Number.isNaN(distribution([]).mean));
});

test('display times: earliest show of this or any later frame; none after the last show', () => {
  assert.equal(displayTimes([undefined, 30, undefined, 25, undefined]), [25, 25, 25, 25, undefined]);
});

/** Frames 0..5 captured every 10 ms: 0, 2 and 5 shown; 1 skipped; 3 lost; 4 arrived but never shown. */
function sampleRun(): RunRecord {
  const sent = (i: number, n: number, extra: Partial<ObservedFrame>): ObservedFrame =>
    ({ sourceIndex: i, captureMs: i * 10, frameNumber: n, sendMs: i * 10 + 2, bytes: 100, quantizer: 40, keyFrame: n === 0, firstArrivalMs: i * 10 + 5, ...extra }) as ObservedFrame;
  const observed: ObservedFrame[] = [
    sent(0, 0, { fate: 'shown', lastArrivalMs: 6, shownMs: 50, ssim: 0.9 }),
    { sourceIndex: 1, captureMs: 10, fate: 'skipped' },
    sent(2, 1, { fate: 'shown', lastArrivalMs: 26, shownMs: 70, ssim: 0.99 }),
    sent(3, 2, { fate: 'lost' }),
    sent(4, 3, { fate: 'never-shown', lastArrivalMs: 46 }),
    sent(5, 4, { fate: 'shown', lastArrivalMs: 56, shownMs: 120, ssim: 0.95 }),
  ];
  return { label: 'sample', config: { a: 1 }, counters: { b: 2 }, bytesSent: 500, link: { fromMs: 0, toMs: 60, departedBytes: 750, capacityBytes: 1500 }, endMs: 200, frames: withSignalDelays(observed, 200) };
}

test('signal delay: a skipped or lost frame counts until a later frame is shown; each fate counted', () => {
  const run = checkRun(sampleRun());
  assert.equal(run.frames.map((r) => r.signalDelayMs), [50, 60, 50, 90, 80, 70]);
  const s = summarize(run);
  assert.equal(
    [s.framesCaptured, s.framesSent, s.framesShown, s.framesNeverShown, s.framesLost, s.framesSkipped, s.framesSuperseded, s.framesNotCaughtUp],
    [6, 5, 3, 1, 1, 1, 0, 0],
  );
  assert.is(s.signalDelayMs.mean, 400 / 6);
  // SSIM averaged linearly, then converted
  assert.ok(Math.abs(s.ssimDb.mean - ssimToDb((0.9 + 0.99 + 0.95) / 3)) < 1e-9);
  assert.is(s.bytesSent, 500);
  assert.is(s.linkUtilization, 0.5);
});

test('a frame never caught up counts until the end of the run, and is counted as such', () => {
  const frames = withSignalDelays([
    { sourceIndex: 0, captureMs: 0, fate: 'shown', frameNumber: 0, sendMs: 1, bytes: 1, firstArrivalMs: 2, lastArrivalMs: 2, shownMs: 40, ssim: 0.9 },
    { sourceIndex: 1, captureMs: 10, fate: 'lost', frameNumber: 1, sendMs: 11, bytes: 1 },
    { sourceIndex: 2, captureMs: 20, fate: 'superseded' },
  ], 100);
  assert.equal(frames.map((r) => r.signalDelayMs), [40, 90, 80]);
  assert.equal(frames.map((r) => r.displayMs), [40, undefined, undefined]);
  const s = summarize(checkRun({ label: 'x', config: {}, counters: {}, bytesSent: 2, link: null, endMs: 100, frames }));
  assert.is(s.framesNotCaughtUp, 2);
  assert.is(s.signalDelayMs.mean, 70);
  assert.ok(Number.isNaN(s.linkUtilization), 'no link: utilisation unknown');
});

test('link use of a saturated link is at most 100 % in any window: a packet begun before the window counts only its bytes inside it', () => {
  // One 1504-byte opportunity per ms; 1000-byte packets always queued: most opportunities deliver a
  // packet and begin the next, which completes at the next opportunity.
  for (const [fromMs, toMs] of [[2, 3], [5, 17], [3, 1000], [1, 2000]] as const) {
    const meter = new LinkUseMeter(fromMs, toMs);
    const link = new TraceLink<null>({ trace: parseTrace('1\n', 't'), queue: createQueue<null>('infinite', '', createRng(1)), baseTimestamp: 0, events: meter });
    for (let t = 0; t < 2100; t++) for (let k = 0; k < 2; k++) link.arrive(t, 1000, null, () => {});
    link.advanceTo(2100, () => {});
    const use = meter.result();
    assert.is(use.capacityBytes, 1504 * (toMs - fromMs));
    // Saturated: every byte of every opportunity in the window carried a packet's byte.
    assert.is(use.departedBytes, use.capacityBytes, `[${fromMs}, ${toMs}): ${use.departedBytes} of ${use.capacityBytes}`);
    assert.is(utilization(use), 1);
  }
});

test('link use: departed over opportunity bytes inside [from, to) only', () => {
  const m = new LinkUseMeter(100, 200);
  m.opportunity(99, 1504); m.opportunity(100, 1504); m.opportunity(150, 1504); m.opportunity(200, 1504);
  m.departure(99, 1000); m.departure(100, 500); m.departure(199.9, 250); m.departure(200, 900);
  m.arrival(); m.drop();
  assert.equal(m.result(), { fromMs: 100, toMs: 200, departedBytes: 750, capacityBytes: 3008 });
  assert.is(utilization(m.result()), 750 / 3008);
  assert.is(utilization({ fromMs: 0, toMs: 0, departedBytes: 0, capacityBytes: 0 }), 0);
  assert.throws(() => new LinkUseMeter(5, 1), /empty or reversed/);
});

test('validation names the run, the frame and the field', () => {
  const good = sampleRun();
  const broken = (i: number, change: object) => ({ ...good, frames: good.frames.map((f, k) => (k === i ? { ...f, ...change } : f)) });
  const cases: [RunRecord, RegExp][] = [
    [broken(1, { fate: 'dropped' }), /results of sample: frame 1: field "fate" must be one of shown, never-shown, lost, skipped, superseded, got "dropped"/],
    [broken(1, { sourceIndex: 7 }), /frame 1: field "sourceIndex" must be 1/],
    [broken(0, { shownMs: undefined }), /frame 0: field "shownMs" must be set for a shown frame/],
    [broken(4, { shownMs: 60 }), /frame 4: field "shownMs" must be absent for a never-shown frame/],
    [broken(3, { lastArrivalMs: 40 }), /frame 3: field "lastArrivalMs" must be absent for a lost frame/],
    [broken(4, { lastArrivalMs: undefined }), /frame 4: field "lastArrivalMs" must be set for a never-shown frame/],
    [broken(1, { frameNumber: 9 }), /frame 1: field "frameNumber" must be absent for a skipped frame/],
    [broken(2, { ssim: 1.5 }), /frame 2: field "ssim" must be in \[-1, 1\]/],
    [broken(2, { signalDelayMs: 3 }), /frame 2: field "signalDelayMs" must be displayMs - captureMs/],
    [{ ...good, bytesSent: -1 }, /results of sample: field "bytesSent" must be a number >= 0/],
    [{ ...good, label: '' }, /field "label" must be a non-empty string/],
  ];
  for (const [run, pattern] of cases) assert.throws(() => checkRun(run), pattern, String(pattern));
  assert.is(checkRun(good), good);
});

test('CSV: one line per source frame, and one per run with every fate', () => {
  const run = sampleRun();
  const csv = framesToCsv(run.frames).trim().split('\n');
  assert.is(csv.length, 7);
  assert.is(csv[0], 'source_index,capture_ms,fate,frame_number,send_ms,bytes,quantizer,key_frame,first_arrival_ms,last_arrival_ms,shown_ms,ssim,ssim_db,display_ms,signal_delay_ms');
  assert.is(csv[1], '0,0,shown,0,2,100,40,1,5,6,50,0.9,10,50,50');
  assert.is(csv[2], '1,10,skipped,,,,,,,,,,,70,60');
  assert.is(csv[4], '3,30,lost,2,32,100,40,0,35,,,,,120,90');
  const summary = summariesToCsv([{ label: run.label, summary: summarize(run) }]).trim().split('\n');
  assert.is(summary[0], 'run,delay_mean_ms,delay_p5_ms,delay_p95_ms,ssim_mean_db,ssim_p5_db,ssim_p95_db,captured,sent,shown,never_shown,lost,skipped,superseded,not_caught_up,bytes_sent,link_utilization');
  assert.match(summary[1], /^sample,66\.666667,50,87\.5,[\d.]+,[\d.]+,[\d.]+,6,5,3,1,1,1,0,0,500,0\.5$/);
});

test('the frames CSV reads back as the same records, checked line by line', () => {
  const run = sampleRun();
  const back = readFramesCsv(framesToCsv(run.frames), 'sample.csv');
  assert.equal(back, run.frames.map((f) => Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined))));
  assert.equal(summarize(checkRun({ ...run, frames: back })), summarize(run));
  const csv = framesToCsv(run.frames).split('\n');
  const bad = (line: number, text: string) => [...csv.slice(0, line), text, ...csv.slice(line + 1)].join('\n');
  for (const [text, pattern] of [
    ['', /^x\.csv: empty/],
    ['a,b\n', /^x\.csv:1: not a frames CSV header/],
    [bad(2, csv[2].replace('skipped', 'dropped')), /^x\.csv:3: column fate must be one of shown, never-shown, lost, skipped, superseded, got "dropped"/],
    [bad(1, csv[1].replace(/^0,0,/, '0,soon,')), /^x\.csv:2: column capture_ms must be empty or a decimal number, got "soon"/],
    [bad(1, csv[1] + ',9'), /^x\.csv:2: 16 cells, expected 15/],
    [bad(1, csv[1].replace(',40,1,', ',40,yes,')), /^x\.csv:2: column key_frame must be empty, 0 or 1, got "yes"/],
    [bad(1, csv[1].replace(',100,40,', ',100.5,40,')), /^x\.csv:2: column bytes must be empty or an integer, got "100\.5"/],
  ] as const) {
    assert.throws(() => readFramesCsv(text, 'x.csv'), pattern, String(pattern));
  }
});

test('JSON and the table carry the same figures', () => {
  const run = sampleRun();
  const s = summarize(run);
  const json = JSON.parse(jsonText(runToJson(run, s, { extra: { note: 'n' } })));
  assert.equal(Object.keys(json), ['label', 'config', 'counters', 'bytesSent', 'link', 'endMs', 'summary', 'note']);
  assert.is(json.summary.framesNeverShown, 1);
  assert.is(json.frames, undefined);
  assert.is(JSON.parse(jsonText(runToJson(run, s, { frames: true }))).frames.length, 6);
  // NaN (utilisation unknown) becomes null
  assert.is(JSON.parse(jsonText(runToJson({ ...run, link: null }, summarize({ ...run, link: null })))).summary.linkUtilization, null);
  // --wide: every figure and fate, and the wall time.
  const table = formatResultsTable([{ label: 'sample', summary: s, wallMs: 1500 }], { wide: true });
  for (const head of ['never', 'lost', 'skip-', 'super-', 'link', 'wall s']) assert.match(table, head);
  assert.match(table, /sample\s*│\s*66\.7\s*│\s*50\.0\s*│\s*87\.5/);
  assert.match(table, /│\s*6\s*│\s*3\s*│\s*1\s*│\s*1\s*│\s*1\s*│\s*0\s*│\s*0\.00\s*│\s*50\.0\s*│\s*1\.50/);
});

test.run();
