// The toolkit's writing of output files and directories: every whole output
// file (results, plots, reports, traces, scripts) is written to a temporary
// name beside it and renamed over it once complete, so that a full disk, a
// crash or a kill leaves the previous file or none, never a truncated one;
// and directories are made without Node's recursive mkdir, which loops for
// ever where a parent cannot be made (under /proc). Failures are one line
// naming the path (ERR_UNWRITABLE_FILE, exit status 2).
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileErrorReason, toolkitError, unwritableFile } from '../common/errors.ts';

let temporaries = 0;

/** The temporary name `path` is written under: hidden, in its directory, with this process's pid. */
export function temporaryPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${temporaries++}.tmp`);
}

/**
 * Writes `data` to `path` through a temporary name in the same directory
 * (flushed to disk, then renamed over `path`). Throws the file system's
 * error; the temporary file is removed.
 */
export function writeFileAtomically(path: string, data: string | Uint8Array): void {
  const temp = temporaryPathFor(path);
  try {
    const fd = openSync(temp, 'wx');
    try {
      const bytes = typeof data === 'string' ? Buffer.from(data) : data;
      for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/**
 * Makes `dir` and its missing parents, as mkdir -p. Unlike Node's
 * `mkdirSync(dir, { recursive: true })` it ends where a parent cannot be
 * made (Node 20 loops for ever on /proc/nope/x): throws the file system's error.
 */
export function makeDirectory(dir: string): void {
  const path = resolve(dir);
  try {
    if (statSync(path).isDirectory()) return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    const parent = dirname(path);
    if (parent !== path) makeDirectory(parent);
  }
  try {
    mkdirSync(path);
  } catch (error) {
    // Made meanwhile by another process: fine, if it is a directory.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(path).isDirectory()) throw error;
  }
}

export function writeResultsFile(path: string, text: string): void {
  try {
    writeFileAtomically(path, text);
  } catch (error) {
    throw unwritableFile(path, error);
  }
}

export function makeResultsDirectory(dir: string, option: string): void {
  try {
    makeDirectory(dir);
  } catch (error) {
    throw toolkitError('ERR_UNWRITABLE_FILE', `cannot create ${option} ${dir}: ${fileErrorReason(error, { writing: true })}`, error);
  }
}
