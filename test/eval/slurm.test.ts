// salsify eval on Slurm, for real: a single-node Slurm on localhost
// (slurm-cluster.ts) runs a 4-run matrix emitted with --emit slurm as one
// array job; --collect builds the outputs from its store, which are
// byte-identical to the same matrix run locally. Without sbatch on PATH,
// --emit slurm is one clear line and exit status 2.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { filesOf, runEval } from './helpers.ts';
import { cannotRunSlurm, startSlurm, type SlurmCluster } from './slurm-cluster.ts';
import { requires } from '../helpers/requires.ts';
import { HANG_BOUND_MS } from '../helpers/bounds.ts';

const dir = mkdtempSync(join(tmpdir(), 'eval-slurm-test-'));
const MATRIX = ['--scenarios', 'wifi', '--schemes', 'salsify-1,oracle', '--seeds', '2', '--measure-for', '1'];
let cluster: SlurmCluster | undefined;

test.after(async () => {
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('--emit slurm on a machine without sbatch: one line, exit 2, nothing written', async () => {
  const out = join(dir, 'no-slurm');
  const r = await runEval([...MATRIX, '--emit', 'slurm', out], HANG_BOUND_MS, { PATH: '/nonexistent' });
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /^salsify eval: --emit slurm: sbatch is not on PATH, so this machine cannot submit to Slurm; [^\n]*\n$/);
  assert.not.ok(existsSync(out));
});

requires(['munge', 'slurm'], { root: cannotRunSlurm() })('a 4-run matrix as a Slurm array job: collected results identical to the same matrix run locally', async () => {
  cluster = await startSlurm();
  const emitted = join(dir, 'emitted');
  const env = { ...cluster.env };
  const emit = await runEval([...MATRIX, '--emit', 'slurm', emitted], HANG_BOUND_MS, env);
  assert.is(emit.code, 0, emit.stderr);
  assert.match(emit.stdout, /\(4 runs\)/);
  const script = readFileSync(join(emitted, 'eval.sbatch'), 'utf8');
  assert.match(script, /^#SBATCH --array=0-3$/m);

  const submitted = cluster.run('sbatch', ['--parsable', join(emitted, 'eval.sbatch')]);
  assert.is(submitted.status, 0, submitted.stderr);
  const job = submitted.stdout.trim().split(';')[0]!;
  assert.match(job, /^\d+$/);
  const start = Date.now();
  while (cluster.run('squeue', ['-h', '-j', job]).stdout.trim() !== '') {
    if (Date.now() - start > HANG_BOUND_MS) assert.unreachable(`array job ${job} not done within ${HANG_BOUND_MS / 1000} s\n${cluster.logs()}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  const collected = await runEval(['--collect', emitted], HANG_BOUND_MS, env);
  assert.is(collected.code, 0, `${collected.stderr}\n${spawnSync('sh', ['-c', `cat ${join(emitted, 'logs')}/*`], { encoding: 'utf8' }).stdout}`);

  const local = join(dir, 'local');
  const here = await runEval([...MATRIX, '--jobs', '2', '--out', local]);
  assert.is(here.code, 0, here.stderr);
  const ours = filesOf(local);
  const theirs = filesOf(emitted);
  assert.is([...ours.keys()].filter((f) => f.startsWith('store/')).length, 4);
  for (const [name, bytes] of ours) assert.ok(theirs.get(name)?.equals(bytes), `${name} differs between the Slurm and the local eval`);
  assert.is(collected.stdout, here.stdout.replaceAll(local, emitted));
});

test.run();
