// The option layer every CLI shares: one validator per kind of value, each
// taking the option's name and its text and returning the value or throwing
// one bad-argument line that names the option and quotes the value, and one
// help layout. A leaf module: it imports only src/common.
import { realpathSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { normalizedArgs, tokenize, type OptionShape, type TokenizeContext } from './command-line.ts';
import { fileKind, toolkitError, usageError } from './errors.ts';
import { parseHostPort, type HostPort } from './host-port.ts';

/**
 * The bounds every command documents, in one place. Numbers beyond them are
 * refused rather than left to run for ever (`--duration 1e9`) or overflow
 * (`--delay 1e300`).
 */
export const LIMITS = {
  /** Largest seed: seeds are integers 0..2^53-1, the same rule in every command. */
  maxSeed: Number.MAX_SAFE_INTEGER,
  /** Longest run of a simulation or a live send, in seconds (one day). */
  maxRunS: 86_400,
  /** Largest one-way propagation delay, ms. */
  maxDelayMs: 60_000,
  /** Largest drain, delay budget, idle timeout or on/off mean period, ms. */
  maxPeriodMs: 3_600_000,
  /** Largest link rate, Mbit/s. */
  maxRateMbps: 100_000,
  /** Largest generated trace, ms (one day). */
  maxTraceMs: 86_400_000,
  /** Largest video frame rate, frames per second (as the video layer's). */
  maxFps: 1000,
} as const;

function quote(text: string): string {
  return JSON.stringify(text);
}

const UNSIGNED_INTEGER = /^\d{1,16}$/;
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d{1,3})?$/;

export interface IntegerBounds {
  min: number;
  max: number;
}

/**
 * A command's options read as getopt_long reads them (src/common/command-line.ts:
 * abbreviations, a value that starts with "-", options after operands, an
 * unknown option named with the closest one), then node:util parseArgs on
 * that unambiguous spelling; every error is one bad-argument line that points
 * at the command's help (`help`, e.g. "salsify sim --help").
 */
export function parseCommandLine<T extends ParseArgsConfig>(help: string, config: T, context: Partial<TokenizeContext> = {}): ReturnType<typeof parseArgs<T>> {
  const tokens = tokenize(config.args ?? [], (config.options ?? {}) as Record<string, OptionShape>, { help, alsoKnown: ['version', 'help'], ...context });
  try {
    return parseArgs({ ...config, args: normalizedArgs(tokens) }) as ReturnType<typeof parseArgs<T>>;
  } catch (error) {
    const message = (error as Error).message.split('\n')[0]!.trim();
    throw usageError(`${message} (see ${help})`);
  }
}

/** A whole number in decimal digits, from min to max: `--mtu 1500`. */
export function integerValue(name: string, text: string, { min, max }: IntegerBounds): number {
  const negative = min < 0 && text.startsWith('-');
  const digits = negative ? text.slice(1) : text;
  const n = negative ? -Number(digits) : Number(digits);
  if (!UNSIGNED_INTEGER.test(digits) || !(n >= min && n <= max)) {
    throw usageError(`--${name} must be an integer from ${min} to ${max}, got ${quote(text)}`);
  }
  return n;
}

export interface NumberBounds {
  min: number;
  max: number;
  /** The minimum itself is refused (e.g. a rate must be > 0). */
  minExclusive?: boolean;
}

function describeRange({ min, max, minExclusive }: NumberBounds): string {
  return minExclusive ? `a number > ${min} and at most ${max}` : `a number from ${min} to ${max}`;
}

/** A decimal number (exponents allowed: 1e-2), within bounds. */
export function numberValue(name: string, text: string, bounds: NumberBounds, unit = ''): number {
  const n = Number(text);
  const { min, max, minExclusive } = bounds;
  if (!DECIMAL.test(text) || !Number.isFinite(n) || !(minExclusive ? n > min : n >= min) || !(n <= max)) {
    throw usageError(`--${name} must be ${describeRange(bounds)}${unit ? ` ${unit}` : ''}, got ${quote(text)}`);
  }
  return n;
}

/** A probability in [0, 1]: `--uplink-loss 0.05`. */
export function probabilityValue(name: string, text: string): number {
  return numberValue(name, text, { min: 0, max: 1 });
}

/** A link rate in Mbit/s, > 0 and at most LIMITS.maxRateMbps. */
export function rateValue(name: string, text: string): number {
  return numberValue(name, text, { min: 0, max: LIMITS.maxRateMbps, minExclusive: true }, 'Mbit/s');
}

/** A video frame rate in frames per second, > 0 and at most LIMITS.maxFps: `--fps 25`. */
export function frameRateValue(name: string, text: string): number {
  return numberValue(name, text, { min: 0, max: LIMITS.maxFps, minExclusive: true }, 'frames per second');
}

/**
 * The one seed rule of every command: a non-negative integer in decimal
 * digits, 0 to 2^53-1. (Words such as "abc" and negative numbers are refused
 * everywhere.) Leading zeros are ignored: 007 is the seed 7.
 */
