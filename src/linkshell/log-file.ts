// An mm-link log written to a file as the link runs: lines are buffered in
// memory and written out when a chunk fills or when flush() is called
// (linkshell flushes a few times a second), so the file is at most a moment
// behind the link; close() writes the rest and closes the file. The file is
// opened at once (a path that cannot be written stops linkshell before it
// starts); its header, which holds the base timestamp, can come later
// (begin()), when a held trace clock starts (trace-clock.ts).

import { closeSync, openSync, writeSync } from 'node:fs';
import { fileErrorReason, ToolkitError } from '../common/errors.ts';
import { LinkLogWriter, type LinkLogHeader } from '../link-emu/link-log.ts';

/** A log file that could not be opened or written: the message names the file and why, in one line. */
export class LogFileError extends ToolkitError {
  constructor(readonly path: string, error: unknown) {
    super('ERR_UNWRITABLE_FILE', `cannot write log file ${path}: ${fileErrorReason(error, { writing: true })}`, { cause: error });
    this.name = 'LogFileError';
  }
}

export class LinkLogFile {
  private logWriter: LinkLogWriter | undefined;
  private fd: number | undefined;

  /** Opens (creates or truncates) `path`, with its header now or (without one) at begin(); throws an Error naming the file if it cannot. */
  constructor(readonly path: string, header?: LinkLogHeader) {
    try {
      this.fd = openSync(path, 'w');
    } catch (error) {
      throw new LogFileError(path, error);
    }
    if (header !== undefined) this.begin(header);
  }

  /** Starts the log with its header (once). */
  begin(header: LinkLogHeader): LinkLogWriter {
    if (this.logWriter !== undefined) throw new Error(`log file ${this.path} has begun already`);
    this.logWriter = new LinkLogWriter((chunk) => this.write(chunk), header, 1 << 16);
    return this.logWriter;
  }

  /** The events' writer (after the header). */
  get writer(): LinkLogWriter {
    if (this.logWriter === undefined) throw new Error(`log file ${this.path} has no header yet`);
    return this.logWriter;
  }

  flush(): void {
    if (this.fd !== undefined) this.logWriter?.flush();
  }

  /** Writes what is buffered and closes the file (the writer then refuses events). Idempotent. */
  close(): void {
    if (this.fd === undefined) return;
    try {
      this.logWriter?.close();
    } finally {
      closeSync(this.fd);
      this.fd = undefined;
    }
  }

  private write(chunk: string): void {
    if (this.fd === undefined) throw new Error(`log file ${this.path} is closed`);
    const bytes = Buffer.from(chunk, 'utf8');
    let offset = 0;
    try {
      while (offset < bytes.length) offset += writeSync(this.fd, bytes, offset, bytes.length - offset);
    } catch (error) {
      // A full disk, say: one line naming the file, not a stack trace from deep in the link.
      throw new LogFileError(this.path, error);
    }
  }
}
