// Per-run locks in the store, so that two evals on one --out never compute the
// same run twice: before a run is given to a worker its lock file,
// DIR/store/HASH.lock, is created exclusively (O_EXCL) holding "PID@HOST";
// it is removed once the result is stored or the eval stops. Lock files are
// created whole (written aside, then hard-linked into place). A lock whose
// process is gone (same host, no such pid: an eval killed with SIGKILL) is
// stale and is taken over. A run locked by a live eval is left to it: this
// eval runs the others first, then waits for that one's result (or its lock
// to go).
import { closeSync, linkSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { storeDir } from './store.ts';

export function lockPath(dir: string, hash: string): string {
  return join(storeDir(dir), `${hash}.lock`);
}

const HOLDER = `${process.pid}@${hostname()}`;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the holder written in a lock file ("PID@HOST") is gone: a process of this host that no longer runs. */
export function staleHolder(text: string): boolean {
  const m = /^(\d+)@(.*)$/.exec(text.trim());
  if (!m) return true; // not a lock this code writes (locks are created whole)
  const [, pid, host] = m;
  return host === hostname() && Number(pid) !== process.pid && !alive(Number(pid));
}

/** Creates the lock file holding this process, whole or not at all (written aside, then linked: EEXIST if taken). */
function createLock(path: string): boolean {
  const temp = `${path}.${process.pid}.tmp`;
  const fd = openSync(temp, 'w');
  try {
    writeSync(fd, `${HOLDER}\n`);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return false;
  } finally {
    rmSync(temp, { force: true });
  }
}

/** Moves a stale lock away, unless it was replaced meanwhile by a live one (then put back). */
function removeStale(path: string, seen: string): void {
  const aside = `${path}.${process.pid}.stale`;
  try {
    renameSync(path, aside);
  } catch {
    return; // removed meanwhile
  }
  if (readFileSync(aside, 'utf8') !== seen) {
    try {
      linkSync(aside, path);
    } catch {
      // another lock took its place: that one holds the run
    }
  }
  rmSync(aside, { force: true });
}

/** Takes the lock of run `hash`: true if this process holds it now, false if a live process does. */
export function tryLockRun(dir: string, hash: string): boolean {
  const path = lockPath(dir, hash);
  for (let attempt = 0; attempt < 3; attempt++) {
    if (createLock(path)) return true;
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      continue; // removed meanwhile: try again
    }
    if (text.trim() === HOLDER) return true;
    if (!staleHolder(text)) return false;
    removeStale(path, text);
  }
  return false;
}

/** Removes this process's lock of run `hash` (not another's). */
export function unlockRun(dir: string, hash: string): void {
  const path = lockPath(dir, hash);
  try {
    if (readFileSync(path, 'utf8').trim() === HOLDER) rmSync(path, { force: true });
  } catch {
    // gone already
  }
}
