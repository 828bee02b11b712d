// HOST:PORT arguments, parsed strictly (resolving the host is src/net/address.ts's).
import { isIP } from 'node:net';
import { usageError } from './errors.ts';

export interface HostPort {
  host: string;
  port: number;
}

const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/**
 * Parses "HOST:PORT" ("[IPV6]:PORT" for IPv6). HOST is an IPv4 or IPv6
 * address or a host name; PORT an integer 0-65535. `what` names the
 * argument in the error (a bad argument: code ERR_BAD_ARGUMENT).
 */
export function parseHostPort(text: string, what: string): HostPort {
  const bad = (reason: string) => usageError(`${what}: ${reason} in ${JSON.stringify(text)} (expected HOST:PORT, e.g. 127.0.0.1:9000 or [::1]:9000)`);
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
