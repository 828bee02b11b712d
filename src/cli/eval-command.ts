// `salsify eval`: the whole evaluation in one command. Every scenario x scheme
// x seed runs as an independent deterministic simulation on a pool of worker
// processes, each result stored under the hash of its complete configuration
// (src/eval/), so a rerun skips what is done and an interrupted eval resumes;
// then results.json, results.csv, the table beside the paper's rows, SVG plots
// and report.html. `--emit slurm DIR` writes the same run list as a Slurm job
// array instead, and `--collect DIR` builds the outputs from its store.
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { toolkitError, usageError } from '../common/errors.ts';
import { formatHelp, integerValue, durationMsValue, LIMITS, nameListValue, nameValue, noPositionals, optional, parseCommandLine, pathValue, refuseOutputsOverInputs } from '../common/validate.ts';
import { executeRun } from '../eval/execute.ts';
import { findingsText } from '../eval/findings-output.ts';
import { resultsTable, type Finished } from '../eval/outputs.ts';
import { INCLUDED_CALLS_DIFFER, readIncluded, type IncludedRun } from '../eval/include.ts';
import { PAPER_RESULTS_PATH, readPaperResults } from '../eval/paper-reference.ts';
import { runPool } from '../eval/pool.ts';
import { createProgress } from '../eval/progress.ts';
import { finishProvenance, startProvenance, type ProvenanceStart } from '../eval/provenance.ts';
import { writeReport } from '../eval/report.ts';
import { ALL_SCENARIOS, ALL_SCHEMES, buildRunList, shellWord, type EvalPlan, type EvalRun } from '../eval/run-list.ts';
import { emitSlurm, readRunList, RUN_LIST_FILE, SBATCH_FILE, SLURM_MEM, SLURM_PARTITION, SLURM_TIME, type SlurmRequest } from '../eval/slurm.ts';
import { makeStore, readStored, storeDir, writeStored } from '../eval/store.ts';
import { serveWorker } from '../eval/worker.ts';
import { makeResultsDirectory } from '../results/writer.ts';
import { CODECS } from '../salsify/open-inputs.ts';
import { CELLSIM_OVERHEAD_BYTES, PAPER_MEASURE_S, PAPER_WARMUP_S, simPreset } from '../salsify/presets.ts';
import { otherTrafficText } from '../salsify/other-traffic.ts';
import { otherTrafficOption } from './other-traffic-option.ts';
import { ENCODE_TIMINGS } from '../salsify/timing-model.ts';
import { writeStdout } from './files.ts';
import { wrapWords } from './help-names.ts';
import { WIDE_OPTION, wideHelpRow } from './table-options.ts';

const HELP_REF = 'salsify eval --help';

