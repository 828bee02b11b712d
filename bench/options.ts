// The value of `--NAME VALUE` on a benchmark's command line, or `fallback`.
export function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = process.argv[i + 1];
  if (value === undefined) throw new Error(`--${name} needs a value`);
  return value;
}
