// --summary-json FILE: opened when linkshell starts (created if new, left
// as it is otherwise), so that a path that cannot be written stops it before
// anything runs; written once, at the end, with the summary and the run's
// verdict. A run that does not start leaves no file it created.

import { closeSync, existsSync, ftruncateSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { unwritableFile } from '../common/errors.ts';
import type { LinkshellReport } from './summary.ts';
import { summaryDocument } from './verdict.ts';

export class SummaryJsonFile {
  private constructor(
    readonly path: string,
    private fd: number | undefined,
    private readonly created: boolean,
  ) {}

  /** Throws an ERR_UNWRITABLE_FILE error naming the file if it cannot be written. */
  static open(path: string): SummaryJsonFile {
    const existed = existsSync(path);
    try {
      return new SummaryJsonFile(path, openSync(path, 'a'), !existed);
    } catch (error) {
      throw unwritableFile(path, error);
    }
  }

  write(report: LinkshellReport): void {
    if (this.fd === undefined) throw new Error(`summary file ${this.path} is closed`);
    const fd = this.fd;
    this.fd = undefined;
    try {
      ftruncateSync(fd, 0);
      writeSync(fd, JSON.stringify(summaryDocument(report), null, 2) + '\n');
    } catch (error) {
      throw unwritableFile(this.path, error);
    } finally {
      closeSync(fd);
    }
  }

  /** Nothing ran: a file created at the start goes, one that was there stays as it was. */
  discard(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
    if (!this.created) return;
    try {
      unlinkSync(this.path);
    } catch {
      // Gone already.
    }
  }
}
