// Input files and standard output for the command-line front ends, failing
// cleanly: a file that cannot be read, or a write that fails (a full disk,
// `> /dev/full`, a closed pipe), becomes an error naming the file or
// standard output, so the command prints one line and exits 2 instead of
// dying on an unhandled stream error with a stack trace.

import { readFileSync, statSync } from 'node:fs';
import { fileErrorReason, fileKind, toolkitError, unreadableFile } from '../common/errors.ts';

/**
 * The text of an input file, or an ERR_UNREADABLE_FILE error naming it ("cannot read X: is a directory").
 * What is not a regular file is refused before it is opened: reading a FIFO would wait for a writer.
 */
export function readInputFile(path: string): string {
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
