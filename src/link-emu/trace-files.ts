// Trace files: reading, writing, and finding a trace from the name given on a
// command line.
import { readFileSync, statSync, type Stats } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { fileErrorReason, fileKind, toolkitError, type ToolkitError } from '../common/errors.ts';
import { formatTrace } from './trace-format.ts';
import { parseTrace } from './trace-parse.ts';
import type { Trace } from './trace.ts';
import { writeFileAtomically } from '../results/writer.ts';

/** Where Mahimahi installs its traces: a package's place, and a source build's (make install, prefix /usr/local). */
export const MAHIMAHI_TRACE_DIR = '/usr/share/mahimahi/traces';
export const MAHIMAHI_SOURCE_TRACE_DIR = '/usr/local/share/mahimahi/traces';
/** Mahimahi's trace directories in the order they are searched: a source build first, as /usr/local comes before /usr. */
export const MAHIMAHI_TRACE_DIRS = [MAHIMAHI_SOURCE_TRACE_DIR, MAHIMAHI_TRACE_DIR] as const;

/** The environment variable naming a directory of traces. */
export const TRACES_ENV_VAR = 'LINKSHELL_TRACES';

function readFailure(path: string, error: unknown): ToolkitError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const reason =
    code === 'ENOENT' ? 'no such file' :
    code === 'EISDIR' ? 'is a directory' :
    code === 'EACCES' ? 'permission denied' :
    (error as Error | undefined)?.message ?? String(error);
  return toolkitError('ERR_UNREADABLE_FILE', `cannot read trace file ${path}: ${reason}`, error);
}

/** A path that exists but is not a regular file: reading it would fail or, for a FIFO, wait for a writer. */
function notRegularFile(path: string, stats: Stats): ToolkitError {
  const what = fileKind(stats);
  return toolkitError('ERR_UNREADABLE_FILE', `cannot read trace file ${path}: ${what === 'not a regular file' ? what : `is ${what}`}`);
}

/** The stats of `path`, or undefined when it does not exist (or cannot be examined). */
function statOf(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/** Checks that `path` is a regular file before it is opened (a FIFO would block the read). */
function checkRegularFile(path: string): void {
  const stats = statOf(path);
  if (stats !== undefined && !stats.isFile()) throw notRegularFile(path, stats);
}

/** Reads and parses a trace file; the trace's source is `path`. Errors name the path. */
export function loadTrace(path: string): Trace {
  checkRegularFile(path);
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
  checkRegularFile(path);
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
    writeFileAtomically(path, text);
  } catch (error) {
    throw toolkitError('ERR_UNWRITABLE_FILE', `cannot write trace file ${path}: ${fileErrorReason(error)}`, error);
  }
}

export interface TraceLookupOptions {
  /** Directory that relative names and ./traces are taken from (default: process.cwd()). */
  cwd?: string;
  /** Environment holding LINKSHELL_TRACES (default: process.env). */
  env?: Record<string, string | undefined>;
  /** Mahimahi's trace directories (default MAHIMAHI_TRACE_DIRS; settable for tests). */
  mahimahiDirs?: readonly string[];
  /** One directory instead of mahimahiDirs. */
  mahimahiDir?: string;
}

/** The places a trace name is looked for, in order (absolute names: only themselves). */
export function traceCandidates(name: string, options: TraceLookupOptions = {}): string[] {
  if (name === '') throw toolkitError('ERR_BAD_ARGUMENT', 'empty trace name');
  const cwd = options.cwd ?? process.cwd();
  if (isAbsolute(name)) return [name];
  const env = options.env ?? process.env;
  const candidates = [resolve(cwd, name), resolve(cwd, 'traces', name)];
  const envDir = env[TRACES_ENV_VAR];
  if (envDir) candidates.push(resolve(cwd, envDir, name));
  // The data folder this project's checkouts keep beside the repository (the recorded traces).
  candidates.push(resolve(cwd, '..', 'shared', 'traces', name));
  const mahimahiDirs = options.mahimahiDir !== undefined ? [options.mahimahiDir] : (options.mahimahiDirs ?? MAHIMAHI_TRACE_DIRS);
  for (const dir of mahimahiDirs) candidates.push(join(dir, name));
  return candidates;
}

/**
 * Finds the file a trace name refers to: the name as a path, then
 * ./traces/NAME, then $LINKSHELL_TRACES/NAME, then ../shared/traces/NAME
 * (the recorded traces beside a checkout), then /usr/local/share/mahimahi/traces/NAME and /usr/share/mahimahi/traces/NAME;
 * the first regular file wins. When none is found, the one-line error lists
 * every place tried, or says what the first place that exists is instead (a
 * directory, a FIFO, ...).
 */
export function resolveTraceName(name: string, options: TraceLookupOptions = {}): string {
  const candidates = traceCandidates(name, options);
  const found = candidates.map((path) => ({ path, stats: statOf(path) }));
  const file = found.find(({ stats }) => stats?.isFile());
  if (file !== undefined) return file.path;
  const other = found.find(({ stats }) => stats !== undefined);
  if (other !== undefined) {
    const where = other.path === name ? `trace ${name}` : `trace "${name}": ${other.path}`;
    throw toolkitError('ERR_UNREADABLE_FILE', `${where} is ${fileKind(other.stats!)}, not a trace file`);
  }
  const env = options.env ?? process.env;
  const note = env[TRACES_ENV_VAR] ? '' : ` (${TRACES_ENV_VAR} is not set)`;
  throw toolkitError('ERR_UNREADABLE_FILE', `trace "${name}" not found; tried: ${candidates.join(', ')}${note}`);
}

/** The file a trace name names (resolveTraceName), or the name itself when none is found (the error comes when it is opened). */
export function traceFile(name: string, options: TraceLookupOptions = {}): string {
  try {
    return resolveTraceName(name, options);
  } catch {
    return name;
  }
}

/** resolveTraceName then loadTrace: what a command line's trace argument means. */
export function openTrace(name: string, options: TraceLookupOptions = {}): Trace {
  return loadTrace(resolveTraceName(name, options));
}
