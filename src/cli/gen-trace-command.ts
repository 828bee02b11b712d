// `linkshell gen-trace KIND [options] [-o FILE]`: writes a trace made by one
// of the seeded generators of trace-generators.ts.
import { errorCodeOf, exitStatusOf, oneLine, unwritableFile, usageError } from '../common/errors.ts';
import { durationMsValue, formatHelp, integerValue, LIMITS, nameValue, numberValue, parseCommandLine, rateValue, seedValue } from '../common/validate.ts';
import { formatTrace } from '../link-emu/trace-format.ts';
import {
  BYTES_PER_OPPORTUNITY,
  cellularTrace,
  constantRateTrace,
  onOffTrace,
  poissonTrace,
} from '../link-emu/trace-generators.ts';
import { traceMeanRateMbps, type Trace } from '../link-emu/trace.ts';
import { writeFileAtomically } from '../results/writer.ts';

export const TRACE_GEN_USAGE = formatHelp({
  usage: ['linkshell gen-trace KIND [options] [-o FILE]'],
  about: `Writes a Mahimahi trace (one millisecond timestamp per line, one delivery
opportunity per line) made by a seeded generator. Same options, same seed:
same trace, byte for byte.

Kinds and their options:
  constant  --rate MBPS [--duration D]
            Exact constant rate: the shortest period that makes the rate exact
            (12 Mbit/s: "1"; 2 Mbit/s: "6"), repeated to cover D if given.
  poisson   --rate MBPS --duration D [--seed S]
            Opportunities form a Poisson process of mean rate MBPS.
  onoff     --rate MBPS --on MS --off MS --duration D [--start on|off|random] [--seed S]
            Exponential on and off periods (means --on, --off in ms); rate MBPS
            while on (evenly spaced), nothing while off. Starts on by default.
  cellular  --mean MBPS --duration D [--variability SIGMA] [--time-scale MS]
            [--step MS] [--no-exact-mean] [--seed S]
            Variable rate: exp of a mean-reverting (Ornstein-Uhlenbeck) process
            with standard deviation SIGMA (0 to 3, default 0.8) and correlation
            time --time-scale (default 1000 ms), changing every --step ms
            (default 10), scaled so its time average is MBPS (unless
            --no-exact-mean); opportunities are Poisson given the rate.`,
  options: [
    ['--bytes N', `bytes per opportunity when converting rates (default ${BYTES_PER_OPPORTUNITY},\nas Mahimahi's documentation counts; mm-link itself sends 1504)`],
    ['--seed S', 'seed of the random generators: an integer from 0 to 2^53-1\n(default 1)'],
    ['-o, --output FILE', 'write the trace to FILE (default or -: stdout)'],
    ['-h, --help', 'show this text'],
  ],
  notes: `MBPS is in Mbit/s (e.g. 12, 0.5; at most ${LIMITS.maxRateMbps}). D is a duration: a number
with unit ms, s or min (500ms, 120s, 2min), a bare number is seconds; at most
one day, in whole ms. MS values are > 0 and at most ${LIMITS.maxPeriodMs}. The random
kinds end the trace at their last opportunity, at most D. A summary goes to
standard error; an error is one line there, with exit status 2.

Examples:
  linkshell gen-trace constant --rate 12 -o const-12mbps.trace
  linkshell gen-trace cellular --mean 6 --duration 120s --seed 1 -o cellular.trace`,
});

export interface TraceGenIo {
  /** Receives the trace text when no --output is given. */
  stdout(text: string): void | Promise<void>;
  /** Receives the summary, usage errors and failures. */
  stderr(text: string): void | Promise<void>;
}

const processIo: TraceGenIo = {
  stdout: (text) => new Promise<void>((done, fail) => process.stdout.write(text, (error) => (error ? fail(error) : done()))),
  stderr: (text) => void process.stderr.write(text),
};

const GEN_TRACE_HELP_REF = 'linkshell gen-trace --help';

const OPTIONS = {
  rate: { type: 'string' },
  mean: { type: 'string' },
  duration: { type: 'string' },
  seed: { type: 'string' },
  on: { type: 'string' },
  off: { type: 'string' },
  start: { type: 'string' },
  variability: { type: 'string' },
  'time-scale': { type: 'string' },
  step: { type: 'string' },
  'no-exact-mean': { type: 'boolean' },
  bytes: { type: 'string' },
  output: { type: 'string', short: 'o' },
  help: { type: 'boolean', short: 'h' },
} as const;

type OptionName = keyof typeof OPTIONS;
type Values = { [K in OptionName]?: (typeof OPTIONS)[K]['type'] extends 'boolean' ? boolean : string };

const COMMON: OptionName[] = ['bytes', 'output', 'help'];
const KINDS: Record<string, { required: OptionName[]; optional: OptionName[] }> = {
  constant: { required: ['rate'], optional: ['duration'] },
  poisson: { required: ['rate', 'duration'], optional: ['seed'] },
  onoff: { required: ['rate', 'on', 'off', 'duration'], optional: ['start', 'seed'] },
  cellular: { required: ['mean', 'duration'], optional: ['variability', 'time-scale', 'step', 'no-exact-mean', 'seed'] },
};

/** A mean period in ms: > 0, at most LIMITS.maxPeriodMs. */
function periodMs(name: string, text: string): number {
  return numberValue(name, text, { min: 0, max: LIMITS.maxPeriodMs, minExclusive: true }, 'ms');
}

/** "120", "120s", "500ms", "2min" -> whole milliseconds, > 0 and at most a day. */
export function parseDuration(text: string, name = 'duration'): number {
  return durationMsValue(name, text, { unit: 's', minExclusive: true, maxMs: LIMITS.maxTraceMs, wholeMs: true });
}

