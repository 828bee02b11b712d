// Input files and standard output for the command-line front ends, failing
// cleanly: a file that cannot be read, or a write that fails (a full disk,
// `> /dev/full`, a closed pipe), becomes an error naming the file or
// standard output, so the command prints one line and exits 2 instead of
// dying on an unhandled stream error with a stack trace.

import { readFileSync, statSync } from 'node:fs';
import { fileErrorReason, fileKind, toolkitError, unreadableFile, usageError } from '../common/errors.ts';
import { writeResultsFile } from '../results/writer.ts';

/** The name that means standard input (for a file read) or standard output (for a file written), as in most Unix tools. */
export const STDIO = '-';

/** How a message names an input or output file: "standard input" for "-". */
export function inputName(path: string): string {
  return path === STDIO ? 'standard input' : path;
}

/** Standard input can be read once: a command line naming it ("-") twice is refused. */
export function refuseStdinTwice(paths: readonly (string | undefined)[]): void {
  if (paths.filter((p) => p === STDIO).length > 1) throw usageError('"-" (standard input) is named more than once; it can be read only once');
}

/**
 * The text of an input file, or an ERR_UNREADABLE_FILE error naming it ("cannot read X: is a directory").
 * What is not a regular file is refused before it is opened: reading a FIFO would wait for a writer.
 */
export function readInputFile(path: string): string {
  if (path === STDIO) {
    try {
      return readFileSync(0, 'utf8');
    } catch (error) {
      throw toolkitError('ERR_UNREADABLE_FILE', `cannot read standard input: ${fileErrorReason(error)}`, error);
    }
  }
  let stats;
  try {
    stats = statSync(path);
  } catch {
    // Reported by the read below.
  }
  if (stats !== undefined && !stats.isFile()) throw toolkitError('ERR_UNREADABLE_FILE', `cannot read ${path}: is ${fileKind(stats)}`);
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw unreadableFile(path, error);
  }
}

/** Writes `text` to standard output; resolves once it is written, rejects with one ERR_UNWRITABLE_FILE error if it cannot be. */
export function writeStdout(text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      reject(toolkitError('ERR_UNWRITABLE_FILE', `cannot write standard output: ${fileErrorReason(error, { writing: true })}`, error));
    };
    // The stream also emits the error as an event; without a listener that event would crash the process.
    process.stdout.once('error', fail);
    process.stdout.write(text, (error) => {
      // On failure the event follows this callback: the listener stays to take it.
      if (error) fail(error);
      else if (!settled) {
        process.stdout.off('error', fail);
        settled = true;
        resolve();
      }
    });
  });
}

/** Writes an output file, or standard output for "-"; one ERR_UNWRITABLE_FILE line when it cannot be written. */
export async function writeOutputFile(path: string, text: string): Promise<void> {
  if (path === STDIO) await writeStdout(text);
  else writeResultsFile(path, text);
}

/** Writes `text` to standard error (the human-readable lines of a command whose standard output carries a file: `--json -`). */
export function writeStderr(text: string): Promise<void> {
  return new Promise((resolve) => process.stderr.write(text, () => resolve()));
}
