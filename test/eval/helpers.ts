// Running `salsify eval` from the tests: the built binary (bin/salsify.js), in
// a child process, bounded in time, with the shared traces on LINKSHELL_TRACES.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HANG_BOUND_MS } from '../helpers/bounds.ts';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const SALSIFY = join(ROOT, 'bin', 'salsify.js');
export const SHARED_TRACES = join(ROOT, '..', 'shared', 'traces');

export interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Starts `salsify eval ARGS`; `group`: in a process group of its own, as a terminal's foreground job (signal it with process.kill(-pid)). */
export function startEval(args: readonly string[], env: Record<string, string | undefined> = {}, group = false, cwd = ROOT): { child: ChildProcess; done: Promise<Ran>; stderr: () => string } {
  const child = spawn(process.execPath, [SALSIFY, 'eval', ...args], {
    cwd,
    detached: group,
    env: { ...process.env, LINKSHELL_TRACES: SHARED_TRACES, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c) => (stdout += String(c)));
  child.stderr!.on('data', (c) => (stderr += String(c)));
  const done = new Promise<Ran>((resolve) => child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done, stderr: () => stderr };
}

/** Runs `salsify eval ARGS`; kills it and fails after `timeoutMs` (a bound against a hang, tests/helpers/bounds.ts). */
export async function runEval(args: readonly string[], timeoutMs = HANG_BOUND_MS, env: Record<string, string | undefined> = {}, cwd = ROOT): Promise<Ran> {
  const { child, done } = startEval(args, env, false, cwd);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const r = await done;
  clearTimeout(timer);
  if (r.signal === 'SIGKILL') throw new Error(`salsify eval ${args.join(' ')} did not finish within ${timeoutMs} ms: ${r.stderr}`);
  return r;
}

/** Every file under `dir` (relative names, sorted) with its bytes: what two evals must agree on. */
export function filesOf(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (sub: string) => {
    for (const e of readdirSync(join(dir, sub), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const rel = sub ? join(sub, e.name) : e.name;
      if (e.isDirectory()) walk(rel);
      else out.set(rel, readFileSync(join(dir, rel)));
    }
  };
  walk('');
  return out;
}

/** A file's bytes for comparing two evals' outputs: report.html without its provenance block (dates, load, how it was made: each eval's own). */
export function withoutProvenance(name: string, bytes: Buffer): Buffer {
  return name === 'report.html' ? Buffer.from(bytes.toString().replace(/<section id="provenance">[\s\S]*?<\/section>/, '')) : bytes;
}
