// coturn's turnserver as the bench's TURN relay, a child process with a
// generated configuration: UDP on 127.0.0.1 only, long-term credentials with
// one user, loopback peers allowed (both browsers' relayed addresses are on
// 127.0.0.1), no TLS/DTLS listeners, no CLI, relayed ports from a given range.
// Ready once it answers a STUN Binding request on its port.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TurnConfig {
  readonly port: number;
  readonly minPort: number;
  readonly maxPort: number;
  readonly user: string;
  readonly password: string;
  readonly realm: string;
  /** Addresses to listen on beside 127.0.0.1 (the host's end of a linkshell --netns link). */
  readonly extraListeningIps?: readonly string[];
}

export function coturnConfigText(config: TurnConfig, logFile: string): string {
  return [
    'listening-ip=127.0.0.1',
    ...(config.extraListeningIps ?? []).map((ip) => `listening-ip=${ip}`),
    'relay-ip=127.0.0.1',
    `listening-port=${config.port}`,
    `min-port=${config.minPort}`,
    `max-port=${config.maxPort}`,
    'lt-cred-mech',
    `user=${config.user}:${config.password}`,
    `realm=${config.realm}`,
    'allow-loopback-peers',
    'no-tls',
    'no-dtls',
    'no-tcp-relay',
    'no-cli',
    'no-multicast-peers',
    'fingerprint',
    'simple-log',
    `log-file=${logFile}`,
    'no-stdout-log',
    '',
  ].join('\n');
}

export interface TurnServer {
  readonly config: TurnConfig;
  readonly pid: number | undefined;
  readonly logFile: string;
  /** The URL a browser's RTCIceServer gives for this server at `address` (host:port; linkshell's for the sender), over UDP (default) or TCP. */
  url(address?: string, transport?: 'udp' | 'tcp'): string;
  /** Stops the server (SIGTERM, then SIGKILL after 3 s) and waits for it to exit. */
  stop(): Promise<void>;
}

/** A STUN Binding request (RFC 5389): type 0x0001, length 0, the magic cookie, a transaction id. */
function bindingRequest(): Buffer {
  const message = Buffer.alloc(20);
  message.writeUInt16BE(0x0001, 0);
  message.writeUInt16BE(0, 2);
  message.writeUInt32BE(0x2112a442, 4);
  randomBytes(12).copy(message, 8);
  return message;
}

/** Resolves once a STUN server on 127.0.0.1:port answers a Binding request (asked every 100 ms), or rejects after `timeoutMs`. */
export function waitForStun(port: number, timeoutMs: number, exited: Promise<unknown>): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = createSocket('udp4');
    const request = bindingRequest();
    let done = false;
    const finish = (error?: Error) => {
      if (done) return;
      done = true;
      clearInterval(ask);
      clearTimeout(limit);
      socket.close();
      if (error) reject(error);
      else resolve();
    };
    socket.on('message', (reply) => {
      if (reply.length >= 20 && reply.readUInt16BE(0) === 0x0101 && reply.subarray(8, 20).equals(request.subarray(8, 20))) finish();
    });
    socket.on('error', () => {}); // ECONNREFUSED while the server starts: ask again
    const ask = setInterval(() => socket.send(request, port, '127.0.0.1'), 100);
    const limit = setTimeout(() => finish(new Error(`coturn did not answer on 127.0.0.1:${port} within ${timeoutMs} ms`)), timeoutMs);
    void exited.then(() => finish(new Error('coturn exited before answering (see its log)')));
  });
}

/** Starts turnserver with a configuration written to `dir`. */
export async function startTurnServer(executable: string, dir: string, config: TurnConfig, timeoutMs = 20_000): Promise<TurnServer> {
  const configFile = join(dir, 'turnserver.conf');
  const logFile = join(dir, 'turnserver.log');
  writeFileSync(configFile, coturnConfigText(config, logFile));
  // setpriv --pdeathsig: the server is killed when the bench dies, even by SIGKILL.
  const child: ChildProcess = spawn('setpriv', ['--pdeathsig', 'KILL', executable, '-c', configFile], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    if (stderr.length < 4096) stderr += String(chunk);
  });
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null) resolve();
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    }
  };
  try {
    await waitForStun(config.port, timeoutMs, exited);
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}${stderr ? `: ${stderr.trim().split('\n').pop()}` : ''} (log ${logFile})`);
  }
  return {
    config,
    pid: child.pid,
    logFile,
    url: (address = `127.0.0.1:${config.port}`, transport = 'udp') => `turn:${address}?transport=${transport}`,
    stop,
  };
}

/** A free UDP port on 127.0.0.1 (the kernel's choice; free when asked). */
export function freeUdpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = createSocket('udp4');
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => {
      const { port } = socket.address();
      socket.close(() => resolve(port));
    });
  });
}
