// HOST:PORT arguments: parsed strictly, then resolved to one IP address.

import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

export interface HostPort {
  host: string;
  port: number;
}

/** A resolved UDP address. */
export interface UdpAddress {
  address: string;
  family: 4 | 6;
  port: number;
}

const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/**
 * Parses "HOST:PORT" ("[IPV6]:PORT" for IPv6). HOST is an IPv4 or IPv6
 * address or a host name; PORT an integer 0-65535. `what` names the
 * argument in the error.
 */
export function parseHostPort(text: string, what: string): HostPort {
  const bad = (reason: string) => new Error(`${what}: ${reason} in ${JSON.stringify(text)} (expected HOST:PORT, e.g. 127.0.0.1:9000 or [::1]:9000)`);
  let host: string;
  let portText: string;
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close < 0 || text[close + 1] !== ':') throw bad('unclosed "[" or no ":PORT" after "]"');
    host = text.slice(1, close);
    portText = text.slice(close + 2);
    if (isIP(host) !== 6) throw bad(`"${host}" is not an IPv6 address`);
  } else {
    const colon = text.lastIndexOf(':');
    if (colon < 0) throw bad('no ":PORT"');
    host = text.slice(0, colon);
    portText = text.slice(colon + 1);
    if (host.includes(':')) throw bad('an IPv6 address must be written in brackets');
    if (host === '') throw bad('empty host');
    if (isIP(host) === 0 && !HOSTNAME.test(host)) throw bad(`"${host}" is neither an IP address nor a host name`);
  }
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) throw bad(`port "${portText}" is not an integer from 0 to 65535`);
  return { host, port: Number(portText) };
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
