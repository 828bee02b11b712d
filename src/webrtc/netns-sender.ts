// The sending browser's side of a call inside `linkshell --netns` (the
// transparent mode): every IP packet of the sending Chromium (UDP for a
// direct call, TCP for TURN over TCP) crosses the emulated link, where the
// relay mode carries only the UDP datagrams of one port.
//
//   host:  page server 127.0.0.1:P <-- unix socket <------------------------+
//          coturn / the receiving browser                                    |
//              ^ MAHIMAHI_BASE                                               |
//              | linkshell --netns (video: uplink, feedback: downlink)       |
//   netns:     sending Chromium --> 127.0.0.1:P (the bridge, linkshell's COMMAND)
//
// The pages must come from a secure context for getUserMedia, and their
// posts (records, getStats) must not load the emulated link: the bridge,
// started as linkshell's COMMAND inside the namespace, listens on the
// namespace's own 127.0.0.1 at the page server's port and carries each
// connection over a unix socket (not namespaced) to the host, so the sender's
// page has the very origin it has on the host and nothing of it crosses the
// link. Chromium runs in the namespace through a wrapper (`ip netns exec NS
// chromium "$@"`: exec keeps puppeteer's pipe on fds 3 and 4). With
// `blockUdp`, iptables in the namespace drops every UDP datagram but
// loopback's (TURN over TCP: the browser has no other way out), and the
// namespace's kernel counters (/proc/net/snmp, /proc/net/netstat) are read
// before and after the call: TCP retransmissions, and proof that no UDP left.
import { spawnSync } from 'node:child_process';
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startNodeChild, waitForOutput } from './node-child.ts';

const LINKSHELL_BIN = fileURLToPath(new URL('../../bin/linkshell.js', import.meta.url));

/** The bridge inside the namespace: TCP on 127.0.0.1:PORT to the unix socket SOCK, each connection piped both ways. */
export const BRIDGE_SOURCE = `
const net = require('node:net');
const [port, path] = process.argv.slice(1);
const server = net.createServer((inside) => {
  const host = net.createConnection(path);
  inside.pipe(host).pipe(inside);
  const end = () => { inside.destroy(); host.destroy(); };
  inside.on('error', end); host.on('error', end); inside.on('close', end); host.on('close', end);
});
server.listen(Number(port), '127.0.0.1', () => process.stderr.write('netns bridge ready on 127.0.0.1:' + port + '\\n'));
for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(s, () => process.exit(0));
`;

/** Kernel counters of a network namespace, by group (Tcp, Udp, TcpExt, IpExt, ...) and name, as /proc/net/snmp and /proc/net/netstat give them. */
export type KernelCounters = Record<string, Record<string, number>>;

/** Parses the pairs of lines of /proc/net/snmp or /proc/net/netstat ("Tcp: A B" then "Tcp: 1 2"). */
export function parseProcNetCounters(text: string, into: KernelCounters = {}): KernelCounters {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  for (let i = 0; i + 1 < lines.length; i += 2) {
    const names = lines[i].split(/\s+/);
    const values = lines[i + 1].split(/\s+/);
    const group = names[0].replace(/:$/, '');
    if (names[0] !== values[0] || names.length !== values.length) throw new Error(`unexpected counters: ${JSON.stringify(lines[i])} then ${JSON.stringify(lines[i + 1])}`);
    const g = (into[group] ??= {});
    for (let k = 1; k < names.length; k++) g[names[k]] = Number(values[k]);
  }
  return into;
}

/** What changed between two readings (after minus before), group by group; counters missing from either are left out. */
export function counterDelta(before: KernelCounters, after: KernelCounters): KernelCounters {
  const out: KernelCounters = {};
  for (const [group, values] of Object.entries(after)) {
    for (const [name, value] of Object.entries(values)) {
      const was = before[group]?.[name];
      if (was !== undefined && Number.isFinite(value) && Number.isFinite(was)) (out[group] ??= {})[name] = value - was;
    }
  }
  return out;
}

/** The kernel counters of `namespace`. */
export function readNamespaceCounters(namespace: string): KernelCounters {
  const counters: KernelCounters = {};
  for (const file of ['/proc/net/snmp', '/proc/net/netstat']) {
    const r = spawnSync('ip', ['netns', 'exec', namespace, 'cat', file], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`cannot read ${file} in ${namespace}: ${(r.stderr ?? '').trim() || `exit status ${r.status}`}`);
    parseProcNetCounters(r.stdout, counters);
  }
  return counters;
}

export interface NetnsSenderOptions {
  /** Trace of the video direction (the sending browser's, linkshell's uplink) and of the feedback direction. */
  readonly videoTrace: string;
  readonly feedbackTrace: string;
  readonly videoLog: string;
  readonly feedbackLog: string;
  /** Further linkshell options (queues, delay, loss, seed). */
  readonly extraArgs?: readonly string[];
  /** The page server's port on the host's 127.0.0.1; the bridge listens on the same port in the namespace. */
  readonly pagePort: number;
  /** A directory for the unix socket and the Chromium wrapper. */
  readonly dir: string;
  /** The Chromium binary the wrapper runs in the namespace. */
  readonly chromium: string;
  /** Drop every non-loopback UDP datagram in the namespace (iptables). */
  readonly blockUdp: boolean;
  readonly timeoutMs?: number;
}