function generate(kind: string, v: Values): Trace {
  const bytesPerOpportunity = v.bytes === undefined ? undefined : integerValue('bytes', v.bytes, { min: 1, max: 65535 + 64 });
  const seed = seedValue('seed', v.seed ?? '1');
  const durationMs = v.duration === undefined ? undefined : parseDuration(v.duration);
  switch (kind) {
    case 'constant':
      return constantRateTrace({ rateMbps: rateValue('rate', v.rate!), durationMs, bytesPerOpportunity });
    case 'poisson':
      return poissonTrace({ rateMbps: rateValue('rate', v.rate!), durationMs: durationMs!, seed, bytesPerOpportunity });
    case 'onoff': {
      const start = nameValue('start', v.start ?? 'on', ['on', 'off', 'random'] as const);
      return onOffTrace({
        rateMbps: rateValue('rate', v.rate!),
        meanOnMs: periodMs('on', v.on!),
        meanOffMs: periodMs('off', v.off!),
        start,
        durationMs: durationMs!,
        seed,
        bytesPerOpportunity,
      });
    }
    case 'cellular':
      return cellularTrace({
        meanMbps: rateValue('mean', v.mean!),
        variability: v.variability === undefined ? undefined : numberValue('variability', v.variability, { min: 0, max: 3 }),
        timeScaleMs: v['time-scale'] === undefined ? undefined : periodMs('time-scale', v['time-scale']),
        stepMs: v.step === undefined ? undefined : periodMs('step', v.step),
        exactMean: !v['no-exact-mean'],
        durationMs: durationMs!,
        seed,
        bytesPerOpportunity,
      });
    default:
      throw usageError(`unknown trace kind "${kind}"`);
  }
}

function parseGenTraceArgs(argv: string[]): { kind?: string; values: Values } {
  const parsed = parseCommandLine(GEN_TRACE_HELP_REF, { args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  const values = parsed.values as Values;
  if (values.help) return { values };
  const [kind, ...extra] = parsed.positionals;
  if (kind === undefined) throw usageError(`missing KIND (one of ${Object.keys(KINDS).join(', ')})`);
  const spec = KINDS[kind];
  if (!spec) throw usageError(`unknown trace kind "${kind}" (expected one of ${Object.keys(KINDS).join(', ')})`);
  if (extra.length > 0) throw usageError(`unexpected argument "${extra[0]}"`);
  for (const name of Object.keys(values) as OptionName[]) {
    if (!COMMON.includes(name) && !spec.required.includes(name) && !spec.optional.includes(name)) {
      throw usageError(`--${name} does not apply to ${kind} traces`);
    }
  }
  for (const name of spec.required) {
    if (values[name] === undefined) throw usageError(`${kind} traces need --${name}`);
  }
  return { kind, values };
}

/** The generators' option names, as the command line spells them. */
const FLAG_NAMES: Record<string, string> = {
  rateMbps: '--rate',
  meanMbps: '--mean',
  durationMs: '--duration',
  meanOnMs: '--on',
  meanOffMs: '--off',
  variability: '--variability',
  timeScaleMs: '--time-scale',
  stepMs: '--step',
  bytesPerOpportunity: '--bytes',
};

function asFlags(message: string): string {
  return message.replace(/^(\w+) must/, (whole, name: string) => (FLAG_NAMES[name] ? `${FLAG_NAMES[name]} must` : whole));
}

function summary(trace: Trace, bytes: number, where: string): string {
  const mbps = traceMeanRateMbps(trace, bytes);
  return `${where}: ${trace.times.length} opportunities, period ${trace.period} ms, mean ${mbps.toFixed(3)} Mbit/s at ${bytes} B per opportunity\n  ${trace.source}\n`;
}

/** Runs `gen-trace` with the arguments after it; resolves to the exit code (0; 2 for a bad argument or an unwritable output). */
export async function runTraceGenCli(argv: string[], io: TraceGenIo = processIo): Promise<number> {
  try {
    const { kind, values } = parseGenTraceArgs(argv);
    if (values.help || kind === undefined) {
      await io.stdout(TRACE_GEN_USAGE);
      return 0;
    }
    const trace = generateChecked(kind, values);
    const bytes = values.bytes === undefined ? BYTES_PER_OPPORTUNITY : Number(values.bytes);
    const text = formatTrace(trace);
    // -o - is standard output, as no -o.
    const output = values.output === '-' ? undefined : values.output;
    const where = output ?? 'standard output';
    try {
      if (output === undefined) await io.stdout(text);
      else writeFileAtomically(output, text);
    } catch (error) {
      throw unwritableFile(where, error);
    }
    await io.stderr(summary(trace, bytes, output ?? 'stdout'));
    return 0;
  } catch (error) {
    // One line, whatever went wrong; bad arguments point at the help.
    const message = oneLine(error);
    const hint = errorCodeOf(error) === 'ERR_BAD_ARGUMENT' && !message.endsWith(`(see ${GEN_TRACE_HELP_REF})`) ? ` (see ${GEN_TRACE_HELP_REF})` : '';
    await io.stderr(`linkshell gen-trace: ${message}${hint}\n`);
    return exitStatusOf(error);
  }
}


/** generate(), the generators' own checks (RangeErrors naming their fields) reported as the options they come from. */
function generateChecked(kind: string, values: Values): Trace {
  try {
    return generate(kind, values);
  } catch (error) {
    if (error instanceof RangeError) throw usageError(asFlags(error.message));
    throw error;
  }
}
