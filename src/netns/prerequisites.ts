// What linkshell --netns needs from the machine, checked before anything is
// created, so that a missing piece is one line naming it (and saying that the
// relay mode needs none of it) instead of a failure half-way through.

import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export const TUN_DEVICE_PATH = '/dev/net/tun';
const CAP_NET_ADMIN = 12;
const CAP_SYS_ADMIN = 21;

const RELAY = 'the relay mode (linkshell without --netns)';
const RELAY_HINT = `${RELAY} needs neither`;
const AS_ROOT = `run it as root, or use ${RELAY}, which needs neither`;

/** The problem that stops linkshell --netns on this machine, or undefined if it can run. */
export function netnsUnavailable(): string | undefined {
  if (process.platform !== 'linux') return `--netns needs Linux (network namespaces and TUN devices); ${RELAY_HINT}`;
  const caps = effectiveCapabilities();
  const missing = [
    ...(caps !== undefined && !(caps & (1n << BigInt(CAP_NET_ADMIN))) ? ['CAP_NET_ADMIN'] : []),
    ...(caps !== undefined && !(caps & (1n << BigInt(CAP_SYS_ADMIN))) ? ['CAP_SYS_ADMIN'] : []),
  ];
  if (missing.length > 0) {
    return `--netns needs root (${missing.join(' and ')} missing: it creates TUN devices and a network namespace); ${AS_ROOT}`;
  }
  if (!existsSync(TUN_DEVICE_PATH)) {
    return `--netns needs ${TUN_DEVICE_PATH}, which is missing (load the tun module: modprobe tun; in a container, pass the device: --device ${TUN_DEVICE_PATH} --cap-add NET_ADMIN); ${RELAY_HINT}`;
  }
  try {
    accessSync(TUN_DEVICE_PATH, constants.R_OK | constants.W_OK);
  } catch {
    return `--netns cannot open ${TUN_DEVICE_PATH} for reading and writing (permission denied); ${AS_ROOT}`;
  }
  if (!onPath('ip')) return `--netns needs the ip command (iproute2), which is not installed: apt-get install iproute2; ${RELAY_HINT}`;
  return undefined;
}

/** The effective capability set of this process (Linux /proc), or undefined if it cannot be read. */
export function effectiveCapabilities(): bigint | undefined {
  try {
    const line = /^CapEff:\s*([0-9a-f]+)$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    return line ? BigInt(`0x${line[1]}`) : undefined;
  } catch {
    return undefined;
  }
}

/** What to say when opening a TUN device failed with this errno code. */
export function tunOpenProblem(code: string | undefined, detail: string): string {
  if (code === 'EACCES' || code === 'EPERM') return `cannot create a TUN device (${detail}): --netns needs root or CAP_NET_ADMIN; ${RELAY_HINT}`;
  if (code === 'ENOENT' || code === 'ENODEV' || code === 'ENXIO') return `cannot create a TUN device (${detail}): ${TUN_DEVICE_PATH} or the tun module is missing (modprobe tun); ${RELAY_HINT}`;
  return `cannot create a TUN device: ${detail}`;
}

/** Whether an executable `name` is in one of $PATH's directories (looked up, not run: starting a process costs tens of ms). */
function onPath(name: string): boolean {
  for (const dir of (process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin').split(delimiter)) {
    if (dir === '') continue;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return true;
    } catch {
      // Not there.
    }
  }
  return false;
}
