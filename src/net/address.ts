// HOST:PORT arguments: parsed strictly (src/common/host-port.ts), then resolved to one IP address.

import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { HostPort } from '../common/host-port.ts';

export { parseHostPort, type HostPort } from '../common/host-port.ts';

/** A resolved UDP address. */
export interface UdpAddress {
  address: string;
  family: 4 | 6;
  port: number;
}

/** Resolves the host to one address (IP literals as they are). */
export async function resolveHostPort(hostPort: HostPort, what: string): Promise<UdpAddress> {
  const literal = isIP(hostPort.host);
  if (literal !== 0) return { address: hostPort.host, family: literal as 4 | 6, port: hostPort.port };
  try {
    const found = await lookup(hostPort.host);
    return { address: found.address, family: found.family as 4 | 6, port: hostPort.port };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new Error(`${what}: cannot resolve host "${hostPort.host}" (${code})`);
  }
}

export function formatAddress(address: { address: string; port: number }): string {
  return isIP(address.address) === 6 ? `[${address.address}]:${address.port}` : `${address.address}:${address.port}`;
}

/** True for 127.0.0.0/8, ::1 and IPv4-mapped loopback. */
export function isLoopback(address: string): boolean {
  return /^127\./.test(address) || address === '::1' || /^::ffff:127\./i.test(address);
}
