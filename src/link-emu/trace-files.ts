// Trace files: reading, writing, and finding a trace from the name given on a
// command line.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { formatTrace } from './trace-format.ts';
import { parseTrace } from './trace-parse.ts';
import type { Trace } from './trace.ts';

/** Where Mahimahi installs its traces. */
export const MAHIMAHI_TRACE_DIR = '/usr/share/mahimahi/traces';

/** The environment variable naming a directory of traces. */
export const TRACES_ENV_VAR = 'LINKSHELL_TRACES';

function readFailure(path: string, error: unknown): Error {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const reason =
    code === 'ENOENT' ? 'no such file' :
    code === 'EISDIR' ? 'is a directory' :
    code === 'EACCES' ? 'permission denied' :
    (error as Error | undefined)?.message ?? String(error);
  return new Error(`cannot read trace file ${path}: ${reason}`, { cause: error });
}

/** Reads and parses a trace file; the trace's source is `path`. Errors name the path. */
export function loadTrace(path: string): Trace {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw readFailure(path, error);
  }
  return parseTrace(bytes, path);
}

/** loadTrace without blocking the event loop while the file is read. */
export async function loadTraceAsync(path: string): Promise<Trace> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw readFailure(path, error);
  }
  return parseTrace(bytes, path);
}

/** Writes the trace in the Mahimahi format (see formatTrace). */
export function writeTrace(path: string, trace: Trace): void {
  const text = formatTrace(trace);
  try {
    writeFileSync(path, text);
  } catch (error) {
    throw new Error(`cannot write trace file ${path}: ${(error as Error).message}`, { cause: error });
  }
}

export interface TraceLookupOptions {
  /** Directory that relative names and ./traces are taken from (default: process.cwd()). */
  cwd?: string;
  /** Environment holding LINKSHELL_TRACES (default: process.env). */
  env?: Record<string, string | undefined>;
  /** Mahimahi's trace directory (default /usr/share/mahimahi/traces; settable for tests). */
  mahimahiDir?: string;
}

/** The places a trace name is looked for, in order (absolute names: only themselves). */
export function traceCandidates(name: string, options: TraceLookupOptions = {}): string[] {
  if (name === '') throw new Error('empty trace name');
  const cwd = options.cwd ?? process.cwd();
  if (isAbsolute(name)) return [name];
  const env = options.env ?? process.env;
  const candidates = [resolve(cwd, name), resolve(cwd, 'traces', name)];
  const envDir = env[TRACES_ENV_VAR];
  if (envDir) candidates.push(resolve(cwd, envDir, name));
  candidates.push(join(options.mahimahiDir ?? MAHIMAHI_TRACE_DIR, name));
  return candidates;
}

function isFile(path: string): boolean {
  try {
    return existsSync(path) && statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Finds the file a trace name refers to: the name as a path, then
 * ./traces/NAME, then $LINKSHELL_TRACES/NAME, then
 * /usr/share/mahimahi/traces/NAME. The error lists every place tried.
 */
export function resolveTraceName(name: string, options: TraceLookupOptions = {}): string {
  const candidates = traceCandidates(name, options);
  const found = candidates.find(isFile);
  if (found !== undefined) return found;
  const env = options.env ?? process.env;
  const note = env[TRACES_ENV_VAR] ? '' : ` (${TRACES_ENV_VAR} is not set)`;
  throw new Error(`trace "${name}" not found; tried:\n  ${candidates.join('\n  ')}${note}`);
}

/** resolveTraceName then loadTrace: what a command line's trace argument means. */
export function openTrace(name: string, options: TraceLookupOptions = {}): Trace {
  return loadTrace(resolveTraceName(name, options));
}
