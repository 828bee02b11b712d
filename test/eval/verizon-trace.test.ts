// salsify eval on the Verizon presets with and without Verizon-LTE-driving:
// the store never gives a stand-in run for a real-trace run or the reverse,
// and findings.json, the printed findings and the report say which trace ran.
// The "Verizon-LTE-driving" here is a copy of the stand-in's own bytes under
// the real trace's name: the presets find the trace by name, and the store
// must tell the two runs apart even when the files' contents are the same.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { MAHIMAHI_TRACE_DIRS } from '../../src/link-emu/trace-files.ts';
import { requires } from '../helpers/requires.ts';
import { runEval, SHARED_TRACES } from './helpers.ts';

/** Whether a Mahimahi trace directory holds the real trace (then the lookup finds it whatever LINKSHELL_TRACES says). */
function holdsVerizon(dir: string): boolean {
  try {
    return readdirSync(dir).includes('Verizon-LTE-driving.down');
  } catch {
    return false;
  }
}
const installed = MAHIMAHI_TRACE_DIRS.find(holdsVerizon);
const test = requires([], { mahimahi: installed === undefined ? undefined : `${installed} holds Verizon-LTE-driving, so the stand-in cannot be run here` });

const dir = mkdtempSync(join(tmpdir(), 'eval-verizon-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));
const real = join(dir, 'traces');
mkdirSync(real);
for (const end of ['down', 'up']) copyFileSync(join(SHARED_TRACES, `Verizon-LTE-short.${end}`), join(real, `Verizon-LTE-driving.${end}`));
const out = join(dir, 'out');
// One short run: the window's first second (62 to 63 s of the trace).
const ARGS = ['--scenarios', 'verizon-lte', '--schemes', 'salsify-1', '--measure-for', '1', '--jobs', '1', '--out', out];

interface FindingsJson {
  traces: { scenario: string; trace: string; standInFor?: string; label: string }[];
  agreement: { standInRows: string[]; rows: string[] };
}
const findings = () => JSON.parse(readFileSync(join(out, 'findings.json'), 'utf8')) as FindingsJson;
const report = () => readFileSync(join(out, 'report.html'), 'utf8');
const downlinks = () => (JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as { key: { config: { downlink: string } } }[]).map((r) => r.key.config.downlink);
const stored = () => readdirSync(join(out, 'store')).filter((f) => f.endsWith('.json')).length;

test('without Verizon-LTE-driving: the stand-in runs, and the findings and the report say so', async () => {
  const r = await runEval(ARGS, undefined, { LINKSHELL_TRACES: SHARED_TRACES });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stderr, /0 already in the store, 1 to run/);
  assert.equal(downlinks(), ['Verizon-LTE-short.down']);
  assert.equal(findings().traces, [{ scenario: 'verizon-lte', trace: 'Verizon-LTE-short', label: 'Verizon-LTE-driving (stand-in: Verizon-LTE-short)', standInFor: 'Verizon-LTE-driving' }]);
  assert.equal(findings().agreement.standInRows, ['verizon-lte/salsify-1']);
  assert.match(r.stdout, /traces run: verizon-lte Verizon-LTE-short \(stand-in for Verizon-LTE-driving\)/);
  assert.match(r.stdout, /\(1 of the 1 rows ran a stand-in trace: verizon-lte\/salsify-1\)/);
  assert.match(report(), /verizon-lte: Verizon-LTE-driving \(stand-in: Verizon-LTE-short\)/);
});

test('with LINKSHELL_TRACES=DIR holding Verizon-LTE-driving: a new run (not the stored stand-in run), labelled as the paper\'s trace', async () => {
  const r = await runEval(ARGS, undefined, { LINKSHELL_TRACES: real });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stderr, /0 already in the store, 1 to run/);
  assert.is(stored(), 2);
  assert.equal(downlinks(), ['Verizon-LTE-driving.down']);
  assert.equal(findings().traces, [{ scenario: 'verizon-lte', trace: 'Verizon-LTE-driving', label: 'Verizon-LTE-driving' }]);
  assert.equal(findings().agreement.standInRows, []);
  assert.match(r.stdout, /traces run: verizon-lte Verizon-LTE-driving\):/);
  assert.not.match(r.stdout, /stand-in/);
  assert.not.match(report(), /stand-in/);
});

test('each trace then finds its own stored run, and only its own', async () => {
  for (const [traces, downlink] of [[SHARED_TRACES, 'Verizon-LTE-short.down'], [real, 'Verizon-LTE-driving.down']] as const) {
    const r = await runEval(ARGS, undefined, { LINKSHELL_TRACES: traces });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stderr, /1 already in the store, 0 to run/);
    assert.equal(downlinks(), [downlink]);
  }
  assert.is(stored(), 2);
});

test.run();