export interface NetnsSender {
  readonly namespace: string;
  /** The host's address on the link (MAHIMAHI_BASE): where the sending browser reaches coturn. */
  readonly hostAddress: string;
  readonly pid: number | undefined;
  /** The executable to launch the sending browser with (Chromium in the namespace). */
  readonly chromiumWrapper: string;
  /** How UDP was kept off the link: "iptables" (dropped in the namespace), or undefined when it was not asked for. */
  readonly udpBlockedBy: 'iptables' | undefined;
  counters(): KernelCounters;
  /** linkshell's stderr so far (its summary once stopped). */
  output(): string;
  /** Stops linkshell (which removes the namespace and ends what runs in it) and the unix socket; resolves with linkshell's status. */
  stop(): Promise<number | null>;
}

function iptables(namespace: string, args: string[]): void {
  const r = spawnSync('ip', ['netns', 'exec', namespace, 'iptables', ...args], { encoding: 'utf8' });
  if (r.error !== undefined || r.status !== 0) {
    throw new Error(`cannot keep UDP off the link: iptables ${args.join(' ')} in ${namespace} failed: ${(r.stderr ?? '').trim() || (r.error?.message ?? `exit status ${r.status}`)} (apt-get install iptables)`);
  }
}

/** A unix socket server at `path` that pipes every connection to 127.0.0.1:port. */
function unixToTcp(path: string, port: number): Promise<Server> {
  rmSync(path, { force: true });
  const sockets = new Set<Socket>();
  const server = createServer((outside) => {
    const page = createConnection(port, '127.0.0.1');
    sockets.add(outside).add(page);
    outside.pipe(page).pipe(outside);
    const end = () => {
      outside.destroy();
      page.destroy();
      sockets.delete(outside);
      sockets.delete(page);
    };
    for (const s of [outside, page]) {
      s.on('error', end);
      s.on('close', end);
    }
  });
  const close = server.close.bind(server);
  server.close = (callback?: (error?: Error) => void) => {
    for (const s of sockets) s.destroy();
    return close(callback);
  };
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve(server));
  });
}

export async function startNetnsSender(options: NetnsSenderOptions): Promise<NetnsSender> {
  const socketPath = join(options.dir, 'pages.sock');
  const bridge = await unixToTcp(socketPath, options.pagePort);
  const args = [
    '--netns',
    options.videoTrace,
    options.feedbackTrace,
    '--uplink-log',
    options.videoLog,
    '--downlink-log',
    options.feedbackLog,
    ...(options.extraArgs ?? []),
    '--',
    process.execPath,
    '-e',
    BRIDGE_SOURCE,
    String(options.pagePort),
    socketPath,
  ];
  // The bridge talks to this process's socket, so it keeps this process's user: under sudo, linkshell
  // --netns would otherwise run it as the user who ran sudo (src/cli/mahimahi-shell.ts).
  const { SUDO_UID: _uid, SUDO_GID: _gid, ...env } = process.env;
  const child = startNodeChild(LINKSHELL_BIN, args, env);
  const stop = async () => {
    const status = await child.stop();
    await new Promise<void>((resolve) => bridge.close(() => resolve()));
    return status;
  };
  try {
    const timeoutMs = options.timeoutMs ?? 30_000;
    const [, namespace, hostAddress] = await waitForOutput(child, /runs in network namespace (\S+); the host is MAHIMAHI_BASE=(\S+)/, 'linkshell --netns', timeoutMs);
    await waitForOutput(child, /netns bridge ready/, 'the page bridge in the namespace', timeoutMs);
    let udpBlockedBy: 'iptables' | undefined;
    if (options.blockUdp) {
      iptables(namespace, ['-A', 'OUTPUT', '-o', 'lo', '-j', 'ACCEPT']);
      iptables(namespace, ['-A', 'OUTPUT', '-p', 'udp', '-j', 'DROP']);
      iptables(namespace, ['-A', 'INPUT', '-i', 'lo', '-j', 'ACCEPT']);
      iptables(namespace, ['-A', 'INPUT', '-p', 'udp', '-j', 'DROP']);
      udpBlockedBy = 'iptables';
    }
    const chromiumWrapper = join(options.dir, 'chromium-in-netns.sh');
    writeFileSync(chromiumWrapper, `#!/bin/sh\n# The sending browser in ${namespace} (exec keeps puppeteer's pipe on fds 3 and 4).\nexec ip netns exec ${namespace} ${options.chromium} "$@"\n`);
    chmodSync(chromiumWrapper, 0o755);
    return {
      namespace,
      hostAddress,
      pid: child.pid,
      chromiumWrapper,
      udpBlockedBy,
      counters: () => readNamespaceCounters(namespace),
      output: () => child.output(),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
