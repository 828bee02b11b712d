// Datagrams the kernel dropped at a UDP socket (a full receive buffer): Linux
// counts them per socket in the last column, "drops", of /proc/net/udp and
// /proc/net/udp6 (SO_RXQ_OVFL would give the same count but is not reachable
// from Node). A socket is found there by its local address and port, and by
// its remote address and port if it is connected. The table is that of the
// reading process's network namespace.
//
// Addresses in the table are hexadecimal 32-bit words in the host's byte
// order, ports hexadecimal: 127.0.0.1:53 is "0100007F:0035" on x86.

import { readFileSync } from 'node:fs';
import { endianness } from 'node:os';

export interface UdpSocketRow {
  local: { address: string; port: number };
  remote: { address: string; port: number };
  drops: number;
}

export interface SocketName {
  address: string;
  port: number;
}

/** Parses the text of /proc/net/udp (family 4) or /proc/net/udp6 (family 6); lines that do not parse are skipped. */
export function parseUdpSocketTable(text: string, family: 4 | 6, littleEndian = endianness() === 'LE'): UdpSocketRow[] {
  const rows: UdpSocketRow[] = [];
  for (const line of text.split('\n')) {
    const fields = line.trim().split(/\s+/);
    // sl local rem st tx:rx tr:when retrnsmt uid timeout inode ref pointer drops
    if (fields.length < 13 || !/^\d+:$/.test(fields[0])) continue;
    const local = parseEndpoint(fields[1], family, littleEndian);
    const remote = parseEndpoint(fields[2], family, littleEndian);
    const drops = Number(fields[12]);
    if (local === undefined || remote === undefined || !Number.isSafeInteger(drops)) continue;
    rows.push({ local, remote, drops });
  }
  return rows;
}

/** A snapshot of the kernel's UDP socket tables, to look sockets up in. */
export class UdpSocketTable {
  private constructor(
    private readonly rows: { 4: UdpSocketRow[]; 6: UdpSocketRow[] },
    /** False if neither table could be read (not Linux). */
    private readonly readable: boolean,
  ) {}

  /** Reads /proc/net/udp and /proc/net/udp6 now; a table that cannot be read (not Linux) is empty. */
  static read(procNet = '/proc/net'): UdpSocketTable {
    let readable = false;
    const load = (name: string, family: 4 | 6) => {
      try {
        const text = readFileSync(`${procNet}/${name}`, 'utf8');
        readable = true;
        return parseUdpSocketTable(text, family);
      } catch {
        return [];
      }
    };
    return new UdpSocketTable({ 4: load('udp', 4), 6: load('udp6', 6) }, readable);
  }

  /**
   * The drops of the socket bound to `local` (connected to `remote`, if
   * given), undefined if no such socket is in the table (not Linux, or
   * closed). Several matches (sockets sharing a port) are summed.
   */
  drops(family: 4 | 6, local: SocketName, remote?: SocketName): number | undefined {
    const address = canonical(local.address);
    const remoteAddress = remote === undefined ? undefined : canonical(remote.address);
    let total: number | undefined;
    for (const row of this.rows[family]) {
      if (row.local.port !== local.port || row.local.address !== address) continue;
      if (remote !== undefined && (row.remote.port !== remote.port || row.remote.address !== remoteAddress)) continue;
      total = (total ?? 0) + row.drops;
    }
    return total;
  }

  /** How many sockets of either family have `port` as their local port; undefined if the tables could not be read. */
  socketsAtPort(port: number): number | undefined {
    if (!this.readable) return undefined;
    return [...this.rows[4], ...this.rows[6]].filter((row) => row.local.port === port).length;
  }
}

function parseEndpoint(text: string, family: 4 | 6, littleEndian: boolean): { address: string; port: number } | undefined {
  const match = /^([0-9A-Fa-f]+):([0-9A-Fa-f]{4})$/.exec(text);
  if (match === null || match[1].length !== (family === 4 ? 8 : 32)) return undefined;
  const bytes: number[] = [];
  for (let word = 0; word < match[1].length; word += 8) {
    const wordBytes = match[1].slice(word, word + 8).match(/../g)!.map((b) => parseInt(b, 16));
    bytes.push(...(littleEndian ? wordBytes.reverse() : wordBytes));
  }
  const port = parseInt(match[2], 16);
  if (family === 4) return { address: bytes.join('.'), port };
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i] << 8) | bytes[i + 1]).toString(16));
  return { address: canonical(groups.join(':')), port };
}

/** One spelling per address: IPv6 in its shortest form ("0:0:0:0:0:0:0:1" is "::1"), without a zone; IPv4 as given. */
function canonical(address: string): string {
  if (!address.includes(':')) return address;
  try {
    return new URL(`udp://[${address.replace(/%.*$/, '')}]`).hostname.slice(1, -1);
  } catch {
    return address;
  }
}
