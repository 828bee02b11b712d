// Errors in how a command was called: the CLIs print the message as one line and exit with status 2.

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Parses a non-negative integer option, or throws a UsageError naming the option. */
export function integerOption(name: string, value: string | undefined, { min = 0, max = Number.MAX_SAFE_INTEGER } = {}): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return Number(value);
}

/**
 * Runs `setup` (argument parsing, opening inputs) turning any error into a
 * UsageError: a bad argument or input file is the caller's to fix.
 */
export function duringSetup<T>(setup: () => T): T {
  try {
    return setup();
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** Runs a command body, printing an error as one line: exit 2 for usage errors, 1 otherwise. */
export async function runCommand(program: string, body: () => Promise<number> | number): Promise<number> {
  try {
    return await body();
  } catch (error) {
    // One line, whatever the error: multi-line messages are folded.
    const message = (error instanceof Error ? error.message : String(error)).trim().replace(/:\s*\n\s*/g, ': ').replace(/\s*\n\s*/g, '; ');
    process.stderr.write(`${program}: ${message}\n`);
    const parseArgsError = error instanceof Error && String((error as NodeJS.ErrnoException).code ?? '').startsWith('ERR_PARSE_ARGS');
    return error instanceof UsageError || parseArgsError ? 2 : 1;
  }
}
