// linkshell (bin/linkshell.js) as a child of the bench, between the sending
// browser and coturn. Its uplink (what inside applications send: the sender's
// TURN traffic, the video) replays the scenario's .down trace, its downlink
// (coturn's answers: the receiver's feedback) the .up trace, as in the paper.
// Ready when it prints its listen address; stopped with SIGINT, after which
// it completes its logs and prints its summary.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const LINKSHELL_BIN = fileURLToPath(new URL('../../bin/linkshell.js', import.meta.url));

export interface LinkshellChildOptions {
  /** Trace of the video direction (sender to coturn). */
  readonly videoTrace: string;
  /** Trace of the feedback direction (coturn to sender). */
  readonly feedbackTrace: string;
  /** coturn's address, host:port. */
  readonly connect: string;
  readonly videoLog: string;
  readonly feedbackLog: string;
  /** Further linkshell options (queues, delay, loss, seed), in linkshell's own words. */
  readonly extraArgs?: readonly string[];
  readonly timeoutMs?: number;
}

export interface LinkshellChild {
  /** Where the sender's TURN URL points: host:port. */
  readonly listen: string;
  readonly pid: number | undefined;
  /** linkshell's stderr so far (its summary once stopped). */
  output(): string;
  /** SIGINT, then SIGKILL after 10 s; resolves with its exit status. */
  stop(): Promise<number | null>;
}

export function linkshellArgs(options: LinkshellChildOptions): string[] {
  return [
    options.videoTrace,
    options.feedbackTrace,
    '--connect',
    options.connect,
    '--listen',
    '127.0.0.1:0',
    '--uplink-log',
    options.videoLog,
    '--downlink-log',
    options.feedbackLog,
    ...(options.extraArgs ?? []),
  ];
}

export function startLinkshellChild(options: LinkshellChildOptions): Promise<LinkshellChild> {
  // setpriv --pdeathsig: linkshell is killed when the bench dies, even by SIGKILL.
  const child = spawn('setpriv', ['--pdeathsig', 'KILL', process.execPath, LINKSHELL_BIN, ...linkshellArgs(options)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.once('error', () => resolve(null));
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    }
    return child.exitCode;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`linkshell printed no listen address within ${options.timeoutMs ?? 30_000} ms: ${stderr.trim().split('\n').pop() ?? ''}`));
    }, options.timeoutMs ?? 30_000);
    child.stderr?.on('data', (chunk) => {
      stderr += String(chunk);
      const m = /inside applications send to (\S+?);/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve({ listen: m[1], pid: child.pid, output: () => stderr, stop });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`linkshell exited (status ${code}): ${stderr.trim().split('\n').filter((l) => !/running the TypeScript sources/.test(l)).pop() ?? ''}`));
    });
  });
}
