// The results pipeline's only I/O: writing a results file (JSON, CSV) or
// making the directory for them, each failure one line naming the path.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileErrorReason, toolkitError, unwritableFile } from '../common/errors.ts';

export function writeResultsFile(path: string, text: string): void {
  try {
    writeFileSync(path, text);
  } catch (error) {
    throw unwritableFile(path, error);
  }
}

export function makeResultsDirectory(dir: string, option: string): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw toolkitError('ERR_UNWRITABLE_FILE', `cannot create ${option} ${dir}: ${fileErrorReason(error, { writing: true })}`, error);
  }
}
