// Work for a Slurm cluster: `salsify eval ... --emit slurm DIR` writes the run
// list (DIR/runs.json: the plan and every run with its config and hash) and a
// job-array script (DIR/eval.sbatch: one array task per run, each running
// `salsify eval --run-task DIR INDEX`, which writes its result into the
// hash-keyed store DIR/store on the shared filesystem, atomically);
// `salsify eval --collect DIR` then builds the tables, plots and report from
// the store. No scheduler of our own: Slurm schedules, retries and accounts.
import { accessSync, constants, readFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { toolkitError, unreadableFile } from '../common/errors.ts';
import { makeResultsDirectory, writeResultsFile } from '../results/writer.ts';
import { jsonText } from '../results/json.ts';
import type { EvalPlan, EvalRun } from './run-list.ts';
import { shellWord } from './run-list.ts';
import { makeStore } from './store.ts';

export interface RunListFile {
  readonly plan: EvalPlan;
  readonly runs: readonly EvalRun[];
}

export const RUN_LIST_FILE = 'runs.json';
export const SBATCH_FILE = 'eval.sbatch';

/** The first `name` on PATH that is an executable file, or undefined. */
export function onPath(name: string, path = process.env.PATH ?? ''): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** The job-array script: one task per run; paths absolute, so it can be submitted from anywhere on the shared filesystem. */
export function sbatchScript(dir: string, count: number, env: Record<string, string | undefined> = process.env): string {
  const abs = resolve(dir);
  const traces = env.LINKSHELL_TRACES ? `export LINKSHELL_TRACES=${shellWord(resolve(env.LINKSHELL_TRACES))}\n` : '';
  return `#!/bin/bash
# salsify eval: ${count} runs, one array task each (written by salsify eval --emit slurm).
# Submit with: sbatch ${shellWord(join(abs, SBATCH_FILE))}   then, when the array is done:
#   salsify eval --collect ${shellWord(abs)}
#SBATCH --job-name=salsify-eval
#SBATCH --array=0-${count - 1}
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1
#SBATCH --output=${join(abs, 'logs', '%A_%a.out')}
set -euo pipefail
${traces}cd ${shellWord(REPO)}
exec ${shellWord(process.execPath)} ${shellWord(join(REPO, 'bin', 'salsify.js'))} eval --run-task ${shellWord(abs)} "$SLURM_ARRAY_TASK_ID"
`;
}

/** Writes DIR/runs.json, DIR/eval.sbatch and the store and log directories; refuses (exit 2) without sbatch on PATH. */
export function emitSlurm(dir: string, plan: EvalPlan, runs: readonly EvalRun[]): { script: string; runList: string } {
  if (onPath('sbatch') === undefined) {
    throw toolkitError('ERR_BAD_ARGUMENT', '--emit slurm: sbatch is not on PATH, so this machine cannot submit to Slurm; run it on a Slurm login node, or run the eval here without --emit');
  }
  makeResultsDirectory(dir, '--emit slurm');
  makeResultsDirectory(join(dir, 'logs'), '--emit slurm');
  makeStore(dir);
  const runList = join(dir, RUN_LIST_FILE);
  const script = join(dir, SBATCH_FILE);
  writeResultsFile(runList, jsonText({ plan, runs } satisfies RunListFile));
  writeResultsFile(script, sbatchScript(dir, runs.length));
  return { script, runList };
}

export function readRunList(dir: string): RunListFile {
  const path = join(dir, RUN_LIST_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw unreadableFile(path, error);
  }
  try {
    const list = JSON.parse(text) as RunListFile;
    if (!Array.isArray(list.runs) || typeof list.plan !== 'object') throw new Error('no "plan" and "runs"');
    return list;
  } catch (error) {
    throw toolkitError('ERR_BAD_INPUT', `${path}: not a run list written by salsify eval --emit slurm (${(error as Error).message})`);
  }
}
