// npm test's runner (scripts/run-tests.mjs) on the fixtures of test/runner-fixtures/: files run
// in several workers at once; a failure and a worker that dies are counted as failures, the run
// goes on with a new worker and exits 1; a file marked alone runs with nothing beside it; the
// closing line counts every test; a test whose tool is missing is skipped, counted and named with
// its apt line, and its file's after hooks still clean up.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HANG_BOUND_MS } from '../helpers/bounds.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'test-runner-test-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

function runFixtures(log: string, ...args: string[]) {
  const run = spawnSync(process.execPath, ['scripts/run-tests.mjs', '--dir', 'test/runner-fixtures', '--suffix', '.fixture.ts', ...args], {
    cwd: root, encoding: 'utf8', timeout: HANG_BOUND_MS, env: { ...process.env, RUNNER_FIXTURE_LOG: log, FORCE_COLOR: '0', SALSIFY_FIREFOX: '/nonexistent/firefox-esr' },
  });
  assert.is(run.error, undefined);
  return run;
}

/** Each fixture's [start, end] in ms, from the log the fixtures append to. */
function intervals(log: string): Map<string, [number, number]> {
  const out = new Map<string, [number, number]>();
  for (const line of readFileSync(log, 'utf8').trim().split('\n')) {
    const [name, edge, ms] = line.split(' ');
    if (edge !== 'start' && edge !== 'end') continue;
    const known = out.get(name!) ?? [NaN, NaN];
    known[edge === 'start' ? 0 : 1] = Number(ms);
    out.set(name!, known);
  }
  return out;
}

test('failures and a dying worker are counted; the rest still run; alone runs alone; skips counted; exit 1', () => {
  const log = join(dir, 'all.log');
  const run = runFixtures(log, '--jobs', '3');
  assert.is(run.status, 1, run.stdout + run.stderr);
  assert.match(run.stdout, /^tests: 5 passed, 2 failed, 1 skipped$/m);
  assert.match(run.stdout, /^skipped 1 test: firefox-esr missing \(apt-get install -y firefox-esr\)$/m);
  assert.ok(readFileSync(log, 'utf8').includes('f-skips cleanup'), "the skipped file's after hook did not run");
  assert.match(run.stdout, /fixture failure/);
  assert.match(run.stdout, /c-dies\.fixture\.ts\n\s+FAIL\s+the file did not finish: its worker ended \(exit 7/);
  assert.match(run.stdout, /failed in: test\/runner-fixtures\/b-fails\.fixture\.ts, test\/runner-fixtures\/c-dies\.fixture\.ts/);
  const ran = intervals(log);
  assert.equal([...ran.keys()].sort(), ['a-passes', 'b-fails', 'c-dies', 'd-alone', 'e-passes']);
  const [aloneFrom, aloneTo] = ran.get('d-alone')!;
  for (const [name, [from, to]] of ran) {
    if (name !== 'd-alone') assert.ok(to <= aloneFrom || from >= aloneTo, `${name} ran beside the alone file`);
  }
  // Three workers at once: some of the other files overlapped.
  const others = [...ran].filter(([name]) => name !== 'd-alone').map(([, i]) => i);
  assert.ok(others.some(([from, to], i) => others.some(([f2, t2], j) => i !== j && from < t2 && f2 < to)), 'no two files ran at once');
});

test('a run of passing files exits 0; a pattern picks files; a bad --jobs is refused with status 2', () => {
  const run = runFixtures(join(dir, 'pass.log'), '--jobs=2', '(a-passes|e-passes)');
  assert.is(run.status, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /^tests: 3 passed, 0 failed, 0 skipped$/m);
  const bad = runFixtures(join(dir, 'bad.log'), '--jobs', '0');
  assert.is(bad.status, 2);
  assert.match(bad.stderr, /--jobs must be a whole number >= 1, got "0"/);
});

test.run();