export function seedValue(name: string, text: string): number {
  if (!UNSIGNED_INTEGER.test(text) || Number(text) > LIMITS.maxSeed) {
    throw usageError(`--${name} must be a non-negative integer from 0 to ${LIMITS.maxSeed}, got ${quote(text)}`);
  }
  return Number(text);
}

const DURATION_UNITS_MS: Record<string, number> = { ms: 1, s: 1000, min: 60_000 };

export interface DurationBounds {
  /** Unit of a bare number ("120"): 's' or 'ms'. */
  unit: 's' | 'ms';
  /** Least duration in ms (default 0). */
  minMs?: number;
  /** The least duration itself is refused (a duration must be > minMs). */
  minExclusive?: boolean;
  /** Greatest duration in ms: every duration has one. */
  maxMs: number;
  /** Only whole milliseconds (mm-delay's delays, trace durations). */
  wholeMs?: boolean;
}

function formatMs(ms: number): string {
  return ms % 60_000 === 0 && ms >= 60_000 ? `${ms / 60_000}min` : ms % 1000 === 0 && ms >= 1000 ? `${ms / 1000}s` : `${ms}ms`;
}

/**
 * A duration: a number with the unit ms, s or min (500ms, 120s, 2min), or a
 * bare number in the option's own unit; returned in milliseconds.
 */
export function durationMsValue(name: string, text: string, bounds: DurationBounds): number {
  const { unit, minMs = 0, minExclusive = false, maxMs, wholeMs = false } = bounds;
  const match = /^(\d+(?:\.\d+)?(?:[eE][-+]?\d{1,3})?|\.\d+)(ms|s|min)?$/.exec(text);
  const range = `${minExclusive ? `more than ${formatMs(minMs)}` : `at least ${formatMs(minMs)}`} and at most ${formatMs(maxMs)}`;
  const want = `a duration (e.g. 500ms, 10s, 2min; a bare number is in ${unit}) ${range}${wholeMs ? ', in whole ms' : ''}`;
  if (!match) throw usageError(`--${name} must be ${want}, got ${quote(text)}`);
  const ms = Number(match[1]) * DURATION_UNITS_MS[match[2] ?? unit]!;
  const inRange = Number.isFinite(ms) && (minExclusive ? ms > minMs : ms >= minMs) && ms <= maxMs;
  const whole = !wholeMs || Math.abs(ms - Math.round(ms)) <= 1e-9 * Math.max(1, ms);
  if (!inRange || !whole) throw usageError(`--${name} must be ${want}, got ${quote(text)}`);
  return wholeMs ? Math.round(ms) : ms;
}

/** HOST:PORT (`[IPV6]:PORT` for IPv6); `portZero: false` refuses port 0 (a peer's port). */
export function hostPortValue(name: string, text: string, { portZero = true } = {}): HostPort {
  const hostPort = parseHostPort(text, `--${name}`);
  if (!portZero && hostPort.port === 0) throw usageError(`--${name}: port 0 is not a peer's port in ${quote(text)}`);
  return hostPort;
}

/** A UDP port 0..65535 (0: any free port). */
export function portValue(name: string, text: string): number {
  return integerValue(name, text, { min: 0, max: 65535 });
}

/** One name from a set: `--codec vp8`. */
export function nameValue<T extends string>(name: string, text: string, names: readonly T[]): T {
  if (!(names as readonly string[]).includes(text)) {
    throw usageError(`--${name} must be one of ${names.join(', ')}, got ${quote(text)}`);
  }
  return text as T;
}

/** Names from a set joined by commas, each at most once: `--scheme salsify-1,conventional`. */
export function nameListValue<T extends string>(name: string, text: string, names: readonly T[]): T[] {
  const list = text.split(',');
  const seen = new Set<string>();
  for (const item of list) {
    if (!(names as readonly string[]).includes(item)) {
      throw usageError(`--${name} must be one or more of ${names.join(', ')} joined by commas, got ${quote(item)}${list.length > 1 ? ` in ${quote(text)}` : ''}`);
    }
    if (seen.has(item)) throw usageError(`--${name} names ${quote(item)} twice in ${quote(text)}`);
    seen.add(item);
  }
  return list as T[];
}

/** A file name (an output file or directory, or an input): not empty, no NUL byte. */
export function pathValue(name: string, text: string): string {
  if (text === '' || text.includes('\0')) throw usageError(`--${name} needs a file name, got ${quote(text)}`);
  return text;
}