export const EVAL_HELP = formatHelp({
  usage: [
    'salsify eval [--scenarios LIST|all] [--schemes LIST|all] [--codec model|vp8]',
    '             [--encode-timing T] [--measure-from S] [--measure-for S]',
    '             [--downlink-other-traffic R,B|none] [--paper-rows]',
    '             [--seeds N] [--jobs N]',
    '             [--video SRC] [--include DIR]... [--out DIR]',
    'salsify eval [same options] --emit slurm DIR',
    'salsify eval --collect DIR [--include DIR]...',
  ],
  about: `Runs every scenario x scheme x seed as an independent deterministic
simulation on a pool of worker processes, each result stored in
DIR/store/HASH.json under the hash of its complete configuration (so a rerun
skips what is done, and an interrupted eval resumes), then writes
results.json, results.csv, findings.json (the paper's findings, each
holds / does not hold / not tested on these results), SVG plots (DIR/plots/)
and report.html, and prints the results beside the paper's, then the
findings (where one does not hold, docs/paper-reproduction.md says why,
by the finding's id).`,
  options: [
    ['--scenarios LIST', wrapWords(`the paper's scenarios, joined by commas: ${ALL_SCENARIOS.join(', ')}; or all (the default)`)],
    ['--schemes LIST', wrapWords(`schemes joined by commas: ${ALL_SCHEMES.join(', ')}; or all (the default)`)],
    ['--codec NAME', `${CODECS.join(' or ')} (default model)`],
    ['--video SRC', 'synthetic (the default) or a .y4m / .ivf clip'],
    ['--encode-timing T', `${ENCODE_TIMINGS.join(' or ')} (default libvpx)`],
    ['--measure-from S', "each scenario's measured window starts S seconds\ninto its trace (default: the presets' 62 s, after the\npaper's minute of warm-up); 0 for quick runs"],
    ['--measure-for S', "each scenario's measured window lasts S seconds and\nthe run ends with it (default: the presets' own\nwindow, [62, 702) s)"],
    ['--downlink-other-traffic R,B', "other traffic on every scenario's downlink: R bytes a\nsecond in packets of B bytes on the link, or none\n(default: the presets' 4000,100, the paper's bench's)"],
    ['--paper-rows', "only the scenario x scheme pairs the paper reports a\nrow for (its results CSV): 21 of its 8 scenarios x\nthe 6 Salsify schemes, and its WebRTC rows for\nwebrtc-like"],
    ['--seeds N', 'seeds 1 to N per scenario and scheme, N from 1 to\n1000 (default 1)'],
    ['--jobs N', `worker processes, 1 to 256 (default: the cores, ${availableParallelism()})`],
    ['--out DIR', 'output directory (default ./eval-out)'],
    ['--include DIR', "add a salsify webrtc run's results (DIR/summary.json)\nto the table and its scenario's plot, beside the\npaper's WebRTC row; repeatable"],
    wideHelpRow("with --seeds every seed's row"),
    ['--emit slurm DIR', 'write the run list and a Slurm job-array script\n(DIR/eval.sbatch) instead of running; needs sbatch'],
    ['--time T', "with --emit slurm: each task's time limit (Slurm's\nforms: MINUTES, HH:MM:SS, D-HH:MM:SS); many sites\nrefuse a job without one"],
    ['--mem M', 'with --emit slurm: memory per task (e.g. 2G)'],
    ['--partition P', 'with --emit slurm: the partition to run in'],
    ['--array-throttle N', 'with --emit slurm: at most N tasks at once'],
    ['--collect DIR', 'build the outputs in DIR from its store (after the\nSlurm array is done)'],
    ['-h, --help', 'this text'],
  ],
  notes: `On a terminal, progress bars (runs done and running, seconds of video per
run, elapsed time and an estimate of what is left); otherwise one line per
finished run on stderr. Ctrl-C (SIGINT or SIGTERM) stops every worker and
leaves only complete results in the store (exit status 130).

Exit status: 0 on success; 2 for a bad argument, a missing or unreadable
input (trace, clip), an output that cannot be written, or --emit slurm
without sbatch on PATH; 1 on an internal error.`,
});

interface EvalArgs {
  readonly help: boolean;
  readonly plan?: EvalPlan;
  readonly jobs: number;
  readonly out: string;
  readonly emit?: string;
  /** With --emit slurm: what the job asks Slurm for. */
  readonly slurm?: SlurmRequest;
  readonly collect?: string;
  /** Directories of salsify webrtc runs whose summary.json joins the table and plots. */
  readonly include?: readonly string[];
  /** Every column and every seed's row in the printed table. */
  readonly wide: boolean;
}

function listOrAll(name: string, text: string | undefined, all: readonly string[]): string[] {
  if (text === undefined || text === 'all') return [...all];
  return nameListValue(name, text, all);
}

const SLURM_OPTIONS = ['time', 'mem', 'partition', 'array-throttle'] as const;

function slurmValue(name: string, text: string, form: RegExp, expected: string): string {
  if (!form.test(text)) throw usageError(`--${name} must be ${expected}, got ${JSON.stringify(text)}`);
  return text;
}

function optionalEntry<K extends string, T>(key: K, text: string | undefined, parse: (t: string) => T): { [k in K]?: T } {
  return text === undefined ? {} : ({ [key]: parse(text) } as { [k in K]?: T });
}

