// A single-node Slurm for tests, on localhost, as root: munged with a key
// generated into a temporary directory, then slurmctld and slurmd (Debian's
// slurm-wlm) in the foreground as children of the test, with a generated
// minimal slurm.conf (state, spool and logs in the same directory, free
// ports, proctrack/linuxproc, task/none, select/cons_tres). stop() ends the
// three daemons it started (by their pids) and removes the directory.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { HANG_BOUND_MS } from '../helpers/bounds.ts';
import { freeTcpPort } from '../../src/net/free-port.ts';

export interface SlurmCluster {
  readonly dir: string;
  /** The environment that points Slurm's commands (sbatch, squeue) at this cluster. */
  readonly env: Record<string, string>;
  /** Runs a Slurm command against this cluster. */
  run(command: string, args: readonly string[]): { status: number | null; stdout: string; stderr: string };
  /** The daemons' logs, for failure messages. */
  logs(): string;
  stop(): Promise<void>;
}

/** Why this machine cannot run the test cluster, or undefined when it can. */
export function cannotRunSlurm(): string | undefined {
  if (process.getuid?.() !== 0) return 'not root: munged, slurmctld and slurmd run as root here';
  return undefined;
}


function daemon(command: string, args: readonly string[], dir: string, name: string): ChildProcess {
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'], cwd: dir });
  let err = '';
  child.stderr!.on('data', (c) => (err = (err + String(c)).slice(-4000)));
  child.once('exit', () => writeFileSync(join(dir, `${name}.stderr`), err));
  return child;
}

async function until(condition: () => boolean, timeoutMs: number, what: string, logs: () => string): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}\n${logs()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

export async function startSlurm(): Promise<SlurmCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'eval-slurm-'));
  // munged wants every directory above its socket searchable by all.
  chmodSync(dir, 0o755);
  for (const sub of ['state', 'spool']) mkdirSync(join(dir, sub));
  const key = join(dir, 'munge.key');
  writeFileSync(key, randomBytes(1024), { mode: 0o400 });
  const socket = join(dir, 'munge.sock');
  const [ctldPort, slurmdPort] = [await freeTcpPort(), await freeTcpPort()];
  const host = hostname();
  const conf = join(dir, 'slurm.conf');
  writeFileSync(conf, [
    'ClusterName=evaltest',
    `SlurmctldHost=${host}(127.0.0.1)`,
    'SlurmUser=root', 'SlurmdUser=root',
    `SlurmctldPort=${ctldPort}`, `SlurmdPort=${slurmdPort}`,
    'AuthType=auth/munge', `AuthInfo=socket=${socket}`, 'CredType=cred/munge',
    `StateSaveLocation=${join(dir, 'state')}`, `SlurmdSpoolDir=${join(dir, 'spool')}`,
    `SlurmctldPidFile=${join(dir, 'slurmctld.pid')}`, `SlurmdPidFile=${join(dir, 'slurmd.pid')}`,
    `SlurmctldLogFile=${join(dir, 'slurmctld.log')}`, `SlurmdLogFile=${join(dir, 'slurmd.log')}`,
    'ProctrackType=proctrack/linuxproc', 'TaskPlugin=task/none',
    'SelectType=select/cons_tres', 'SelectTypeParameters=CR_Core',
    'ReturnToService=2', 'MpiDefault=none', 'SchedulerType=sched/builtin',
    'JobAcctGatherType=jobacct_gather/none', 'AccountingStorageType=accounting_storage/none',
    `NodeName=evalnode NodeHostname=${host} NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN`,
    'PartitionName=evaltest Nodes=evalnode Default=YES MaxTime=INFINITE State=UP',
    '',
  ].join('\n'));
  const env = { SLURM_CONF: conf };
  const started: ChildProcess[] = [];
  const logs = () => ['munged.log', 'slurmctld.log', 'slurmd.log', 'munged.stderr', 'slurmctld.stderr', 'slurmd.stderr']
    .map((f) => {
      try {
        return `--- ${f}\n${readFileSync(join(dir, f), 'utf8').split('\n').slice(-15).join('\n')}`;
      } catch {
        return '';
      }
    }).join('\n');
  const run = (command: string, args: readonly string[]) => {
    const r = spawnSync(command, args, { env: { ...process.env, ...env }, encoding: 'utf8', timeout: HANG_BOUND_MS });
    return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
  };
  const stop = async () => {
    // Newest first: slurmd, slurmctld, then munged.
    for (const child of started.reverse()) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    started.push(daemon('munged', ['-F', '-f', `--socket=${socket}`, `--key-file=${key}`, `--pid-file=${join(dir, 'munged.pid')}`, `--log-file=${join(dir, 'munged.log')}`, `--seed-file=${join(dir, 'munged.seed')}`], dir, 'munged'));
    await until(() => spawnSync('test', ['-S', socket]).status === 0, HANG_BOUND_MS, 'munged', logs);
    started.push(daemon('slurmctld', ['-D', '-i', '-f', conf], dir, 'slurmctld'));
    started.push(daemon('slurmd', ['-D', '-N', 'evalnode', '-f', conf], dir, 'slurmd'));
    await until(() => /^idle/.test(run('sinfo', ['-h', '-N', '-o', '%T']).stdout.trim()), HANG_BOUND_MS, 'slurmd to register (sinfo: idle)', logs);
  } catch (error) {
    await stop();
    throw error;
  }
  return { dir, env, run, logs, stop };
}
