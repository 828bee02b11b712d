// A command whose standard output cannot be written (a closed pipe: EPIPE; a
// full disk or /dev/full: ENOSPC) says so in one line on stderr and exits with
// status 2, the status of an output that cannot be written, instead of dying
// of an unhandled 'error' event with a stack. Installed by each bin's main()
// (src/cli/salsify.ts, linkshell.ts, ccbench.ts) for the whole process, once;
// the line names the command that runs.
import { fileErrorReason } from './errors.ts';

let program: string | undefined;

function onStreamError(stream: 'standard output' | 'standard error', error: unknown): void {
  if (stream === 'standard output') {
    try {
      process.stderr.write(`${program}: cannot write ${stream}: ${fileErrorReason(error, { writing: true })}\n`);
    } catch {
      // stderr is gone too: the status says it.
    }
  }
  process.exit(2);
}

/** Makes a failed write to stdout (or stderr) end the process with one line and exit status 2; `name` is the command, as in its error lines. */
export function exitOnStandardStreamErrors(name: string): void {
  const first = program === undefined;
  program = name;
  if (!first) return;
  process.stdout.on('error', (error) => onStreamError('standard output', error));
  process.stderr.on('error', (error) => onStreamError('standard error', error));
}
