// `linkshell gen-trace KIND [options] [-o FILE]`: writes a trace made by one
// of the seeded generators of trace-generators.ts.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { formatTrace } from '../link-emu/trace-format.ts';
import {
  BYTES_PER_OPPORTUNITY,
  cellularTrace,
  constantRateTrace,
  onOffTrace,
  poissonTrace,
} from '../link-emu/trace-generators.ts';
import { traceMeanRateMbps, type Trace } from '../link-emu/trace.ts';

export const TRACE_GEN_USAGE = `Usage: linkshell gen-trace KIND [options] [-o FILE]

Writes a Mahimahi trace (one millisecond timestamp per line, one delivery
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
            with standard deviation SIGMA (default 0.8) and correlation time
            --time-scale (default 1000 ms), changing every --step ms (default
            10), scaled so its time average is MBPS (unless --no-exact-mean);
            opportunities are Poisson given the rate.

Common options:
  --bytes N          bytes per opportunity when converting rates (default ${BYTES_PER_OPPORTUNITY},
                     as Mahimahi's documentation counts; mm-link itself sends 1504)
  --seed S           seed of the random generators (default 1)
  -o, --output FILE  write the trace to FILE (default: standard output)
  -h, --help         show this text

MBPS is in Mbit/s (e.g. 12, 0.5). D is a duration: a number with unit ms, s
or min (500ms, 120s, 2min); a bare number is seconds. The random kinds end the
trace at their last opportunity, at most D. A summary goes to standard error.

Examples:
  linkshell gen-trace constant --rate 12 -o const-12mbps.trace
  linkshell gen-trace cellular --mean 6 --duration 120s --seed 1 -o cellular.trace
`;

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

/** A bad command line: reported with a hint, exit code 2. */
class UsageError extends Error {}

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

function positiveNumber(name: string, text: string, unit: string): number {
  const value = Number(text);
  if (!/^\d+(\.\d+)?$|^\.\d+$/.test(text) || !(value > 0)) {
    throw new UsageError(`--${name}: expected a positive number (${unit}), got "${text}"`);
  }
  return value;
}

function nonNegativeNumber(name: string, text: string): number {
  if (!/^\d+(\.\d+)?$|^\.\d+$/.test(text)) throw new UsageError(`--${name}: expected a number >= 0, got "${text}"`);
  return Number(text);
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, min: 60_000 };

/** "120", "120s", "500ms", "2min" -> whole milliseconds. */
export function parseDuration(text: string, name = 'duration'): number {
  const match = /^(\d+(?:\.\d+)?|\.\d+)(ms|s|min)?$/.exec(text.trim());
  if (!match) throw new UsageError(`--${name}: expected a duration such as 120s, 500ms or 2min, got "${text}"`);
  const ms = Number(match[1]) * DURATION_UNITS[match[2] ?? 's']!;
  const rounded = Math.round(ms);
  if (Math.abs(ms - rounded) > 1e-9 * Math.max(1, ms) || rounded <= 0) {
    throw new UsageError(`--${name}: must be a positive whole number of milliseconds, got "${text}" (${ms} ms)`);
  }
  return rounded;
}

function generate(kind: string, v: Values): Trace {
  const bytesPerOpportunity = v.bytes === undefined ? undefined : Number(positiveNumber('bytes', v.bytes, 'bytes'));
  if (bytesPerOpportunity !== undefined && !Number.isInteger(bytesPerOpportunity)) {
    throw new UsageError(`--bytes: expected a whole number of bytes, got "${v.bytes}"`);
  }
  const seed = v.seed ?? '1';
  const durationMs = v.duration === undefined ? undefined : parseDuration(v.duration);
  switch (kind) {
    case 'constant':
      return constantRateTrace({ rateMbps: positiveNumber('rate', v.rate!, 'Mbit/s'), durationMs, bytesPerOpportunity });
    case 'poisson':
      return poissonTrace({ rateMbps: positiveNumber('rate', v.rate!, 'Mbit/s'), durationMs: durationMs!, seed, bytesPerOpportunity });
    case 'onoff': {
      const start = v.start ?? 'on';
      if (start !== 'on' && start !== 'off' && start !== 'random') {
        throw new UsageError(`--start: expected on, off or random, got "${start}"`);
      }
      return onOffTrace({
        rateMbps: positiveNumber('rate', v.rate!, 'Mbit/s'),
        meanOnMs: positiveNumber('on', v.on!, 'ms'),
        meanOffMs: positiveNumber('off', v.off!, 'ms'),
        start,
        durationMs: durationMs!,
        seed,
        bytesPerOpportunity,
      });
    }
    case 'cellular':
      return cellularTrace({
        meanMbps: positiveNumber('mean', v.mean!, 'Mbit/s'),
        variability: v.variability === undefined ? undefined : nonNegativeNumber('variability', v.variability),
        timeScaleMs: v['time-scale'] === undefined ? undefined : positiveNumber('time-scale', v['time-scale'], 'ms'),
        stepMs: v.step === undefined ? undefined : positiveNumber('step', v.step, 'ms'),
        exactMean: !v['no-exact-mean'],
        durationMs: durationMs!,
        seed,
        bytesPerOpportunity,
      });
    default:
      throw new UsageError(`unknown trace kind "${kind}"`);
  }
}

function parseCommandLine(argv: string[]): { kind?: string; values: Values } {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const values = parsed.values as Values;
  if (values.help) return { values };
  const [kind, ...extra] = parsed.positionals;
  if (kind === undefined) throw new UsageError(`missing KIND (one of ${Object.keys(KINDS).join(', ')})`);
  const spec = KINDS[kind];
  if (!spec) throw new UsageError(`unknown trace kind "${kind}" (expected one of ${Object.keys(KINDS).join(', ')})`);
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  for (const name of Object.keys(values) as OptionName[]) {
    if (!COMMON.includes(name) && !spec.required.includes(name) && !spec.optional.includes(name)) {
      throw new UsageError(`--${name} does not apply to ${kind} traces`);
    }
  }
  for (const name of spec.required) {
    if (values[name] === undefined) throw new UsageError(`${kind} traces need --${name}`);
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

/** Runs `gen-trace` with the arguments after it; resolves to the exit code (0, 1 failure, 2 bad arguments). */
export async function runTraceGenCli(argv: string[], io: TraceGenIo = processIo): Promise<number> {
  let kind: string | undefined;
  let values: Values;
  let trace: Trace;
  try {
    ({ kind, values } = parseCommandLine(argv));
    if (values.help || kind === undefined) {
      await io.stdout(TRACE_GEN_USAGE);
      return 0;
    }
    trace = generate(kind, values);
  } catch (error) {
    if (error instanceof UsageError || error instanceof RangeError) {
      await io.stderr(`gen-trace: ${asFlags(error.message)}\nRun "linkshell gen-trace --help" for usage.\n`);
      return 2;
    }
    throw error;
  }
  const bytes = values.bytes === undefined ? BYTES_PER_OPPORTUNITY : Number(values.bytes);
  const text = formatTrace(trace);
  try {
    if (values.output === undefined) {
      await io.stdout(text);
    } else {
      writeFileSync(values.output, text);
    }
  } catch (error) {
    await io.stderr(`gen-trace: cannot write ${values.output ?? 'standard output'}: ${(error as Error).message}\n`);
    return 1;
  }
  await io.stderr(summary(trace, bytes, values.output ?? 'stdout'));
  return 0;
}