export function parseEvalArgs(argv: string[]): EvalArgs {
  const { values, positionals } = parseCommandLine(HELP_REF, {
    args: argv,
    options: {
      scenarios: { type: 'string' }, schemes: { type: 'string' }, codec: { type: 'string' }, video: { type: 'string' },
      'encode-timing': { type: 'string' }, 'measure-from': { type: 'string' }, 'measure-for': { type: 'string' }, seeds: { type: 'string' }, jobs: { type: 'string' },
      'downlink-other-traffic': { type: 'string' }, 'paper-rows': { type: 'boolean' }, out: { type: 'string' }, include: { type: 'string', multiple: true }, emit: { type: 'string' }, collect: { type: 'string' }, ...WIDE_OPTION, help: { type: 'boolean', short: 'h' },
      time: { type: 'string' }, mem: { type: 'string' }, partition: { type: 'string' }, 'array-throttle': { type: 'string' },
    },
    allowPositionals: true,
    strict: true,
  });
  const jobs = optional(values.jobs, (t) => integerValue('jobs', t, { min: 1, max: 256 })) ?? availableParallelism();
  const out = optional(values.out, (t) => pathValue('out', t)) ?? 'eval-out';
  const wide = values.wide === true;
  if (values.help) return { help: true, jobs, out, wide };
  if (values.collect !== undefined) {
    const others = Object.keys(values).filter((k) => k !== 'collect' && k !== 'include' && k !== 'wide');
    if (others.length > 0 || positionals.length > 0) throw usageError(`--collect DIR takes no other option (got --${others[0] ?? positionals[0]}; see ${HELP_REF})`);
    return { help: false, jobs, out, wide, collect: pathValue('collect', values.collect), include: (values.include ?? []).map((t) => pathValue('include', t)) };
  }
  let emit: string | undefined;
  if (values.emit !== undefined) {
    if (values.emit !== 'slurm') throw usageError(`--emit must be slurm (followed by a directory), got ${JSON.stringify(values.emit)} (see ${HELP_REF})`);
    if (positionals.length !== 1) throw usageError(`--emit slurm needs one directory after it (see ${HELP_REF})`);
    emit = pathValue('emit slurm', positionals[0]!);
    if (values.out !== undefined || values.jobs !== undefined) throw usageError(`--emit slurm DIR writes into DIR and runs nothing here: --out and --jobs do not apply (see ${HELP_REF})`);
  } else {
    noPositionals(positionals, HELP_REF);
    const slurmOnly = SLURM_OPTIONS.find((o) => values[o] !== undefined);
    if (slurmOnly !== undefined) throw usageError(`--${slurmOnly} goes with --emit slurm DIR (see ${HELP_REF})`);
  }
  const matrix: EvalPlan = {
    scenarios: listOrAll('scenarios', values.scenarios, ALL_SCENARIOS),
    schemes: listOrAll('schemes', values.schemes, ALL_SCHEMES),
    seeds: optional(values.seeds, (t) => integerValue('seeds', t, { min: 1, max: 1000 })) ?? 1,
    codec: nameValue('codec', values.codec ?? 'model', CODECS),
    video: optional(values.video, (t) => pathValue('video', t)) ?? 'synthetic',
    ...(values['encode-timing'] === undefined ? {} : { encodeTiming: nameValue('encode-timing', values['encode-timing'], ENCODE_TIMINGS) }),
    ...(values['measure-from'] === undefined ? {} : { measureFromS: durationMsValue('measure-from', values['measure-from'], { unit: 's', maxMs: 1000 * (PAPER_WARMUP_S + PAPER_MEASURE_S) }) / 1000 }),
    ...(values['downlink-other-traffic'] === undefined ? {} : { downlinkOtherTraffic: otherTrafficOption(values['downlink-other-traffic'], CELLSIM_OVERHEAD_BYTES) }),
    ...(values['measure-for'] === undefined ? {} : { measureForS: durationMsValue('measure-for', values['measure-for'], { unit: 's', minExclusive: true, maxMs: 1000 * (LIMITS.maxRunS - PAPER_WARMUP_S) }) / 1000 }),
  };
  checkWindowStart(matrix);
  const plan: EvalPlan = values['paper-rows'] === true ? { ...matrix, pairs: paperPairs(matrix) } : matrix;
  const include = (values.include ?? []).map((t) => pathValue('include', t));
  const written = emit === undefined ? { role: '--out', dir: out, names: ['results.json', 'results.csv', 'report.html'] } : { role: '--emit slurm', dir: emit, names: [RUN_LIST_FILE, SBATCH_FILE] };
  refuseOutputsOverInputs(
    written.names.map((name) => ({ role: written.role, path: join(written.dir, name) })),
    [/^synthetic(:|$)/.test(plan.video) ? undefined : { role: '--video', path: plan.video }, ...include.map((dir) => ({ role: '--include', path: join(dir, 'summary.json') }))],
  );
  const slurm: SlurmRequest = {
    ...optionalEntry('time', values.time, (t) => slurmValue('time', t, SLURM_TIME, 'MINUTES, HH:MM:SS or D-HH:MM:SS (Slurm\'s forms)')),
    ...optionalEntry('mem', values.mem, (t) => slurmValue('mem', t, SLURM_MEM, 'megabytes, or a number with K, M, G or T (e.g. 4G)')),
    ...optionalEntry('partition', values.partition, (t) => slurmValue('partition', t, SLURM_PARTITION, 'a partition name, or several joined by commas')),
    ...optionalEntry('arrayThrottle', values['array-throttle'], (t) => integerValue('array-throttle', t, { min: 1, max: 1_000_000 })),
  };
  return { help: false, plan, jobs, out, wide, emit, slurm, include };
}

