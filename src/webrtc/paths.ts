// The paths a call's media can take between the two browsers (salsify webrtc
// --path), each through the one emulated link (linkshell's stages):
//
//   turn-udp  (the default, the paper's bench) both browsers relayed by coturn
//             on 127.0.0.1; the sender reaches coturn over UDP through the
//             relay mode of linkshell (no privileges needed).
//   turn-tcp  the sending browser runs inside linkshell --netns and reaches
//             coturn at $MAHIMAHI_BASE over TCP only (turn:...?transport=tcp,
//             relayed candidates only, UDP dropped in the namespace by
//             iptables): TURN over TCP, every segment and retransmission on
//             the emulated link. The receiver stays on TURN/UDP at 127.0.0.1.
//   p2p       the sending browser inside linkshell --netns, no TURN server:
//             direct UDP between the browsers' host candidates, every packet
//             on the emulated link.
//
// startCallPath starts what the path needs (coturn, linkshell in its mode)
// and says how each page sets up ICE and how the sending browser is started.
import { Cleanup } from './cleanup.ts';
import { freeUdpPort, startTurnServer, type TurnServer } from './coturn.ts';
import { startLinkshellChild } from './linkshell-child.ts';
import { startNetnsSender, type KernelCounters, type NetnsSender } from './netns-sender.ts';

export const CALL_PATHS = ['turn-udp', 'turn-tcp', 'p2p'] as const;
export type CallPath = (typeof CALL_PATHS)[number];

/** True when the path runs the sending browser inside linkshell --netns (needs root). */
export function pathUsesNetns(path: CallPath): boolean {
  return path !== 'turn-udp';
}

export interface IceServer {
  readonly urls: string;
  readonly username?: string;
  readonly credential?: string;
}

/** What a page gives RTCPeerConnection. */
export interface PageIce {
  readonly iceServers: IceServer[];
  readonly iceTransportPolicy: 'relay' | 'all';
}

export interface CallPathOptions {
  readonly path: CallPath;
  readonly videoTrace: string;
  readonly feedbackTrace: string;
  readonly videoLog: string;
  readonly feedbackLog: string;
  readonly linkshellArgs?: readonly string[];
  readonly turnserver: string;
  /** The sending browser's executable (run inside the namespace on the netns paths). */
  readonly browserPath: string;
  /** The call's temporary directory (coturn's configuration, the namespace's socket and wrapper). */
  readonly dir: string;
  /** The page server's port on 127.0.0.1. */
  readonly pagePort: number;
  readonly started: (name: string, pid: number | undefined) => void;
  readonly log: (line: string) => void;
}

export interface StartedPath {
  readonly path: CallPath;
  readonly sender: PageIce;
  readonly receiver: PageIce;
  /** The executable of the sending browser (the browser itself, or a wrapper that runs it in the namespace). */
  readonly senderExecutable: string;
  /** The namespace (netns paths). */
  readonly namespace?: string;
  readonly udpBlockedBy?: string;
  /** The namespace's kernel counters now (netns paths), and as they were once the path was up, before the browsers started. */
  counters?(): KernelCounters;
  readonly countersAtStart?: KernelCounters;
  /** linkshell's stderr so far. */
  linkshellOutput(): string;
  /** Stops linkshell (idempotent); resolves with its status. */
  stopLink(): Promise<number | null>;
  /** Stops everything the path started (idempotent). */
  stop(): Promise<void>;
}

export async function startCallPath(options: CallPathOptions): Promise<StartedPath> {
  const cleanup = new Cleanup();
  try {
    return await start(options, cleanup);
  } catch (error) {
    await cleanup.run();
    throw error;
  }
}

function once<T>(f: () => Promise<T>): () => Promise<T> {
  let result: Promise<T> | undefined;
  return () => (result ??= f());
}

async function start(options: CallPathOptions, cleanup: Cleanup): Promise<StartedPath> {
  const { path } = options;
  let netns: NetnsSender | undefined;
  let linkOutput!: () => string;
  let stopLink!: () => Promise<number | null>;
  if (pathUsesNetns(path)) {
    const sender = await startNetnsSender({
      videoTrace: options.videoTrace,
      feedbackTrace: options.feedbackTrace,
      videoLog: options.videoLog,
      feedbackLog: options.feedbackLog,
      extraArgs: options.linkshellArgs,
      pagePort: options.pagePort,
      dir: options.dir,
      chromium: options.browserPath,
      blockUdp: path === 'turn-tcp',
    });
    netns = sender;
    stopLink = once(() => sender.stop());
    linkOutput = () => sender.output();
    cleanup.add('linkshell --netns', stopLink);
    options.started(`linkshell --netns (${sender.namespace}, the host at ${sender.hostAddress})`, sender.pid);
  }
  let turn: TurnServer | undefined;
  if (path !== 'p2p') {
    const turnPort = await freeUdpPort();
    const relayBase = 40000 + Math.floor(Math.random() * 200) * 100;
    turn = await startTurnServer(options.turnserver, options.dir, {
      port: turnPort,
      minPort: relayBase,
      maxPort: relayBase + 99,
      user: 'bench',
      password: `p${Math.floor(Math.random() * 1e9)}`,
      realm: 'salsify.bench',
      extraListeningIps: netns ? [netns.hostAddress] : [],
    });
    const server = turn;
    cleanup.add('coturn', () => server.stop());
    options.started('coturn', turn.pid);
  }
  const credentials = turn ? { username: turn.config.user, credential: turn.config.password } : {};
  const receiver: PageIce = turn ? { iceServers: [{ urls: turn.url(), ...credentials }], iceTransportPolicy: 'relay' } : { iceServers: [], iceTransportPolicy: 'all' };
  let sender: PageIce;
  if (path === 'turn-udp') {
    const link = await startLinkshellChild({
      videoTrace: options.videoTrace,
      feedbackTrace: options.feedbackTrace,
      connect: `127.0.0.1:${turn!.config.port}`,
      videoLog: options.videoLog,
      feedbackLog: options.feedbackLog,
      extraArgs: options.linkshellArgs,
    });
    stopLink = once(() => link.stop());
    linkOutput = () => link.output();
    cleanup.add('linkshell', stopLink);
    options.started('linkshell', link.pid);
    options.log(`coturn on 127.0.0.1:${turn!.config.port}; linkshell listens on ${link.listen}`);
    sender = { iceServers: [{ urls: turn!.url(link.listen), ...credentials }], iceTransportPolicy: 'relay' };
  } else if (path === 'turn-tcp') {
    const url = turn!.url(`${netns!.hostAddress}:${turn!.config.port}`, 'tcp');
    options.log(`coturn on 127.0.0.1 and ${netns!.hostAddress}:${turn!.config.port}; the sender in ${netns!.namespace} uses ${url} only (UDP dropped by ${netns!.udpBlockedBy})`);
    sender = { iceServers: [{ urls: url, ...credentials }], iceTransportPolicy: 'relay' };
  } else {
    options.log(`direct UDP between the browsers; the sender in ${netns!.namespace}, the host at ${netns!.hostAddress}`);
    sender = { iceServers: [], iceTransportPolicy: 'all' };
  }
  const stopAll = once(() => cleanup.run());
  return {
    path,
    sender,
    receiver,
    senderExecutable: netns ? netns.chromiumWrapper : options.browserPath,
    namespace: netns?.namespace,
    udpBlockedBy: netns?.udpBlockedBy,
    counters: netns ? () => netns.counters() : undefined,
    countersAtStart: netns?.counters(),
    linkshellOutput: () => linkOutput(),
    stopLink: () => stopLink(),
    stop: stopAll,
  };
}
