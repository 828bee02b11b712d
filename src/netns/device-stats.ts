// The kernel's count of packets a network device dropped on transmit. For a
// TUN device these are the packets the kernel could not hand to linkshell
// because it did not read the device fast enough (the device's queue was
// full): the transparent mode's counterpart of a socket's receive drops.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** tx_dropped of `device` (in `namespace`, or the host's), or undefined when it cannot be read (the device is gone). */
export function readTxDropped(device: string, namespace?: string): number | undefined {
  if (namespace === undefined) {
    try {
      return Number(readFileSync(`/sys/class/net/${device}/statistics/tx_dropped`, 'utf8').trim());
    } catch {
      return undefined;
    }
  }
  const r = spawnSync('ip', ['-n', namespace, '-j', '-s', 'link', 'show', 'dev', device], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    const [info] = JSON.parse(r.stdout) as { stats64?: { tx?: { dropped?: number } } }[];
    const dropped = info?.stats64?.tx?.dropped;
    return typeof dropped === 'number' ? dropped : undefined;
  } catch {
    return undefined;
  }
}
