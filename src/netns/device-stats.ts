// The kernel's count of packets a network device dropped on transmit. For a
// TUN device these are the packets the kernel could not hand to linkshell
// because it did not read the device fast enough (the device's queue was
// full): the transparent mode's counterpart of a socket's receive drops.

import { readFileSync } from 'node:fs';
import { namespacePath } from './namespace.ts';
import { nativeTun } from './tun.ts';

/** tx_dropped of `device` (in `namespace`, or the host's), or undefined when it cannot be read (the device is gone). */
export function readTxDropped(device: string, namespace?: string): number | undefined {
  if (namespace === undefined) {
    try {
      return Number(readFileSync(`/sys/class/net/${device}/statistics/tx_dropped`, 'utf8').trim());
    } catch {
      return undefined;
    }
  }
  // (Read in the namespace by a thread of this process: an `ip -s link show` process took longer.)
  let devices: string;
  try {
    devices = nativeTun().readIn(namespacePath(namespace), '/proc/thread-self/net/dev');
  } catch {
    return undefined;
  }
  return txDroppedIn(devices, device);
}

/** tx_dropped of `device` in the text of /proc/net/dev (a line "NAME: 8 receive counters, then bytes packets errs drop ... sent"). */
export function txDroppedIn(netDev: string, device: string): number | undefined {
  for (const line of netDev.split('\n')) {
    const colon = line.indexOf(':');
    if (colon < 0 || line.slice(0, colon).trim() !== device) continue;
    const counters = line.slice(colon + 1).trim().split(/\s+/).map(Number);
    const dropped = counters[11];
    return counters.length >= 16 && Number.isSafeInteger(dropped) ? dropped : undefined;
  }
  return undefined;
}
