// A benchmark's command line: `--NAME VALUE` options and `--NAME` flags.
import { basename } from 'node:path';

// The value of `--NAME VALUE` on a benchmark's command line, or `fallback`.
export function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = process.argv[i + 1];
  if (value === undefined) throw new Error(`--${name} needs a value`);
  return value;
}

/**
 * Refuses a `--NAME` on the command line that is neither one of `options`
 * (each followed by its value) nor one of `flags`: one line on stderr naming
 * it and what the benchmark takes, and exit status 2, before anything runs
 * (a mistyped option would otherwise run the whole default benchmark).
 */
export function refuseUnknownOptions(options: readonly string[], flags: readonly string[] = []): void {
  const args = process.argv.slice(2);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('--')) continue;
    const name = arg.slice(2);
    if (flags.includes(name)) continue;
    if (options.includes(name)) {
      i++;
      continue;
    }
    const takes = [...options.map((o) => `--${o} VALUE`), ...flags.map((f) => `--${f}`)].join(', ') || 'no option';
    process.stderr.write(`${basename(process.argv[1] ?? 'bench')}: unknown option ${arg} (it takes ${takes})\n`);
    process.exit(2);
  }
}
