// The getopt_long conventions every command's options follow, as GNU getopt
// and Mahimahi's tools (built on it) take them: a long option may be
// abbreviated to any unambiguous prefix (--uplink-queue-a=F); an option that takes a
// value takes the next argument whatever it looks like (--delay -1, --json -),
// unless that argument is itself an option (--downlink --uplink x: a value is
// missing); options and operands may come in any order ("permutation"); "--"
// ends the options. Its output is the same arguments in one unambiguous
// spelling (--name or --name=VALUE, then the operands) that node:util's
// parseArgs reads without guessing. An unknown option is named with the
// closest option there is. A leaf module: it imports only src/common.
import { usageError } from './errors.ts';

/** What the tokenizer needs of a parseArgs option. */
export interface OptionShape {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
}

export interface Tokenized {
  /** Options as --name or --name=VALUE, full names, in the order given. */
  readonly options: string[];
  /** The operands before "--", in order. */
  readonly operands: string[];
  /** The arguments after "--" (undefined without one). */
  readonly afterDashes: string[] | undefined;
  /** How many of `options` came before the first operand (all of them when there is none). */
  readonly optionsBeforeFirstOperand: number;
}

export interface TokenizeContext {
  /** Where the command's help is: "salsify sim --help". */
  readonly help: string;
  /** Names every command accepts besides its own (--version), for suggestions. */
  readonly alsoKnown?: readonly string[];
  /** A sentence added to an unknown option's message, given the operands seen before it. */
  readonly unknownHint?: (operandsBefore: number) => string | undefined;
}

function quote(text: string): string {
  return JSON.stringify(text);
}

/** Levenshtein distance, for suggestions. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[b.length]!;
}

/** The known name closest to `name` (a typo or a near word), if one is close enough to be meant. */
export function closestName(name: string, names: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of names) {
    const d = candidate.startsWith(name) || name.startsWith(candidate) ? Math.min(2, editDistance(name, candidate)) : editDistance(name, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

/** The full name of a long option written as `written` (exact, or the one option it is a prefix of); throws otherwise. */
function resolveLong(written: string, names: readonly string[], context: TokenizeContext, operandsBefore: number): string {
  if (names.includes(written)) return written;
  const matches = names.filter((n) => n.startsWith(written));
  if (matches.length === 1 && written !== '') return matches[0]!;
  if (matches.length > 1 && written !== '') {
    throw usageError(`option --${written} is ambiguous: it could be ${matches.map((m) => `--${m}`).join(', ')} (see ${context.help})`);
  }
  throw unknownOption(`--${written}`, closestName(written, [...names, ...(context.alsoKnown ?? [])]), context, operandsBefore);
}

function unknownOption(written: string, suggestion: string | undefined, context: TokenizeContext, operandsBefore: number) {
  const hint = context.unknownHint?.(operandsBefore);
  const mean = suggestion === undefined ? '' : `; did you mean --${suggestion}?`;
  return usageError(`unknown option ${written}${mean}${hint ? ` (${hint})` : ''} (see ${context.help})`);
}

/** True for an argument that is an option to this command (so it cannot be another option's value). */
function isOptionWord(arg: string, names: readonly string[]): boolean {
  if (!arg.startsWith('--') || arg.length === 2) return false;
  const written = arg.slice(2).split('=')[0]!;
  return names.some((n) => n.startsWith(written));
}

/**
 * Reads `args` as getopt_long does with permutation (see the module's
 * comment). Throws one bad-argument line for an unknown or ambiguous option,
 * a missing value, or a value given to an option that takes none.
 */
export function tokenize(args: readonly string[], shapes: Readonly<Record<string, OptionShape>>, context: TokenizeContext): Tokenized {
  const names = Object.keys(shapes);
  const options: string[] = [];
  const operands: string[] = [];
  let optionsBeforeFirstOperand: number | undefined;
  const done = (afterDashes: string[] | undefined): Tokenized => ({ options, operands, afterDashes, optionsBeforeFirstOperand: optionsBeforeFirstOperand ?? options.length });
  const byShort = new Map(Object.entries(shapes).filter(([, s]) => s.short !== undefined).map(([name, s]) => [s.short!, name]));
  const takeValue = (name: string, shown: string, i: number): string => {
    const next = args[i + 1];
    if (next === undefined || next === '--' || isOptionWord(next, names)) {
      const got = next === undefined ? '' : `, got the option ${next} (a value that starts with "--": ${shown}=VALUE)`;
      throw usageError(`${shown} needs a value${got} (see ${context.help})`);
    }
    return next;
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') return done(args.slice(i + 1));
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const written = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
      const name = resolveLong(written, names, context, operands.length);
      if (shapes[name]!.type === 'boolean') {
        if (eq >= 0) throw usageError(`--${name} takes no value, got ${quote(arg)} (see ${context.help})`);
        options.push(`--${name}`);
      } else if (eq >= 0) {
        options.push(`--${name}=${arg.slice(eq + 1)}`);
      } else {
        options.push(`--${name}=${takeValue(name, `--${name}`, i)}`);
        i++;
      }
      continue;
    }
    if (arg.startsWith('-') && arg !== '-') {
      // -h, -o FILE, -oFILE; booleans may be grouped (-ab).
      for (let j = 1; j < arg.length; j++) {
        const name = byShort.get(arg[j]!);
        if (name === undefined) throw unknownOption(`-${arg[j]}${j === 1 && arg.length > 2 ? ` (in ${quote(arg)})` : ''}`, undefined, context, operands.length);
        if (shapes[name]!.type === 'boolean') {
          options.push(`--${name}`);
          continue;
        }
        if (j + 1 < arg.length) options.push(`--${name}=${arg.slice(j + 1)}`);
        else {
          options.push(`--${name}=${takeValue(name, `-${arg[j]}`, i)}`);
          i++;
        }
        break;
      }
      continue;
    }
    optionsBeforeFirstOperand ??= options.length;
    operands.push(arg);
  }
  return done(undefined);
}

/** The tokenized arguments as one argument list parseArgs reads unambiguously: the options, then "--" and every operand. */
export function normalizedArgs(tokens: Tokenized): string[] {
  return [...tokens.options, '--', ...tokens.operands, ...(tokens.afterDashes ?? [])];
}

/** True when `--version` is among the options (before any "--"), in any command. */
export function asksForVersion(args: readonly string[]): boolean {
  for (const arg of args) {
    if (arg === '--') return false;
    if (arg === '--version') return true;
  }
  return false;
}
