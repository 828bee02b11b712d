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

/** What the job asks Slurm for, beyond one CPU per task (each absent: the site's default). */
export interface SlurmRequest {
  /** Wall-clock limit per task, in Slurm's forms: MINUTES, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS. */
  readonly time?: string;
  /** Memory per node (per task here): a number of megabytes, or with a unit suffix K, M, G or T. */
  readonly mem?: string;
  /** The partition (or several, joined by commas). */
  readonly partition?: string;
  /** At most this many array tasks run at once (--array=0-N%T). */
  readonly arrayThrottle?: number;
}

export const SLURM_TIME = /^(\d+|\d+:\d{1,2}|\d+:\d{1,2}:\d{1,2}|\d+-\d{1,2}|\d+-\d{1,2}:\d{1,2}|\d+-\d{1,2}:\d{1,2}:\d{1,2})$/;
export const SLURM_MEM = /^\d+[KMGT]?$/;
export const SLURM_PARTITION = /^[A-Za-z0-9_.-]+(,[A-Za-z0-9_.-]+)*$/;

/**
 * A value on an #SBATCH line, as sbatch reads it (src/sbatch/opt.c, _get_argument): double quotes
 * group, a backslash escapes the next character; so every value is quoted and " and \ escaped.
 */
export function sbatchWord(text: string): string {
  return `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** A directory in a Slurm filename pattern (--output): "%" is literal only when doubled. */
function literalInPattern(path: string): string {
  return path.replace(/%/g, '%%');
}

/** The job-array script: one task per run; paths absolute, so it can be submitted from anywhere on the shared filesystem. */
export function sbatchScript(dir: string, count: number, request: SlurmRequest = {}, env: Record<string, string | undefined> = process.env): string {
  const abs = resolve(dir);
  const traces = env.LINKSHELL_TRACES ? `export LINKSHELL_TRACES=${shellWord(resolve(env.LINKSHELL_TRACES))}\n` : '';
  const throttle = request.arrayThrottle === undefined ? '' : `%${request.arrayThrottle}`;
  const asked = [
    request.time === undefined ? '' : `#SBATCH --time=${sbatchWord(request.time)}\n`,
    request.mem === undefined ? '' : `#SBATCH --mem=${sbatchWord(request.mem)}\n`,
    request.partition === undefined ? '' : `#SBATCH --partition=${sbatchWord(request.partition)}\n`,
  ].join('');
  return `#!/bin/bash
# salsify eval: ${count} runs, one array task each (written by salsify eval --emit slurm).
# Submit with: sbatch ${shellWord(join(abs, SBATCH_FILE))}   then, when the array is done:
#   salsify eval --collect ${shellWord(abs)}
#SBATCH --job-name=salsify-eval
#SBATCH --array=0-${count - 1}${throttle}
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1
${asked}#SBATCH --output=${sbatchWord(join(literalInPattern(abs), 'logs', '%A_%a.out'))}
set -euo pipefail
${traces}cd ${shellWord(REPO)}
exec ${shellWord(process.execPath)} ${shellWord(join(REPO, 'bin', 'salsify.js'))} eval --run-task ${shellWord(abs)} "$SLURM_ARRAY_TASK_ID"
`;
}

/** Writes DIR/runs.json, DIR/eval.sbatch and the store and log directories; refuses (exit 2) without sbatch on PATH. */
export function emitSlurm(dir: string, plan: EvalPlan, runs: readonly EvalRun[], request: SlurmRequest = {}): { script: string; runList: string } {
  if (onPath('sbatch') === undefined) {
    throw toolkitError('ERR_BAD_ARGUMENT', '--emit slurm: sbatch is not on PATH, so this machine cannot submit to Slurm; run it on a Slurm login node, or run the eval here without --emit');
  }
  makeResultsDirectory(dir, '--emit slurm');
  makeResultsDirectory(join(dir, 'logs'), '--emit slurm');
  makeStore(dir);
  const runList = join(dir, RUN_LIST_FILE);
  const script = join(dir, SBATCH_FILE);
  writeResultsFile(runList, jsonText({ plan, runs } satisfies RunListFile));
  writeResultsFile(script, sbatchScript(dir, runs.length, request));
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
