// salsify eval --include DIR: a salsify webrtc run's summary.json (the results
// pipeline's JSON, as src/webrtc/bench.ts writes it) joins the table, under
// its scenario (by its video trace's name) with the paper's WebRTC row, and
// the scenario's plot; a file that is not one is one line naming it, exit 2.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { scenarioOfTrace } from '../../src/eval/include.ts';
import { runEval } from './helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'eval-include-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

const call = join(dir, 'call');
mkdirSync(call);
// The fields bench.ts writes that --include reads (a call's figures, with the nulls JSON has for NaN).
writeFileSync(join(call, 'summary.json'), JSON.stringify({
  label: 'webrtc (Chromium 156)',
  config: { browser: 'Chrome/156.0.8078.114', videoTrace: '/data/traces/0.57mbps-poisson.down', feedbackTrace: '/data/traces/0.57mbps-poisson.up', durationS: 60 },
  counters: {}, bytesSent: 10304674, link: null, endMs: 62000,
  summary: {
    signalDelayMs: { mean: 230.5, p5: 110.7, p95: 348.9 }, ssimDb: { mean: 12.87, p5: 11.73, p95: 14.53 },
    framesCaptured: 2972, framesSent: 2914, framesShown: 2744, framesNeverShown: 170, framesLost: 0, framesSkipped: 58,
    framesSuperseded: 0, framesNotCaughtUp: 0, bytesSent: 10304674, linkUtilization: null,
  },
  browser: 'Chrome/156.0.8078.114',
}));

const marks = (svg: string, name: string) => {
  const m = new RegExp(`<g class="mark-[a-z]+ role-mark ${name}_marks"[^>]*?(/>|>(.*?)</g>)`, 's').exec(svg);
  return m ? ((m[2] ?? '').match(/<path /g) ?? []).length : -1;
};

test("a trace's scenario is the preset whose downlink has its name", () => {
  assert.is(scenarioOfTrace('/x/ATT-LTE-driving.down'), 'att-lte');
  // verizon-lte runs Verizon-LTE-driving where the trace lookup finds it, else the stand-in: a call on either is of that scenario.
  assert.is(scenarioOfTrace('Verizon-LTE-short.down'), 'verizon-lte');
  assert.is(scenarioOfTrace('/usr/share/mahimahi/traces/Verizon-LTE-driving.down'), 'verizon-lte');
  assert.is(scenarioOfTrace('const-12.trace'), null);
});

test('--include DIR: the call in the table beside the paper\'s WebRTC row, and in its scenario\'s plot', async () => {
  const out = join(dir, 'out');
  const r = await runEval(['--scenarios', 'wifi', '--schemes', 'oracle', '--measure-from', '10', '--measure-for', '1', '--include', call, '--out', out, '--wide']);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /│ wifi webrtc \(Chromium 156\) +│ +230\.5 │ +110\.7 │ +348\.9 │ +12\.87 /);
  assert.match(r.stdout, /│ wifi WebRTC \(paper\) +│/);
  // What differs from the simulator's rows beside it is said under the table and in the report.
  assert.match(r.stdout, /- note: the WebRTC calls ran for their own --duration over linkshell, which carries only the call: not the presets' 702 s window, nor their other traffic on the downlink\n/);
  const svg = readFileSync(join(out, 'plots', 'scenario-wifi.svg'), 'utf8');
  assert.is(marks(svg, 'ours'), 1, 'the call');
  assert.is(marks(svg, 'paper'), 1, "the paper's WebRTC point");
  assert.is(marks(svg, 'oracle'), 1);
  assert.match(readFileSync(join(out, 'report.html'), 'utf8'), /1 WebRTC call included \([^)]*; the WebRTC calls ran for their own --duration over linkshell/);
  // results.csv names each run's other traffic (the preset's).
  const [head, row] = readFileSync(join(out, 'results.csv'), 'utf8').split('\n');
  assert.match(head!, /,overhead_bytes,downlink_other_traffic,/);
  assert.match(row!, /,42,"4000,100",/);
});

test('--include of an invalid call marks its row with the verdict\'s reasons; a malformed validity is refused', async () => {
  const starved = join(dir, 'starved');
  mkdirSync(starved);
  const json = JSON.parse(readFileSync(join(call, 'summary.json'), 'utf8'));
  writeFileSync(join(starved, 'summary.json'), JSON.stringify({ ...json, validity: { verdict: 'invalid', reasons: ['CPU pressure: some task waited for a CPU 40.0 % of the time (bound 10.0 %)'], figures: {} } }));
  const r = await runEval(['--scenarios', 'wifi', '--schemes', 'oracle', '--measure-from', '10', '--measure-for', '1', '--include', starved, '--out', join(dir, 'o4'), '--wide']);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /│ wifi webrtc \(Chromium 156\) !/);
  assert.match(r.stdout, /! invalid: wifi webrtc \(Chromium 156\): real time: CPU pressure: some task waited for a CPU 40\.0 %/);
  writeFileSync(join(starved, 'summary.json'), JSON.stringify({ ...json, validity: { verdict: 'maybe', reasons: [] } }));
  const bad = await runEval(['--scenarios', 'wifi', '--schemes', 'oracle', '--include', starved, '--out', join(dir, 'o5')]);
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /field "validity" must be/);
});

test('--include of a directory without a webrtc summary: one line naming the file and field, exit 2', async () => {
  const wrong = join(dir, 'wrong');
  mkdirSync(wrong);
  writeFileSync(join(wrong, 'summary.json'), JSON.stringify({ label: 'salsify-1', config: {}, summary: {} }));
  const r = await runEval(['--scenarios', 'att-lte', '--schemes', 'oracle', '--include', wrong, '--out', join(dir, 'o2')]);
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /^salsify eval: [^\n]*wrong\/summary\.json: field "label" must be "webrtc \(\.\.\.\)", got "salsify-1" \(expected the summary\.json of a salsify webrtc run\)\n$/);
  const missing = await runEval(['--include', join(dir, 'nothing'), '--out', join(dir, 'o3')]);
  assert.is(missing.code, 2);
  assert.match(missing.stderr, /nothing\/summary\.json/);
});

test.run();
