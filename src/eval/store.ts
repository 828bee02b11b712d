// The store of finished runs: DIR/store/HASH.json, one file per run, named by
// the hash of its complete configuration (config-hash.ts). A file is written
// to a temporary name beside it and renamed into place, so a reader (a rerun,
// `--collect`, another Slurm task) sees a whole result or none, whatever
// interrupted the writer. Only names of the form HASH.json are results.
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { toolkitError, unreadableFile, unwritableFile } from '../common/errors.ts';
import type { LateFrames } from '../results/late-frames.ts';
import type { Summary } from '../results/summary.ts';
import type { RunKey } from './config-hash.ts';
import type { SeriesBin } from './series.ts';
import { makeDirectory } from '../results/writer.ts';

/** What the store keeps of a run: its key, its results (the pipeline's JSON) and its time series. */
export interface StoredRun {
  readonly hash: string;
  readonly id: string;
  readonly key: RunKey;
  /** runToJson's object (label, config, counters, bytesSent, link, endMs, window, summary). */
  readonly result: { readonly summary: Summary; readonly counters: unknown; readonly [field: string]: unknown };
  readonly series: readonly SeriesBin[];
  /** When the downlink was off ([from, to) ms): an on-off link only. */
  readonly linkOffMs?: readonly (readonly [number, number])[];
  /** How its worst frames failed (late-frames.ts); absent in a run stored before it was recorded. */
  readonly lateFrames?: LateFrames;
}

export function storeDir(dir: string): string {
  return join(dir, 'store');
}

export function storePath(dir: string, hash: string): string {
  return join(storeDir(dir), `${hash}.json`);
}

export function makeStore(dir: string): void {
  try {
    makeDirectory(storeDir(dir));
  } catch (error) {
    throw unwritableFile(storeDir(dir), error);
  }
}

/** The text of a stored run (the bytes that results.json is made of), or undefined if it is not done. */
export function readStoredText(dir: string, hash: string): string | undefined {
  const path = storePath(dir, hash);
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw unreadableFile(path, error);
  }
}

/**
 * The stored run `hash`, or undefined if it is not done. An entry that is not
 * a stored run (corrupted: truncated, edited, another run's) is not done
 * either: `onCorrupt` is told why (one line naming the file) and the run is
 * computed again, its result written over it.
 */
export function readStored(dir: string, hash: string, onCorrupt: (message: string) => void): StoredRun | undefined {
  const text = readStoredText(dir, hash);
  if (text === undefined) return undefined;
  try {
    const run = JSON.parse(text) as StoredRun;
    if (run?.hash !== hash) throw new Error(`its hash field is ${JSON.stringify(run?.hash)}`);
    if (typeof run.result?.summary !== 'object' || !Array.isArray(run.series)) throw new Error('its result or series is missing');
    return run;
  } catch (error) {
    onCorrupt(`${storePath(dir, hash)}: not a stored run (${(error as Error).message}); running it again`);
    return undefined;
  }
}

/** The temporary name a writer uses: dot-prefixed, with its pid, so that it is never read as a result. */
export function tempPath(dir: string, hash: string, pid = process.pid): string {
  return join(storeDir(dir), `.${hash}.${pid}.tmp`);
}

/** Writes the run's text atomically: a temporary file, then a rename over HASH.json. */
export function writeStored(dir: string, hash: string, text: string): void {
  const temp = tempPath(dir, hash);
  try {
    writeFileSync(temp, text);
    renameSync(temp, storePath(dir, hash));
  } catch (error) {
    rmSync(temp, { force: true });
    throw unwritableFile(storePath(dir, hash), error);
  }
}

/** Removes the temporary files of writer `pid` (a worker stopped mid-write). */
export function removeTemporaries(dir: string, pid: number): void {
  let names: string[];
  try {
    names = readdirSync(storeDir(dir));
  } catch {
    return;
  }
  for (const name of names) if (name.startsWith('.') && name.endsWith(`.${pid}.tmp`)) rmSync(join(storeDir(dir), name), { force: true });
}
