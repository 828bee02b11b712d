// Errors as typed values: every error a command reports carries a stable code
// saying whose fault it is, and the code alone decides the exit status (the
// one table EXIT_STATUS below). Errors are made by one factory, toolkitError();
// library errors that are the caller's fault (a malformed trace or log, a bad
// queue argument) are ToolkitErrors too, so every CLI maps them the same way.
import type { Stats } from 'node:fs';

/** The stable codes, and the exit status each one gives a command. */
export const EXIT_STATUS = {
  /** A bad command-line argument or option value. */
  ERR_BAD_ARGUMENT: 2,
  /** A malformed input file: trace, mm-link log, Y4M, IVF. */
  ERR_BAD_INPUT: 2,
  /** An input file that cannot be read: missing, a directory, a FIFO, no permission. */
  ERR_UNREADABLE_FILE: 2,
  /** An output (file, directory, standard output) that cannot be written: full disk, missing directory. */
  ERR_UNWRITABLE_FILE: 2,
  /**
   * A part of the installation or the machine is missing (the native VP8 addon
   * was not built; root, /dev/net/tun or iproute2 for linkshell --netns): the
   * environment's to fix, not a defect, so like bad input it is one line and 2.
   */
  ERR_UNAVAILABLE: 2,
  /** Anything else: a defect of the toolkit. */
  ERR_INTERNAL: 1,
} as const;

export type ErrorCode = keyof typeof EXIT_STATUS;

const CODES = new Set<string>(Object.keys(EXIT_STATUS));

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && CODES.has(code);
}

/** An error with a stable code. Subclasses (TraceFormatError, ...) add the fields that locate the fault. */
export class ToolkitError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = 'ToolkitError';
  }
}

/** The one factory of the toolkit's own errors. */
export function toolkitError(code: ErrorCode, message: string, cause?: unknown): ToolkitError {
  const error = new ToolkitError(code, message, cause === undefined ? undefined : { cause });
  Error.captureStackTrace?.(error, toolkitError);
  return error;
}

/** A bad argument: `usageError('--seed must be ...')`. */
export function usageError(message: string): ToolkitError {
  const error = toolkitError('ERR_BAD_ARGUMENT', message);
  Error.captureStackTrace?.(error, usageError);
  return error;
}

/** True for a ToolkitError (of the given code, when one is given). */
export function isToolkitError(error: unknown, code?: ErrorCode): error is ToolkitError {
  return error instanceof ToolkitError && (code === undefined || error.code === code);
}

/**
 * The code of any thrown value: a ToolkitError's own; node:util parseArgs's
 * errors (ERR_PARSE_ARGS_*) are bad arguments; anything else is internal.
 */
export function errorCodeOf(error: unknown): ErrorCode {
  if (error instanceof ToolkitError) return error.code;
  const code = (error as { code?: unknown } | null)?.code;
  if (isErrorCode(code)) return code;
  if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) return 'ERR_BAD_ARGUMENT';
  return 'ERR_INTERNAL';
}

/** The exit status a command returns for `error`. */
export function exitStatusOf(error: unknown): number {
  return EXIT_STATUS[errorCodeOf(error)];
}

const FILE_ERRNO_REASONS: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EISDIR: 'is a directory',
  ENOTDIR: 'a part of the path is not a directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'read-only file system',
  EFBIG: 'file too large',
  EMFILE: 'too many open files',
  EPIPE: 'the reading end was closed',
};

/** What a path is, in words: "a directory", "a FIFO (named pipe)", ... */
export function fileKind(stats: Stats): string {
  if (stats.isFile()) return 'a regular file';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}

/**
 * A short reason for a file-system error ("no such file or directory"), else
 * its message. When writing, ENOENT can only mean a missing directory.
 */
export function fileErrorReason(error: unknown, { writing = false }: { writing?: boolean } = {}): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (writing && code === 'ENOENT') return 'no such directory';
  return (code !== undefined && FILE_ERRNO_REASONS[code]) || (error instanceof Error ? error.message : String(error));
}

/** "cannot write OUT.json: no space left on the device" (code ERR_UNWRITABLE_FILE). */
export function unwritableFile(path: string, error: unknown): ToolkitError {
  return toolkitError('ERR_UNWRITABLE_FILE', `cannot write ${path}: ${fileErrorReason(error, { writing: true })}`, error);
}

/** "cannot read IN.log: is a directory" (code ERR_UNREADABLE_FILE). */
export function unreadableFile(path: string, error: unknown): ToolkitError {
  return toolkitError('ERR_UNREADABLE_FILE', `cannot read ${path}: ${fileErrorReason(error)}`, error);
}

/**
 * An error met while opening what the command line names (its files and
 * their contents): the caller's to fix. A typed error keeps its code; a file
 * system error is an unreadable file; anything else is a bad input.
 */
export function asInputError(error: unknown): ToolkitError {
  if (error instanceof ToolkitError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const errno = (error as NodeJS.ErrnoException | null)?.code;
  if (typeof errno === 'string' && /^E[A-Z]+$/.test(errno)) return toolkitError('ERR_UNREADABLE_FILE', message, error);
  return toolkitError('ERR_BAD_INPUT', message, error);
}

/** The error with its message prefixed by `context` ("--video"): the same code (asInputError's for an untyped error). */
export function inContext(context: string, error: unknown): ToolkitError {
  const typed = asInputError(error);
  return toolkitError(typed.code, `${context}: ${typed.message}`, error);
}

/** Runs `setup` (argument parsing, opening inputs), turning any error into an input error (asInputError). */
export function duringSetup<T>(setup: () => T): T {
  try {
    return setup();
  } catch (error) {
    throw asInputError(error);
  }
}

/** duringSetup for asynchronous setup. */
export async function duringSetupAsync<T>(setup: () => Promise<T>): Promise<T> {
  try {
    return await setup();
  } catch (error) {
    throw asInputError(error);
  }
}

/** An error message as one line: multi-line messages are folded. */
export function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.trim().replace(/:\s*\n\s*/g, ': ').replace(/\s*\n\s*/g, '; ');
}

/**
 * Runs a command body; an error is printed as one line "PROGRAM: MESSAGE" on
 * stderr (an internal error adds its stack with LOWLAT_DEBUG=1) and the
 * exit status comes from its code (EXIT_STATUS).
 */
export async function runCommand(program: string, body: () => Promise<number> | number): Promise<number> {
  try {
    return await body();
  } catch (error) {
    reportError(program, error);
    return exitStatusOf(error);
  }
}

/** Prints `error` as runCommand does. */
export function reportError(program: string, error: unknown): void {
  process.stderr.write(`${program}: ${oneLine(error)}\n`);
  if (errorCodeOf(error) === 'ERR_INTERNAL' && process.env.LOWLAT_DEBUG === '1' && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
}
