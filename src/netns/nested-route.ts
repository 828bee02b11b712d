// A linkshell --netns started inside another shell's namespace (nested
// shells): what its COMMAND sends beyond its own host address must cross the
// outer shell's link too and come back, so that `$MAHIMAHI_BASE` (the
// outermost shell's host) is reached through every link. As Mahimahi's
// shells do (src/util/nat.cc: each shell adds an iptables MASQUERADE rule for
// its inside address in the namespace it runs in, and mm-link requires
// net.ipv4.ip_forward=1 there), linkshell then, in the namespace it runs in
// (the outer shell's, never the host's):
//   - switches IPv4 forwarding on (that namespace's own sysctl), and
//   - masquerades what comes from its inside address, so that replies come
//     back to the outer shell's inside address, which the outer host knows.
// A run is nested when MAHIMAHI_BASE is in its environment (an outer shell,
// linkshell's or Mahimahi's, set it for its COMMAND: Mahimahi's own sign of
// an inner container), unless it runs in PID 1's namespace, where nothing is
// nested and the host's forwarding and firewall are not linkshell's to change
// (that check needs /proc/1/ns/net to be readable; where it is not, as in
// some containers, MAHIMAHI_BASE alone decides, so do not set it by hand on
// the host).

import { spawnSync } from 'node:child_process';
import { readFileSync, readlinkSync, writeFileSync } from 'node:fs';

/** True when this process runs inside another shell's namespace (see above). */
export function inNestedNamespace(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.MAHIMAHI_BASE === undefined) return false;
  try {
    return readlinkSync('/proc/self/ns/net') !== readlinkSync('/proc/1/ns/net');
  } catch {
    return true; // (PID 1's namespace cannot be read here)
  }
}

const masquerade = (insideAddress: string) => ['-w', '-t', 'nat', '{}', 'POSTROUTING', '-s', `${insideAddress}/32`, '-j', 'MASQUERADE'];
const iptables = (action: '-A' | '-D', insideAddress: string) => masquerade(insideAddress).map((a) => (a === '{}' ? action : a));

/** The shell command that removes the rule (for the watchdog, which outlives a killed linkshell). */
export function unrouteCommand(insideAddress: string): string {
  return `iptables ${iptables('-D', insideAddress).join(' ')}`;
}

/**
 * Forwarding on and the masquerade rule for `insideAddress`, in the current
 * namespace. Returns undefined, or why the nested shell's traffic will not get
 * past the outer shell's host (the run goes on: everything else works).
 */
export function routeNested(insideAddress: string): string | undefined {
  try {
    if (readFileSync('/proc/sys/net/ipv4/ip_forward', 'utf8').trim() !== '1') writeFileSync('/proc/sys/net/ipv4/ip_forward', '1');
  } catch (error) {
    return `cannot switch IPv4 forwarding on in the outer shell's namespace (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
  }
  const r = spawnSync('iptables', iptables('-A', insideAddress), { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.error !== undefined) return `cannot run iptables (${(r.error as NodeJS.ErrnoException).code ?? r.error.message}): install iptables, as Mahimahi needs it too`;
  if (r.status !== 0) return `iptables ${iptables('-A', insideAddress).join(' ')} failed: ${r.stderr.trim().replace(/\s*\n\s*/g, '; ') || `exit status ${r.status}`}`;
  return undefined;
}

/** Removes the masquerade rule again (forwarding stays on: other nested shells may use it; it goes with the outer namespace). */
export function unrouteNested(insideAddress: string): void {
  spawnSync('iptables', iptables('-D', insideAddress), { stdio: 'ignore' });
}
