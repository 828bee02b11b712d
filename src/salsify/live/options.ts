// Option values of the live commands, checked with one-line UsageErrors that name the option.
import { UsageError } from '../../common/usage-error.ts';

export function numberOption(name: string, value: string | undefined, check: (n: number) => boolean, want: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || !check(n)) throw new UsageError(`--${name} must be ${want}, got ${JSON.stringify(value)}`);
  return n;
}

export function codecOption(value: string | undefined): 'model' | 'vp8' {
  const codec = value ?? 'model';
  if (codec !== 'model' && codec !== 'vp8') throw new UsageError(`--codec must be model or vp8, got ${JSON.stringify(codec)}`);
  return codec;
}

export function noPositionals(command: string, positionals: readonly string[]): void {
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])} (see salsify ${command} --help)`);
}
