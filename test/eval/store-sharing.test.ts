// salsify eval's store shared and damaged: a corrupt entry is run again with
// one warning line (it stopped the eval); two evals on one --out compute each
// run once between them (per-run lock files; a dead holder's lock is taken
// over); and a SIGKILLed eval's workers die with it instead of running on.
// test-runner: slow
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { lockPath, tryLockRun, unlockRun } from '../../src/eval/run-lock.ts';
import { HANG_BOUND_MS } from '../helpers/bounds.ts';
import { processesMentioning } from '../helpers/processes.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { filesOf, runEval, startEval, withoutProvenance } from './helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'eval-store-sharing-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

// wifi, the cheapest scenario to simulate, over its first second: the store's workings, not the figures.
const MATRIX = ['--scenarios', 'wifi', '--schemes', 'salsify-1,salsify-2', '--seeds', '2', '--measure-from', '0', '--measure-for', '1'];
const storeFiles = (out: string) => readdirSync(join(out, 'store')).sort();

test('a corrupt store entry is run again with one warning line, and the outputs are as if it never was', async () => {
  const out = join(dir, 'corrupt');
  const first = await runEval([...MATRIX, '--jobs', '2', '--out', out]);
  assert.is(first.code, 0, first.stderr);
  const before = filesOf(out);
  const [victim, other] = storeFiles(out);
  writeFileSync(join(out, 'store', victim!), readFileSync(join(out, 'store', victim!), 'utf8').slice(0, 100));
  writeFileSync(join(out, 'store', other!), JSON.stringify({ hash: 'not-this-one' }));
  const again = await runEval([...MATRIX, '--jobs', '2', '--out', out]);
  assert.is(again.code, 0, again.stderr);
  const warnings = again.stderr.split('\n').filter((l) => l.includes('warning'));
  assert.is(warnings.length, 2, again.stderr);
  assert.match(warnings.join('\n'), new RegExp(`^salsify eval: warning: .*store/${victim}: not a stored run \\(.*\\); running it again$`, 'm'));
  assert.match(again.stderr, /4 runs: 2 already in the store, 2 to run/);
  const after = filesOf(out);
  assert.equal([...after.keys()], [...before.keys()]);
  // Every byte but the report's provenance (when and where it was made).
  for (const [name, bytes] of before) assert.ok(withoutProvenance(name, after.get(name)!).equals(withoutProvenance(name, bytes)), `${name} differs`);
});

test('run locks: taken exclusively, refused while a live process holds one, taken over from a dead one', () => {
  const store = join(dir, 'locks', 'store');
  mkdirSync(store, { recursive: true });
  const locks = join(dir, 'locks');
  assert.ok(tryLockRun(locks, 'a'));
  assert.ok(tryLockRun(locks, 'a'), 'this process holds it already');
  assert.is(readFileSync(lockPath(locks, 'a'), 'utf8'), `${process.pid}@${hostname()}\n`);
  unlockRun(locks, 'a');
  assert.equal(readdirSync(store), []);
  // A live holder: the test runner's parent. Another host: cannot be checked, so it is live.
  writeFileSync(lockPath(locks, 'b'), `${process.ppid}@${hostname()}\n`);
  assert.not.ok(tryLockRun(locks, 'b'));
  writeFileSync(lockPath(locks, 'c'), '1@another-host\n');
  assert.not.ok(tryLockRun(locks, 'c'));
  // A dead holder: a process that has exited.
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
  writeFileSync(lockPath(locks, 'd'), `${dead}@${hostname()}\n`);
  assert.ok(tryLockRun(locks, 'd'), 'a stale lock is taken over');
  assert.is(readFileSync(lockPath(locks, 'd'), 'utf8'), `${process.pid}@${hostname()}\n`);
  unlockRun(locks, 'b');
  assert.ok(readdirSync(store).includes('b.lock'), "another's lock is not removed");
});

test('two evals started together on one --out compute each run once between them, and both write the same outputs', async () => {
  // Runs of 24 s of video, so that the second eval starts while the first still has runs to do.
  const MATRIX = ['--scenarios', 'wifi', '--schemes', 'salsify-1,salsify-2', '--seeds', '2', '--measure-from', '0', '--measure-for', '20'];
  const out = join(dir, 'shared');
  const reference = join(dir, 'alone');
  const a = startEval([...MATRIX, '--jobs', '1', '--out', out]);
  // The second starts once the first has begun its runs.
  await waitFor(() => /4 runs: /.test(a.stderr()), HANG_BOUND_MS, 'the first eval to begin');
  const b = startEval([...MATRIX, '--jobs', '1', '--out', out]);
  const [ra, rb] = await Promise.all([a.done, b.done]);
  assert.is(ra.code, 0, ra.stderr);
  assert.is(rb.code, 0, rb.stderr);
  // A run the other eval stored meanwhile is said so and not counted as done here.
  const computed = (stderr: string) => (stderr.match(/^\[\d+\/\d+\] .* done/gm) ?? []).length;
  assert.is(computed(ra.stderr) + computed(rb.stderr), 4, `each run once:\n${ra.stderr}\n${rb.stderr}`);
  assert.ok(storeFiles(out).every((f) => /^[0-9a-f]{32}\.json$/.test(f)), `no lock left: ${storeFiles(out).join(' ')}`);
  const alone = await runEval([...MATRIX, '--jobs', '2', '--out', reference]);
  assert.is(alone.code, 0, alone.stderr);
  const ours = filesOf(out);
  for (const [name, bytes] of filesOf(reference)) assert.ok(ours.has(name) && withoutProvenance(name, ours.get(name)!).equals(withoutProvenance(name, bytes)), `${name} differs`);
});

/** The pids of processes whose parent is `pid` and whose command line mentions `text`. */
function childrenOf(pid: number, text: string): number[] {
  return processesMentioning(text).filter((p) => {
    try {
      return Number(readFileSync(`/proc/${p}/stat`, 'utf8').replace(/^.*\) /, '').split(' ')[1]) === pid;
    } catch {
      return false;
    }
  });
}

test('SIGKILL of salsify eval: its workers die with it, mid-run, and store nothing', async () => {
  const out = join(dir, 'killed');
  // Long runs (262 s of video each) so that none finishes before the kill, which follows their start at once.
  const { child, done, stderr } = startEval(['--scenarios', 'wifi', '--schemes', 'salsify-1,salsify-2', '--measure-for', '200', '--jobs', '2', '--out', out]);
  const running = () => {
    if (child.exitCode !== null) throw new Error(`salsify eval ended early (${child.exitCode}): ${stderr()}`);
    return true;
  };
  let workers: number[] = [];
  await waitFor(() => running() && (workers = childrenOf(child.pid!, 'eval --worker')).length === 2, HANG_BOUND_MS, 'two workers');
  // Both hold a run: their lock files are there.
  await waitFor(() => running() && readdirSync(join(out, 'store')).filter((f) => f.endsWith('.lock')).length === 2, HANG_BOUND_MS, 'both runs to be given out');
  child.kill('SIGKILL');
  await done;
  await waitFor(() => workers.every((p) => !processesMentioning('eval --worker').includes(p)), HANG_BOUND_MS, `workers ${workers.join(', ')} to end`);
  assert.equal(storeFiles(out).filter((f) => f.endsWith('.json')), [], 'no run was finished by an orphan');
});

test.run();
