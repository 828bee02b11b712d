// The paper's released runs (excamera/salsify-results), read from a git clone
// of that repository: the directory given, else .cache/salsify-results.git,
// else the tool library's mirror. A blobless clone is enough (git fetches each
// file as it is read). Without one the benchmark says where it looked and how
// to get one, and exits with status 2.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const DEFAULT_GIT_DIRS = ['.cache/salsify-results.git', '/work/.mirror/excamera+salsify-results/repo'];

/** A reader of the clone's files at HEAD: a file's text, or undefined when it is not there (or not fetched). */
export function salsifyResults(tool: string, given: string | undefined): (path: string) => string | undefined {
  const gitDir = given ?? DEFAULT_GIT_DIRS.find((dir) => existsSync(dir));
  if (gitDir === undefined || !existsSync(gitDir)) {
    console.error(`${tool}: no clone of excamera/salsify-results at ${gitDir ?? DEFAULT_GIT_DIRS.join(' or ')}; get one with: git clone --bare --filter=blob:none https://github.com/excamera/salsify-results .cache/salsify-results.git`);
    process.exit(2);
  }
  return (path) => {
    try {
      return execFileSync('git', ['--git-dir', gitDir, 'show', `HEAD:${path}`], { encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'ignore'] });
    } catch {
      return undefined;
    }
  };
}
