// The `ccbench` command: congestion-control benchmarks in the deterministic
// simulator. `ccbench rfc8867` runs RFC 8867's test cases (src/cc/rfc8867)
// for one or more controllers and writes RFC 8868's metrics, the pass/fail
// of each case, plots and mm-link logs.
import { join } from 'node:path';
import { formatHelp, noPositionals, nameListValue, optional, parseCommandLine, pathValue, refuseOutputsOverInputs, seedValue } from '../common/validate.ts';
import { safeName } from '../cc/rfc8867/file-names.ts';
import { asksForVersion, closestName } from '../common/command-line.ts';
import { runCommand, usageError } from '../common/errors.ts';
import { CASE_ALIASES, CASE_IDS, type CaseId } from '../cc/rfc8867/cases.ts';
import { DEFAULT_THRESHOLDS } from '../cc/rfc8867/thresholds.ts';
import { readInputFile, writeStdout } from './files.ts';
import { wrapWords } from './help-names.ts';
import { exitOnStandardStreamErrors } from '../common/standard-streams.ts';
import { WIDE_OPTION, wideHelpRow } from './table-options.ts';

const HELP_REF = 'ccbench rfc8867 --help';
/** `--strict`'s status when a case fails: not 1 (an internal error) nor 2 (bad input). */
export const STRICT_FAILURE_STATUS = 3;

export const RFC8867_HELP = formatHelp({
  usage: ['ccbench rfc8867 [--case 5.1,5.2,...|all] [--controller NAME|PATH.ts] [--seed N] [--out DIR] [--thresholds FILE] [--strict] [--wide]'],
  about: `Runs the test cases of RFC 8867 section 5 for a congestion controller in the
deterministic simulator (several flows through one bottleneck, each with its
own one-way delay; capacity schedules as exact traces) and prints RFC 8868's
metrics per case: media rate, utilisation, queueing delay, loss, Jain's
fairness index, convergence after each capacity change, and pass or fail
against the thresholds. The same case, controller and seed give
byte-identical output files.`,
  options: [
    ['--case LIST', wrapWords(`cases joined by commas, or all (default): ${CASE_IDS.join(', ')} (5.1b: 5.1 at 100 ms one-way delay; 5.6b and 5.6c: 5.6 with a 1000 ms and a 20 ms queue; 5.7-libwebrtc: 5.7 with libwebrtc's short flows, one 100-1000 kB file each; cellular-trace: a recorded cellular trace as capacity, formerly 8869-cellular, a name still accepted)`)],
    ['--controller LIST', wrapWords('gcc (default: libwebrtc\'s goog_cc), gcc-classic-loss (gcc with the classic loss rule instead of LossBasedBweV2), gcc-draft02 (draft-ietf-rmcat-gcc-02, the model gcc was before), aimd, nada (RFC 8698), scream (RFC 8298), salsify-N (Salsify\'s own transport), cbr:MBPS (a constant-bitrate source), or a module PATH.ts exporting name and createController(options); several joined by commas')],
    ['--seed N', 'seed of every random draw: an integer from 0 to\n2^53-1 (default 1)'],
    ['--out DIR', wrapWords('write DIR/CASE.CONTROLLER.json (metrics and checks), DIR/CASE.CONTROLLER.svg (capacity, rates and queueing delay), the mm-link logs CONTROLLER.CASE.DIRECTION.log (the shared link) and CONTROLLER.CASE.DIRECTION.flow-N.log (flow N only), and DIR/summary.csv')],
    ['--thresholds FILE', wrapWords(`JSON overriding pass/fail thresholds (- reads standard input), for all cases or per case id: {"fairnessMin": 0.9, "5.1": {"convergenceMaxMs": 20000}}; defaults ${Object.entries(DEFAULT_THRESHOLDS).map(([k, v]) => `${k} ${v}`).join(', ')}`)],
    ['--strict', wrapWords(`exit with status ${STRICT_FAILURE_STATUS} when any case fails its thresholds (after running them all and writing every output), naming the failed cases and checks on stderr`)],
    wideHelpRow(),
    ['-h, --help', 'this text'],
  ],
  notes: `Exit status: 0 when every case ran (passed or not: the table says which
failed), unless --strict; ${STRICT_FAILURE_STATUS} with --strict when a case failed its thresholds;
2 for a bad argument, a controller module or thresholds file that cannot be
read or is malformed, or an output that cannot be written, with one line on
stderr naming it; 1 on an internal error.`,
});

export interface CcbenchArgs {
  readonly help: boolean;
  readonly cases: readonly CaseId[];
  readonly controllers: readonly string[];
  readonly seed: number;
  readonly out?: string;
  readonly thresholds?: string;
  readonly strict: boolean;
  /** Every column of the printed table. */
  readonly wide?: boolean;
}

