// Builds a reference implementation's test harness (test/reference-impl/NAME/)
// with g++ into a fresh temporary directory, and runs it on a feedback log
// or call log written beside it. Test-only.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
/** g++ of a few thousand lines at -O1 takes seconds; a shared machine may be slow. */
const BUILD_TIMEOUT_MS = 180_000;
const RUN_TIMEOUT_MS = 60_000;

/** Why the harnesses cannot be built here (no g++), or undefined when they can. */
export function cannotBuildHarness(): string | undefined {
  const probe = spawnSync('g++', ['--version'], { stdio: 'ignore', timeout: 10_000 });
  return probe.status === 0 ? undefined : 'g++ not found: the reference-implementation harness is not built and its comparison is skipped';
}

export interface NativeHarness {
  /** Runs the harness on a log (text), with `args` before the log's path: its stdout's lines, split into fields. */
  run(log: string, args?: readonly string[]): string[][];
  dispose(): void;
}

/** Compiles `sources` (relative to test/reference-impl/NAME/) into one program. */
export function buildHarness(name: string, sources: readonly string[]): NativeHarness {
  const dir = mkdtempSync(join(tmpdir(), `ref-${name}-`));
  const exe = join(dir, `${name}-harness`);
  const srcDir = join(HERE, name);
  execFileSync('g++', ['-std=c++17', '-O1', '-w', `-I${srcDir}`, '-o', exe, ...sources.map((s) => join(srcDir, s))], { stdio: ['ignore', 'ignore', 'pipe'], timeout: BUILD_TIMEOUT_MS });
  let runs = 0;
  return {
    run(log, args = []) {
      const path = join(dir, `log-${runs++}.txt`);
      writeFileSync(path, log);
      const out = execFileSync(exe, [...args, path], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: RUN_TIMEOUT_MS, maxBuffer: 1 << 28 });
      return out.trim().split('\n').map((line) => line.trim().split(/\s+/));
    },
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
