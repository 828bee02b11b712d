// linkshell (bin/linkshell.js) as a child of the bench, between the sending
// browser and coturn. Its uplink (what inside applications send: the sender's
// TURN traffic, the video) replays the scenario's .down trace, its downlink
// (coturn's answers: the receiver's feedback) the .up trace, as in the paper.
// Ready when it prints its listen address; stopped with SIGINT, after which
// it completes its logs and prints its summary (src/webrtc/node-child.ts:
// killed with the bench even by SIGKILL).
import { fileURLToPath } from 'node:url';
import { startNodeChild, waitForOutput } from './node-child.ts';

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

export async function startLinkshellChild(options: LinkshellChildOptions): Promise<LinkshellChild> {
  const child = startNodeChild(LINKSHELL_BIN, linkshellArgs(options));
  try {
    const ready = await waitForOutput(child, /inside applications send to (\S+?);/, 'linkshell', options.timeoutMs ?? 30_000);
    return { listen: ready[1], pid: child.pid, output: () => child.output(), stop: () => child.stop() };
  } catch (error) {
    await child.stop();
    throw error;
  }
}