function statOf(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/**
 * An output file to be written later: checked now, so that a long run does
 * not end in an error. Its directory must exist, and it must not be a
 * directory itself. (A full disk can still fail the write: writers report it.)
 * "-" is standard output.
 */
export function outputFileValue(name: string, text: string): string {
  pathValue(name, text);
  if (text === '-') return text; // standard output
  const stats = statOf(text);
  if (stats?.isDirectory()) throw toolkitError('ERR_UNWRITABLE_FILE', `--${name}: cannot write ${text}: it is a directory`);
  const parent = statOf(dirname(resolve(text)));
  if (parent === undefined) throw toolkitError('ERR_UNWRITABLE_FILE', `--${name}: cannot write ${text}: its directory ${dirname(text)} does not exist`);
  if (!parent.isDirectory()) throw toolkitError('ERR_UNWRITABLE_FILE', `--${name}: cannot write ${text}: ${dirname(text)} is ${fileKind(parent)}, not a directory`);
  return text;
}

/** A required option: its text, or a bad argument naming it and its help. */
export function required(name: string, text: string | undefined, what: string, help: string): string {
  if (text === undefined || text === '') throw usageError(`--${name} ${what} is required (see ${help})`);
  return text;
}

/** No positional arguments beyond the options. */
export function noPositionals(positionals: readonly string[], help: string): void {
  if (positionals.length > 0) throw usageError(`unexpected argument ${quote(positionals[0]!)} (see ${help})`);
}

/** Applies a validator to an option that may be absent: `optional(values.mtu, (t) => integerValue('mtu', t, ...))`. */
export function optional<T>(text: string | undefined, parse: (text: string) => T): T | undefined {
  return text === undefined ? undefined : parse(text);
}

// ---------------------------------------------------------------------------
// The one help layout.

export interface HelpText {
  /** Usage lines, without "Usage: ". */
  usage: readonly string[];
  /** What the command does: paragraphs, already wrapped. */
  about?: string;
  /** Option rows: [flags and value, description]; descriptions may hold newlines. */
  options: ReadonlyArray<readonly [string, string]>;
  /** Further sections after the options (exit status, examples), already wrapped. */
  notes?: string;
}

/** Column where option descriptions start. */
const HELP_COLUMN = 26;

/**
 * Formats a command's help in the layout every command uses: "Usage:", the
 * description, "Options:" with descriptions in one column, then the notes.
 */
export function formatHelp(help: HelpText): string {
  const usage = help.usage.length === 1 ? `Usage: ${help.usage[0]}\n` : `Usage:\n${help.usage.map((u) => `  ${u}\n`).join('')}`;
  const rows = help.options
    .map(([flags, text]) => {
      const [first, ...more] = text.split('\n');
      const head = `  ${flags}`;
      const lead = head.length + 2 <= HELP_COLUMN ? head.padEnd(HELP_COLUMN) + first : `${head}\n${' '.repeat(HELP_COLUMN)}${first}`;
      return [lead, ...more.map((line) => ' '.repeat(HELP_COLUMN) + line)].map((line) => line.trimEnd()).join('\n') + '\n';
    })
    .join('');
  const about = help.about ? `\n${help.about.trimEnd()}\n` : '';
  const notes = help.notes ? `\n${help.notes.trimEnd()}\n` : '';
  return `${usage}${about}\nOptions:\n${rows}${notes}`;
}

// ---------------------------------------------------------------------------
// An output never overwrites an input.

/** A file a command reads or writes, and how its command line names it ("--uplink-log", "UPLINK_TRACE", "DIR/sender.jsonl"). */
export interface NamedFile {
  readonly role: string;
  readonly path: string;
}

/** What identifies the file a path names: its device and inode when it exists, its real path (or the one it would have), its absolute path. */
function fileIdentities(path: string): string[] {
  const ids = [`path ${resolve(path)}`];
  try {
    const stats = statSync(path);
    ids.push(`inode ${stats.dev}:${stats.ino}`, `path ${realpathSync(path)}`);
  } catch {
    try {
      ids.push(`path ${resolve(realpathSync(dirname(resolve(path))), basename(path))}`);
    } catch {
      // Neither it nor its directory exists: its absolute path is all there is.
    }
  }
  return ids;
}

/**
 * The one check that an output does not name an input, for every command:
 * the same file by real path or by inode (a symbolic or hard link to the
 * input is the input). Standard input and output ("-") and absent names are
 * skipped. Throws one bad-argument line naming both, exit status 2.
 */
export function refuseOutputsOverInputs(outputs: ReadonlyArray<NamedFile | undefined>, inputs: ReadonlyArray<NamedFile | undefined>): void {
  const known = inputs.filter((i): i is NamedFile => i !== undefined && i.path !== '-' && i.path !== '');
  const identities = known.map((input) => ({ input, ids: fileIdentities(input.path) }));
  for (const output of outputs) {
    if (output === undefined || output.path === '-' || output.path === '') continue;
    const ids = fileIdentities(output.path);
    const clash = identities.find((i) => i.ids.some((id) => ids.includes(id)));
    if (clash === undefined) continue;
    const input = clash.input.path === output.path ? `the input ${clash.input.role}` : `the input ${clash.input.role} ${quote(clash.input.path)}`;
    throw usageError(`${output.role} ${quote(output.path)} is ${input}: an output never overwrites an input`);
  }
}
