// Shared pieces of the linkshell tests: temporary traces, an echo peer, a
// config builder, and waiting with a bound.

import { createSocket } from 'node:dgram';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUdpEndpoint, type UdpEndpoint } from '../../src/net/udp-endpoint.ts';
import { parseLinkshellArgs, type LinkshellConfig } from '../../src/cli/linkshell-options.ts';

export const root = join(import.meta.dirname, '../..');
export const work = mkdtempSync(join(tmpdir(), 'linkshell-test-'));

/** Writes a trace file in the temporary directory and returns its path. */
export function traceFile(name: string, lines: number[]): string {
  const path = join(work, name);
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}

/** One 1504-byte opportunity per ms: 12 Mbit/s. */
export const TRACE_12MBPS = traceFile('12mbps.trace', [1]);
/** One opportunity every 4 ms: 3 Mbit/s. */
export const TRACE_3MBPS = traceFile('3mbps.trace', [4]);

/** An echo server: every datagram goes back to its sender. */
export async function echoPeer(): Promise<UdpEndpoint & { received: () => number; sizes: number[] }> {
  const endpoint = await createUdpEndpoint({ bind: '127.0.0.1:0' });
  let received = 0;
  const sizes: number[] = [];
  endpoint.onReceive((bytes) => {
    received++;
    sizes.push(bytes.length);
    endpoint.send(bytes);
  });
  return Object.assign(endpoint, { received: () => received, sizes });
}

/** An echo server for any number of clients: every datagram goes back to whoever sent it. */
export async function multiEchoPeer(): Promise<{ localAddress: { address: string; port: number }; received: () => number; close: () => Promise<void> }> {
  const socket = createSocket('udp4');
  let received = 0;
  socket.on('message', (bytes, from) => {
    received++;
    socket.send(bytes, from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
  const { address, port } = socket.address();
  return { localAddress: { address, port }, received: () => received, close: () => new Promise((resolve) => socket.close(() => resolve())) };
}

/** A config as the command line would give it. */
export function config(args: string[]): LinkshellConfig {
  const parsed = parseLinkshellArgs(args);
  if (parsed.help) throw new Error('unexpected --help');
  return parsed.config;
}

export { waitFor } from '../helpers/wait-for.ts';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