export function parseRfc8867Args(argv: string[]): CcbenchArgs {
  const { values, positionals } = parseCommandLine(HELP_REF, {
    args: argv,
    options: {
      case: { type: 'string' }, controller: { type: 'string' }, seed: { type: 'string' }, out: { type: 'string' },
      thresholds: { type: 'string' }, strict: { type: 'boolean' }, ...WIDE_OPTION, help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) return { help: true, cases: [], controllers: [], seed: 1, strict: false };
  noPositionals(positionals, HELP_REF);
  const caseText = values.case?.split(',').map((id) => CASE_ALIASES.get(id) ?? id).join(',');
  const cases = caseText === undefined || caseText === 'all' ? CASE_IDS : nameListValue('case', caseText, CASE_IDS);
  const controllers = (values.controller ?? 'gcc').split(',');
  const seen = new Set<string>();
  for (const c of controllers) {
    if (c === '' || c.includes('\0')) throw usageError(`--controller needs names or paths joined by commas, got ${JSON.stringify(values.controller)}`);
    if (seen.has(c)) throw usageError(`--controller names ${JSON.stringify(c)} twice in ${JSON.stringify(values.controller)}`);
    seen.add(c);
  }
  const out = optional(values.out, (t) => pathValue('out', t));
  const thresholds = optional(values.thresholds, (t) => pathValue('thresholds', t));
  if (out !== undefined) {
    // The files --out gets (report.ts): CASE.CONTROLLER.json and .svg, summary.csv; a module's own name is known once it is loaded.
    const names = ['summary.csv', ...cases.flatMap((id) => controllers.flatMap((c) => [`${id}.${safeName(c)}.json`, `${id}.${safeName(c)}.svg`]))];
    refuseOutputsOverInputs(
      names.map((name) => ({ role: '--out', path: join(out, name) })),
      [thresholds === undefined ? undefined : { role: '--thresholds', path: thresholds }, ...controllers.filter((c) => /[/.]/.test(c)).map((path) => ({ role: '--controller', path }))],
    );
  }
  return { help: false, cases, controllers, seed: seedValue('seed', values.seed ?? '1'), out, thresholds, strict: values.strict === true, wide: values.wide === true };
}

export async function runRfc8867(argv: string[]): Promise<number> {
  const args = parseRfc8867Args(argv);
  if (args.help) {
    await writeStdout(RFC8867_HELP);
    return 0;
  }
  const { parseThresholds, readThresholdsFile } = await import('../cc/rfc8867/thresholds.ts');
  const { resolveController } = await import('../cc/rfc8867/resolve-controller.ts');
  const { runResolved } = await import('../cc/rfc8867/run-case.ts');
  const { rfc8867Case } = await import('../cc/rfc8867/cases.ts');
  const { formatSuiteTable, writeSuite } = await import('../cc/rfc8867/report.ts');
  const { createWorkProgress } = await import('../eval/progress.ts');
  // --thresholds - reads standard input.
  const thresholds = args.thresholds === undefined ? undefined : args.thresholds === '-' ? parseThresholds(readInputFile('-'), 'standard input') : readThresholdsFile(args.thresholds);
  // Made before the runs, so that a bad --out is said at once, not after minutes of simulation.
  if (args.out !== undefined) {
    const { makeResultsDirectory } = await import('../results/writer.ts');
    makeResultsDirectory(args.out, '--out');
  }
  const results = [];
  // On a terminal, the cases done and an estimate of what is left, each case weighed by its simulated length (src/eval/progress.ts).
  const items = args.controllers.flatMap((name) => args.cases.map((id) => ({ key: `${name} ${id}`, label: `${id} ${name}`, units: rfc8867Case(id).durationMs / 1000 })));
  const progress = createWorkProgress(items, { unit: 's simulated', noun: 'cases' });
  try {
    for (const name of args.controllers) {
      const controller = await resolveController(name);
      try {
        for (const id of args.cases) {
          progress.started(`${name} ${id}`);
          results.push(await runResolved(rfc8867Case(id), controller.factory, { seed: args.seed, thresholds, logs: args.out !== undefined }));
          progress.done(`${name} ${id}`);
        }
      } finally {
        await controller.close();
      }
    }
  } finally {
    progress.finish();
  }
  if (args.out !== undefined) await writeSuite(args.out, results);
  await writeStdout(formatSuiteTable(results, { wide: args.wide }) + '\n');
  const failed = results.filter((r) => !r.pass);
  if (!args.strict || failed.length === 0) return 0;
  const named = failed.map((r) => `${r.caseId} ${r.controller} (${r.checks.filter((c) => !c.pass).map((c) => c.check).join(', ')})`);
  process.stderr.write(`ccbench rfc8867: --strict: ${failed.length} of ${results.length} runs failed their thresholds: ${named.join('; ')}\n`);
  return STRICT_FAILURE_STATUS;
}

export const CCBENCH_COMMANDS = `Usage: ccbench COMMAND [options]

Commands:
  ccbench rfc8867 [--case LIST] [--controller LIST] [...]   RFC 8867's test cases (see ccbench rfc8867 --help)
  ccbench --version                                         the versions of ccbench and Node
`;

export async function main(argv: string[]): Promise<number> {
  if (asksForVersion(argv)) return (await import('./version.ts')).printVersion('ccbench');
  const [command, ...rest] = argv;
  exitOnStandardStreamErrors(command === 'rfc8867' ? 'ccbench rfc8867' : 'ccbench');
  if (command === 'rfc8867') return runCommand('ccbench rfc8867', () => runRfc8867(rest));
  if (command === '-h' || command === '--help' || command === 'help') {
    process.stdout.write(CCBENCH_COMMANDS);
    return 0;
  }
  const closest = command === undefined ? undefined : closestName(command, ['rfc8867']);
  const problem = command === undefined ? 'a COMMAND is required' : `unknown command ${JSON.stringify(command)}${closest ? `; did you mean ${closest}?` : ''}`;
  return runCommand('ccbench', () => {
    throw usageError(`${problem} (rfc8867; see ccbench --help)`);
  });
}
