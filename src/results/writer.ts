// The results pipeline's only I/O: writing a results file (JSON, CSV) or
// making the directory for them, each failure one line naming the path.
import { mkdirSync, writeFileSync } from 'node:fs';
import { UsageError } from '../common/usage-error.ts';

export function writeResultsFile(path: string, text: string): void {
  try {
    writeFileSync(path, text);
  } catch (error) {
    throw new UsageError(`cannot write ${path}: ${(error as Error).message}`);
  }
}

export function makeResultsDirectory(dir: string, option: string): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw new UsageError(`cannot create ${option} ${dir}: ${(error as Error).message}`);
  }
}
