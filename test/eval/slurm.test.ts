// salsify eval on Slurm, for real: a single-node Slurm on localhost
// (slurm-cluster.ts) runs a 4-run matrix emitted with --emit slurm as one
// array job; --collect builds the outputs from its store, which are
// byte-identical to the same matrix run locally; the directory's name has
// spaces, quotes and a "%" (every path in the script and the printed hints
// quoted), and the job asks for --time, --partition and --array-throttle.
// Without sbatch on PATH, --emit slurm is one clear line and exit status 2.
// test-runner: slow
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { filesOf, runEval, withoutProvenance } from './helpers.ts';
import { shellWord } from '../../src/eval/run-list.ts';
import { sbatchScript, sbatchWord } from '../../src/eval/slurm.ts';
import { cannotRunSlurm, startSlurm, type SlurmCluster } from './slurm-cluster.ts';
import { requires } from '../helpers/requires.ts';
import { HANG_BOUND_MS } from '../helpers/bounds.ts';

const dir = mkdtempSync(join(tmpdir(), 'eval-slurm-test-'));
const MATRIX = ['--scenarios', 'wifi', '--schemes', 'salsify-1,oracle', '--seeds', '2', '--measure-from', '0', '--measure-for', '1'];
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

test('the script quotes every path as sbatch and bash read them; --time, --mem, --partition, --array-throttle; bad values refused', async () => {
  assert.is(sbatchWord(`a "b" c\\d`), `"a \\"b\\" c\\\\d"`);
  const script = sbatchScript(`/x/it's "here"`, 3, { time: '1-00:00:00', mem: '4G', partition: 'short,long', arrayThrottle: 8 }, { LINKSHELL_TRACES: '/t t' });
  assert.match(script, /^#SBATCH --array=0-2%8\n#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n#SBATCH --time="1-00:00:00"\n#SBATCH --mem="4G"\n#SBATCH --partition="short,long"\n#SBATCH --output="\/x\/it's \\"here\\"\/logs\/%A_%a.out"$/m);
  assert.match(script, /^export LINKSHELL_TRACES='\/t t'$/m);
  assert.match(script, /eval --run-task '\/x\/it'\\''s "here"' "\$SLURM_ARRAY_TASK_ID"\n$/);
  for (const [args, message] of [
    [['--time', '1h'], /--time must be MINUTES, HH:MM:SS or D-HH:MM:SS/],
    [['--mem', '4GB'], /--mem must be megabytes, or a number with K, M, G or T/],
    [['--partition', 'a b'], /--partition must be a partition name/],
    [['--array-throttle', '0'], /--array-throttle must be an integer from 1/],
  ] as const) {
    const r = await runEval([...MATRIX, '--emit', 'slurm', join(dir, 'bad'), ...args], HANG_BOUND_MS, { PATH: '/nonexistent' });
    assert.is(r.code, 2, r.stderr);
    assert.match(r.stderr, message);
    assert.is(r.stderr.split('\n').length, 2, r.stderr);
  }
  const local = await runEval([...MATRIX, '--time', '10', '--out', join(dir, 'bad')], HANG_BOUND_MS);
  assert.is(local.code, 2, local.stderr);
  assert.match(local.stderr, /^salsify eval: --time goes with --emit slurm DIR/);
});

requires(['munge', 'slurm'], { root: cannotRunSlurm() })('a 4-run matrix as a Slurm array job: collected results identical to the same matrix run locally', async () => {
  cluster = await startSlurm();
  const emitted = join(dir, `emitted "it's" %A here`);
  const env = { ...cluster.env };
  const emit = await runEval([...MATRIX, '--emit', 'slurm', emitted, '--time', '0:30:00', '--partition', 'evaltest', '--array-throttle', '2'], HANG_BOUND_MS, env);
  assert.is(emit.code, 0, emit.stderr);
  assert.match(emit.stdout, /\(4 runs\)/);
  assert.ok(emit.stdout.includes(`submit: sbatch ${shellWord(join(emitted, 'eval.sbatch'))}\n`), emit.stdout);
  assert.ok(emit.stdout.includes(`then:   salsify eval --collect ${shellWord(emitted)}\n`), emit.stdout);
  const script = readFileSync(join(emitted, 'eval.sbatch'), 'utf8');
  assert.match(script, /^#SBATCH --array=0-3%2$/m);
  assert.match(script, /^#SBATCH --time="0:30:00"$/m);
  assert.match(script, /^#SBATCH --partition="evaltest"$/m);
  assert.ok(script.includes(`#SBATCH --output="${dir}/emitted \\"it's\\" %%A here/logs/%A_%a.out"\n`), script);

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
  const logs = join(emitted, 'logs');
  assert.is(collected.code, 0, `${collected.stderr}\n${spawnSync('sh', ['-c', `cat ${shellWord(logs)}/*`], { encoding: 'utf8' }).stdout}`);
  // The tasks' logs went where --output says, in the directory with quotes in its name.
  assert.is(readdirSync(logs).filter((f) => new RegExp(`^${job}_[0-3]\\.out$`).test(f)).length, 4, readdirSync(logs).join(' '));

  const local = join(dir, 'local');
  const here = await runEval([...MATRIX, '--jobs', '2', '--out', local]);
  assert.is(here.code, 0, here.stderr);
  const ours = filesOf(local);
  const theirs = filesOf(emitted);
  assert.is([...ours.keys()].filter((f) => f.startsWith('store/')).length, 4);
  // Every byte but the report's provenance (how, where and when each was made).
  for (const [name, bytes] of ours) assert.ok(theirs.has(name) && withoutProvenance(name, theirs.get(name)!).equals(withoutProvenance(name, bytes)), `${name} differs between the Slurm and the local eval`);
  assert.is(collected.stdout, here.stdout.replaceAll(local, emitted));
});

test.run();
