// Temporary directories of calls whose process is gone. A call's temporary
// directories (its own, the browsers' profiles, a Salsify endpoint's) carry
// the owning process's id in their names; a call killed with SIGKILL cannot
// remove them (each held about 200 MB with its clip), so the next call removes
// every one whose owner no longer runs. Directories named before the id was
// part of the name are removed once they are a day old.
import { readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PREFIXES = ['salsify-webrtc-', 'salsify-endpoint-'];
const OWNED = /^salsify-(?:webrtc|endpoint)-(\d+)-/;
const UNOWNED_MAX_AGE_MS = 24 * 3600 * 1000;

/** The prefix for a temporary directory of this process: mkdtemp(join(tmpdir(), ownedTempPrefix('webrtc'))). */
export function ownedTempPrefix(kind: 'webrtc' | 'endpoint', what?: string): string {
  return `salsify-${kind}-${process.pid}-${what === undefined ? '' : `${what}-`}`;
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the stale temporary directories in `dir` (default: the system's); returns their names. */
export function removeStaleTempDirs(dir = tmpdir(), now = Date.now(), alive = processAlive): string[] {
  const removed: string[] = [];
  for (const name of readdirSync(dir)) {
    if (!PREFIXES.some((prefix) => name.startsWith(prefix))) continue;
    const path = join(dir, name);
    const owner = OWNED.exec(name);
    let stale: boolean;
    try {
      stale = owner !== null ? !alive(Number(owner[1])) : now - statSync(path).mtimeMs > UNOWNED_MAX_AGE_MS;
    } catch {
      continue;
    }
    if (!stale) continue;
    rmSync(path, { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}
