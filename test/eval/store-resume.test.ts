// salsify eval's store: Ctrl-C (SIGINT) during a run stops every worker and
// leaves only complete results; the rerun resumes from them and ends with the
// same bytes (results, plots, report, store) as an uninterrupted eval with
// another --jobs; a second rerun runs nothing.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { processesMentioning } from '../helpers/processes.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { filesOf, runEval, SALSIFY, startEval, withoutProvenance } from './helpers.ts';
import { HANG_BOUND_MS } from '../helpers/bounds.ts';

/** Those of `pids` in process group `group` (field 5 of /proc/PID/stat). */
function inGroup(group: number, pids: readonly number[]): number[] {
  return pids.filter((p) => {
    try {
      return Number(readFileSync(`/proc/${p}/stat`, 'utf8').replace(/^.*\) /, '').split(' ')[2]) === group;
    } catch {
      return false;
    }
  });
}

const dir = mkdtempSync(join(tmpdir(), 'eval-store-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

// wifi: the cheapest scenario to simulate (0.57 Mbit/s).
const MATRIX = ['--scenarios', 'wifi', '--schemes', 'salsify-1,salsify-2', '--seeds', '2', '--measure-for', '1'];
// report.html's provenance block (dates, load) is each eval's own; every other byte must agree.
const equalFiles = (a: Map<string, Buffer>, b: Map<string, Buffer>) => {
  assert.equal([...a.keys()], [...b.keys()]);
  for (const [name, bytes] of a) assert.ok(withoutProvenance(name, bytes).equals(withoutProvenance(name, b.get(name)!)), `${name} differs`);
};

test('--jobs 1: the reference eval', async () => {
  const one = await runEval([...MATRIX, '--jobs', '1', '--out', join(dir, 'one')]);
  assert.is(one.code, 0, one.stderr);
  assert.match(one.stderr, /4 runs: 0 already in the store, 4 to run on 1 worker\n/);
  const files = filesOf(join(dir, 'one'));
  assert.ok(files.has('results.json') && files.has('results.csv') && files.has('report.html'));
  assert.is([...files.keys()].filter((f) => f.startsWith('store/')).length, 4);
  // --measure-for 1: the simulation ends with the window (62 + 1 s), a drain of capture after it and a drain to arrive, not after 702 s.
  const results = JSON.parse(files.get('results.json')!.toString()) as { result: { endMs: number; window: { fromMs: number; toMs: number } } }[];
  for (const r of results) {
    assert.equal(r.result.window, { fromMs: 62_000, toMs: 63_000 });
    assert.is(r.result.endMs, 67_000);
  }
});

test('--jobs 2, stopped by SIGINT mid-run, leaves only whole results; the rerun resumes and ends with the same bytes as --jobs 1', async () => {
  const out = join(dir, 'interrupted');
  const store = join(out, 'store');
  // In a process group of its own, signalled as a whole, as Ctrl-C on a terminal does (the workers get SIGINT too).
  const run = startEval([...MATRIX, '--jobs', '2', '--out', out], {}, true);
  // Stop once the first run is done and stored, with the others running.
  await waitFor(() => /\[1\/4\] /.test(run.stderr()), HANG_BOUND_MS, 'the first finished run');
  // Its workers are found in its process group (so that the check below can fail).
  assert.ok(inGroup(run.child.pid!, processesMentioning(`${SALSIFY} eval --worker`)).length >= 1, 'the workers are in the eval\'s process group');
  process.kill(-run.child.pid!, 'SIGINT');
  const stopped = await run.done;
  assert.is(stopped.code, 130, stopped.stderr);
  assert.match(stopped.stderr, /salsify eval: interrupted; [1-3] of 4 runs are stored in .*store \(only complete ones\); run the same command again to resume\n$/);
  const left = readdirSync(store);
  assert.ok(left.length >= 1 && left.length <= 3, left.join(' '));
  for (const name of left) {
    assert.match(name, /^[0-9a-f]{32}\.json$/, 'no temporary file is left');
    JSON.parse(readFileSync(join(store, name), 'utf8'));
  }
  // This eval's workers: those of its process group (another test file's evals of this checkout may run meanwhile).
  assert.equal(inGroup(run.child.pid!, processesMentioning(`${SALSIFY} eval --worker`)), [], 'every worker ended');
  assert.not.ok(readdirSync(out).includes('results.json'), 'no results from an incomplete eval');

  const resumed = await runEval([...MATRIX, '--jobs', '2', '--out', out]);
  assert.is(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stderr, new RegExp(`4 runs: ${left.length} already in the store, ${4 - left.length} to run`));
  equalFiles(filesOf(out), filesOf(join(dir, 'one')));

  const again = await runEval([...MATRIX, '--jobs', '2', '--out', out]);
  assert.is(again.code, 0, again.stderr);
  assert.match(again.stderr, /4 runs: 4 already in the store, 0 to run/);
  equalFiles(filesOf(out), filesOf(join(dir, 'one')));
});

test.run();