const warned = new Set<string>();

/** A corrupt store entry: one warning line (once per entry), and the run is computed again. */
function warnCorrupt(message: string): void {
  if (warned.has(message)) return;
  warned.add(message);
  process.stderr.write(`salsify eval: warning: ${message}\n`);
}

/** The stored results of every run, in the list's order; an error naming how many are missing. */
function collectStored(dir: string, runs: readonly EvalRun[]): Finished[] {
  const finished: Finished[] = [];
  const missing: EvalRun[] = [];
  for (const run of runs) {
    const stored = readStored(dir, run.hash, warnCorrupt);
    if (stored === undefined) missing.push(run);
    else finished.push({ run, stored });
  }
  if (missing.length > 0) {
    throw toolkitError('ERR_BAD_INPUT', `${storeDir(dir)}: ${missing.length} of ${runs.length} runs have no result yet (first: ${missing[0]!.id}, hash ${missing[0]!.hash}); are array tasks still running or failed? (their logs: ${join(dir, 'logs')})`);
  }
  return finished;
}

/** --paper-rows: the scenario x scheme pairs of the plan that the paper's results CSV has a row for. */
function paperPairs(plan: EvalPlan): string[] {
  const paper = readPaperResults();
  if (paper.source === null) throw usageError(`--paper-rows needs the paper's results, ${PAPER_RESULTS_PATH}, which is not there`);
  const pairs = plan.scenarios.flatMap((scenario) => plan.schemes.filter((scheme) => paper.forScheme(scenario, scheme) !== undefined).map((scheme) => `${scenario}/${scheme}`));
  if (pairs.length === 0) throw usageError(`--paper-rows: the paper reports none of --scenarios ${plan.scenarios.join(',')} x --schemes ${plan.schemes.join(',')}`);
  return pairs;
}

/** --measure-from must start the window within every scenario's run. */
function checkWindowStart(plan: EvalPlan): void {
  if (plan.measureFromS === undefined) return;
  for (const scenario of plan.scenarios) {
    const { durationS } = simPreset(scenario).config;
    if (plan.measureFromS >= durationS) throw usageError(`--measure-from must be below ${scenario}'s ${durationS} s of video, got ${plan.measureFromS} s`);
  }
}

function describeWindow(plan: EvalPlan): string {
  if (plan.measureFromS === undefined) return plan.measureForS === undefined ? "each preset's window" : `measured for ${plan.measureForS} s`;
  return `measured from ${plan.measureFromS} s${plan.measureForS === undefined ? '' : ` for ${plan.measureForS} s`}`;
}

async function buildOutputs(dir: string, runs: readonly EvalRun[], plan: EvalPlan, included: readonly IncludedRun[], made: { start: ProvenanceStart; how: string; wide: boolean }): Promise<number> {
  const finished = collectStored(dir, runs);
  const paper = readPaperResults();
  const provenance = await finishProvenance(made.start, { codec: plan.codec, browsers: included.map((i) => i.label), how: made.how });
  const files = await writeReport(dir, finished, paper, plan.seeds, `salsify eval: ${plan.scenarios.join(', ')} x ${plan.schemes.join(', ')}${plan.pairs === undefined ? '' : ", the paper's rows"}`, { included, provenance });
  const window = describeWindow(plan);
  const other = plan.downlinkOtherTraffic === undefined ? '' : `, downlink other traffic ${otherTrafficText(plan.downlinkOtherTraffic)}`;
  await writeStdout(`codec ${plan.codec}, video ${plan.video}, encode timing ${plan.encodeTiming ?? 'libvpx'}${other}, ${window}, ${plan.seeds} seed${plan.seeds > 1 ? 's' : ''}${plan.seeds > 1 && !made.wide ? ' (each row: the mean over the seeds; --wide: every seed)' : ''}; "(paper)": the published figures\n`);
  await writeStdout(resultsTable(finished, paper, plan.seeds, included, { wide: made.wide }) + '\n');
  if (included.length > 0) await writeStdout(`- note: ${INCLUDED_CALLS_DIFFER}\n`);
  await writeStdout(findingsText(files.findingsReport));
  await writeStdout(`results: ${files.json}, ${files.csv}, ${files.findings}; ${files.plots.length} plots in ${join(dir, 'plots')}\nreport: ${files.report}\n`);
  return 0;
}

