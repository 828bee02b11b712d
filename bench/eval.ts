// The whole evaluation's wall time on this machine, and the speed-up of
// --jobs 2 over --jobs 1, measured in one command: `salsify eval` over the
// paper's scenarios (every preset) x every scheme, model codec, paper encode
// timing, run twice from empty stores (--jobs 1, then --jobs 2), each in its
// own directory; the two results.json must be byte-identical.
//
//   nice -n 19 node --import tsx bench/eval.ts [--scenarios all|LIST] [--schemes all|LIST] [--measure-for S]
//       [--encode-timing paper|libvpx] [--keep DIR] [--plots DIR]
//
// --keep DIR keeps the --jobs 2 eval's output (report, results, plots) in DIR;
// --plots DIR copies its per-scenario plots there (the README's images:
// --plots docs/eval writes docs/eval/scenario-NAME.svg).
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { option, refuseUnknownOptions } from './options.ts';

refuseUnknownOptions(['encode-timing', 'keep', 'measure-for', 'plots', 'scenarios', 'schemes']);

const root = fileURLToPath(new URL('..', import.meta.url));
const scenarios = option('scenarios', 'all');
const schemes = option('schemes', 'all');
const measureFor = option('measure-for', '');
const timing = option('encode-timing', 'paper');
const keep = option('keep', '');
const plots = option('plots', '');
const env = { ...process.env, LINKSHELL_TRACES: process.env.LINKSHELL_TRACES ?? join(root, '..', 'shared', 'traces') };

const args = ['--scenarios', scenarios, '--schemes', schemes, '--codec', 'model', '--encode-timing', timing, ...(measureFor ? ['--measure-for', measureFor] : [])];
const work = mkdtempSync(join(tmpdir(), 'bench-eval-'));

function evalOnce(jobs: number): Promise<{ wallS: number; out: string; stdout: string }> {
  const out = join(work, `jobs-${jobs}`);
  const started = performance.now();
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [join(root, 'bin', 'salsify.js'), 'eval', ...args, '--jobs', String(jobs), '--out', out], { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (c) => (stdout += String(c)));
    child.on('close', (code) => (code === 0 ? done({ wallS: (performance.now() - started) / 1000, out, stdout }) : fail(new Error(`salsify eval --jobs ${jobs} exited with ${code}`))));
  });
}

try {
  console.log(`salsify eval ${args.join(' ')}: --jobs 1, then --jobs 2, from empty stores`);
  const one = await evalOnce(1);
  console.log(`--jobs 1: ${one.wallS.toFixed(1)} s`);
  const two = await evalOnce(2);
  console.log(`--jobs 2: ${two.wallS.toFixed(1)} s`);
  const same = readFileSync(join(one.out, 'results.json')).equals(readFileSync(join(two.out, 'results.json')));
  const runs = (JSON.parse(readFileSync(join(two.out, 'results.json'), 'utf8')) as unknown[]).length;
  console.log(two.stdout);
  console.log(`${runs} runs: --jobs 1 ${one.wallS.toFixed(1)} s, --jobs 2 ${two.wallS.toFixed(1)} s, speed-up ${(one.wallS / two.wallS).toFixed(2)}x; results.json identical: ${same ? 'yes' : 'NO'}`);
  if (plots) {
    mkdirSync(plots, { recursive: true });
    for (const f of readdirSync(join(two.out, 'plots')).filter((f) => f.startsWith('scenario-'))) copyFileSync(join(two.out, 'plots', f), join(plots, f));
    console.log(`copied the scenario plots to ${resolve(plots)}`);
  }
  if (keep) {
    rmSync(keep, { recursive: true, force: true });
    renameSync(two.out, keep);
    console.log(`kept the --jobs 2 eval in ${resolve(keep)}`);
  }
  if (!same) process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