async function runLocal(plan: EvalPlan, dir: string, jobs: number, included: readonly IncludedRun[], wide: boolean): Promise<number> {
  const start = startProvenance();
  const runs = buildRunList(plan);
  makeResultsDirectory(dir, '--out');
  makeStore(dir);
  const pending = runs.filter((r) => readStored(dir, r.hash, warnCorrupt) === undefined);
  const progress = createProgress();
  progress.begin(pending, runs.length - pending.length, jobs);
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let outcome: 'complete' | 'interrupted';
  try {
    outcome = await runPool(pending, {
      dir, jobs, events: progress, signal: stop.signal,
      onReused: (run) => process.stderr.write(`salsify eval: ${run.id} was stored meanwhile by another eval on ${dir}; not run here\n`),
    });
  } catch (error) {
    progress.finish('failed');
    throw error;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  progress.finish(outcome);
  if (outcome === 'interrupted') {
    const done = runs.filter((r) => readStored(dir, r.hash, warnCorrupt) !== undefined).length;
    process.stderr.write(`salsify eval: interrupted; ${done} of ${runs.length} runs are stored in ${storeDir(dir)} (only complete ones); run the same command again to resume\n`);
    return 130;
  }
  return buildOutputs(dir, runs, plan, included, { start, how: `salsify eval on ${jobs} worker${jobs === 1 ? '' : 's'}`, wide });
}

/** One Slurm array task: the run at `index` of DIR/runs.json, unless its result is already stored. */
async function runTask(dir: string, indexText: string | undefined): Promise<number> {
  const { runs } = readRunList(dir);
  const index = integerValue('run-task', indexText ?? '', { min: 0, max: Math.max(0, runs.length - 1) });
  const run = runs[index]!;
  if (readStored(dir, run.hash, warnCorrupt) !== undefined) {
    process.stderr.write(`salsify eval: ${run.id} is already stored (${run.hash})\n`);
    return 0;
  }
  const started = performance.now();
  writeStored(dir, run.hash, await executeRun(run));
  process.stderr.write(`salsify eval: ${run.id} done in ${((performance.now() - started) / 1000).toFixed(1)} s, stored as ${run.hash}\n`);
  return 0;
}

export async function runEval(argv: string[]): Promise<number> {
  // Internal entry points: a pool worker, and a Slurm array task.
  if (argv[0] === '--worker') return serveWorker();
  if (argv[0] === '--run-task') return runTask(pathValue('run-task', argv[1] ?? ''), argv[2]);
  const args = parseEvalArgs(argv);
  if (args.help) {
    process.stdout.write(EVAL_HELP);
    return 0;
  }
  // Read before anything runs, so that a bad one is reported at once.
  const included = (args.include ?? []).map(readIncluded);
  if (args.collect !== undefined) {
    const { plan, runs } = readRunList(args.collect);
    return buildOutputs(args.collect, runs, plan, included, { start: startProvenance(), how: 'salsify eval --collect (the runs ran as a Slurm array; the machine and load are those of the collect)', wide: args.wide });
  }
  const plan = args.plan!;
  if (args.emit !== undefined) {
    const runs = buildRunList(plan);
    if (included.length > 0) throw usageError(`--include goes with the run or with --collect, not with --emit slurm (see ${HELP_REF})`);
    const { script, runList } = emitSlurm(args.emit, plan, runs, args.slurm);
    await writeStdout(`wrote ${runList} (${runs.length} runs) and ${script}\nsubmit: sbatch ${shellWord(script)}\nthen:   salsify eval --collect ${shellWord(args.emit)}\n`);
    return 0;
  }
  return runLocal(plan, args.out, args.jobs, included, args.wide);
}
