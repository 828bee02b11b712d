// The network namespace of linkshell --netns and the two TUN devices that
// join it to the host:
//
//        host namespace                          the run's namespace (COMMAND)
//   +-------------------------+               +---------------------------------+
//   | host services           |               | COMMAND, lo up                  |
//   |   $MAHIMAHI_BASE        |               |   default route via             |
//   |   (hostAddress/30)      |               |   $MAHIMAHI_BASE                |
//   |  [hostDevice] <-- linkshell: downlink <---- [insideDevice] insideAddress/30 |
//   |               --> linkshell: uplink   ----> (reads one, writes the other)   |
//   +-------------------------+               +---------------------------------+
//
// Both devices are created here, by this process, so only it holds them: the
// kernel removes them when it closes them or dies. The namespace is a mount
// under /run/netns that outlives its creator, so a watchdog (a small shell
// started before anything is created, in a session of its own, reading a pipe
// that only linkshell writes) removes it, its processes and its
// /etc/netns/NAME/resolv.conf as soon as linkshell ends however it ends,
// SIGKILL included; on an orderly end linkshell does the same itself first.
//
// Names and addresses are chosen per run (process id and a counter; a free
// /30 of 100.64.0.0/10, the shared address space Mahimahi uses too), so runs
// side by side do not collide. IPv4 only (as Mahimahi): IPv6 is switched off
// on both devices, so the kernel's own IPv6 chatter does not cross the link.
// No qdisc and no kernel emulation: delay, loss and rate are linkshell's
// stages. Nested in another shell's namespace, the run also forwards and
// masquerades its COMMAND's traffic there (src/netns/nested-route.ts), so it
// reaches the outermost host through every link.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { nativeTun, TunDevice } from './tun.ts';
import { tunOpenProblem } from './prerequisites.ts';
import { inNestedNamespace, routeNested, unrouteCommand, unrouteNested } from './nested-route.ts';

export interface NetnsLayout {
  /** The namespace's name (ip netns). */
  readonly namespace: string;
  /** The TUN device on the host's side and the one inside. */
  readonly hostDevice: string;
  readonly insideDevice: string;
  /** The host's address on the link ($MAHIMAHI_BASE) and the inside address (COMMAND's). */
  readonly hostAddress: string;
  readonly insideAddress: string;
  readonly prefixLength: number;
  /** Largest IP packet the devices carry. */
  readonly mtu: number;
}

const SHARED_SPACE = ipv4ToNumber('100.64.0.0');
const SHARED_BLOCKS = 1 << 20; // /30 blocks in 100.64.0.0/10
let runsInThisProcess = 0;

/** Names and addresses for a new run: unique to this process and run, in a /30 no address on the host falls in. */
export function planLayout(mtu: number, usedAddresses: ReadonlySet<string> = hostAddresses(), pid = process.pid, run = runsInThisProcess++): NetnsLayout {
  const id = `${pid.toString(36)}${run.toString(36)}`;
  const used = new Set([...usedAddresses].map((a) => Math.floor((ipv4ToNumber(a) - SHARED_SPACE) / 4)));
  let block = (pid * 64 + run) % SHARED_BLOCKS;
  for (let tries = 0; used.has(block); tries++) {
    if (tries >= SHARED_BLOCKS) throw new Error('no free /30 in 100.64.0.0/10 on this host');
    block = (block + 1) % SHARED_BLOCKS;
  }
  const base = SHARED_SPACE + block * 4;
  return {
    namespace: `linkshell-${id}`,
    hostDevice: `ls-${id}-h`,
    insideDevice: `ls-${id}-i`,
    hostAddress: numberToIpv4(base + 1),
    insideAddress: numberToIpv4(base + 2),
    prefixLength: 30,
    mtu,
  };
}

/** The IPv4 addresses configured in the host's namespace (getifaddrs, through Node: no process to start). */
export function hostAddresses(): Set<string> {
  const found = new Set<string>();
  for (const addresses of Object.values(networkInterfaces())) {
    for (const a of addresses ?? []) if (a.family === 'IPv4') found.add(a.address);
  }
  return found;
}

/** Thrown when a setup step fails: its message names the step and what the system said. */
export class NetnsSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NetnsSetupError';
  }
}

const WATCHDOG = `trap '' HUP INT QUIT TERM PIPE
cat >/dev/null 2>&1
ns=$1
for sig in TERM KILL; do
  pids=$(ip netns pids "$ns" 2>/dev/null)
  [ -n "$pids" ] || break
  kill -$sig $pids 2>/dev/null
  [ $sig = KILL ] || sleep 1
done
ip netns del "$ns" 2>/dev/null
rm -rf "/etc/netns/$ns"
[ -z "$2" ] || eval "$2" >/dev/null 2>&1`;

/** How long COMMAND's leftover processes get between SIGTERM and SIGKILL at the end of a run (ms). */
const KILL_GRACE_MS = 1000;

export class NetnsLink {
  private destroyed: Promise<void> | undefined;

  private constructor(
    readonly layout: NetnsLayout,
    readonly host: TunDevice,
    readonly inside: TunDevice,
    private readonly watchdog: ChildProcess,
    /** Nested in another shell's namespace: whether COMMAND's traffic is routed on through it ('routed'), or why not. */
    readonly nestedRoute: 'routed' | { problem: string } | undefined,
  ) {}

  /**
   * Creates the namespace and both devices, configured and up; on a failed
   * step, removes what was made and throws a NetnsSetupError. Two `ip
   * -batch` processes do the configuring (the host's side, then the
   * namespace's), and threads of this process that join the namespace make
   * the inside device and write its one sysctl: starting a process is what
   * takes the time here, not what it does.
   */
  static create(layout: NetnsLayout): NetnsLink {
    const nested = inNestedNamespace();
    const watchdog = startWatchdog(layout.namespace, nested ? unrouteCommand(layout.insideAddress) : '');
    const made: { host?: TunDevice; inside?: TunDevice; namespace?: boolean } = {};
    try {
      made.host = openTun(layout.hostDevice);
      // (Before the host's device is up, so that it never sends IPv6 chatter of its own.)
      disableIpv6(layout.hostDevice);
      const cidr = (address: string) => `${address}/${layout.prefixLength}`;
      if (existsSync(namespacePath(layout.namespace))) throw new NetnsSetupError(`creating network namespace ${layout.namespace}: it exists already`);
      made.namespace = true; // (ours from here on: removing it if the batch stops half-way is right)
      ipBatch([], [
        `netns add ${layout.namespace}`,
        `addr add ${cidr(layout.hostAddress)} dev ${layout.hostDevice}`,
        `link set dev ${layout.hostDevice} mtu ${layout.mtu} up`,
      ], `creating network namespace ${layout.namespace} and configuring ${layout.hostDevice}`);
      const etc = `/etc/netns/${layout.namespace}`;
      step(`writing ${etc}/resolv.conf`, () => {
        mkdirSync(etc, { recursive: true });
        writeFileSync(`${etc}/resolv.conf`, `# linkshell --netns: the DNS forwarder on the host's end of the link\nnameserver ${layout.hostAddress}\n`);
      });
      // The inside device is made inside (moving a device between namespaces took longer than the rest of the set-up), by a
      // thread of this process that joins the namespace; IPv6 goes off on it first (a sysctl of the namespace's own,
      // written the same way), then loopback, the address, the device and the route (ip -n: it joins the namespace only,
      // where `ip netns exec` also made a mount namespace and a shell, which took longer).
      made.inside = step(`creating TUN device ${layout.insideDevice} in ${layout.namespace}`, () => TunDevice.open(layout.insideDevice, namespacePath(layout.namespace)));
      if (existsSync('/proc/sys/net/ipv6')) {
        step(`switching IPv6 off on ${layout.insideDevice} in ${layout.namespace}`, () =>
          nativeTun().writeIn(namespacePath(layout.namespace), `/proc/sys/net/ipv6/conf/${layout.insideDevice}/disable_ipv6`, '1'),
        );
      }
      ipBatch(['-n', layout.namespace], [
        'link set dev lo up',
        `addr add ${cidr(layout.insideAddress)} dev ${layout.insideDevice}`,
        `link set dev ${layout.insideDevice} mtu ${layout.mtu} up`,
        `route add default via ${layout.hostAddress} dev ${layout.insideDevice}`,
      ], `configuring ${layout.insideDevice} in ${layout.namespace}`);
    } catch (error) {
      made.inside?.close();
      made.host?.close();
      if (made.namespace) removeNamespace(layout.namespace);
      watchdog.stdin?.end();
      throw error;
    }
    // Inside another shell: on through its link to the outermost host (src/netns/nested-route.ts).
    const problem = nested ? routeNested(layout.insideAddress) : undefined;
    const nestedRoute = !nested ? undefined : problem === undefined ? 'routed' : { problem };
    return new NetnsLink(layout, made.host, made.inside, watchdog, nestedRoute);
  }

  /** The command line that runs `command` inside the namespace (with its /etc/netns files in place of /etc's). */
  commandLine(command: readonly string[]): string[] {
    return ['ip', 'netns', 'exec', this.layout.namespace, ...command];
  }

  /** The pids of the processes in the namespace (as `ip netns pids` finds them: /proc/PID/ns/net is the namespace's inode). */
  pids(): number[] {
    let inode: number;
    try {
      inode = statSync(namespacePath(this.layout.namespace)).ino;
    } catch {
      return [];
    }
    const want = `net:[${inode}]`;
    const found: number[] = [];
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        if (readlinkSync(`/proc/${entry}/ns/net`) === want) found.push(Number(entry));
      } catch {
        // Gone, or not ours to look at.
      }
    }
    return found;
  }

  /** Ends the processes left in the namespace (SIGTERM, then SIGKILL), closes both devices (the kernel removes them), removes it. Idempotent. */
  destroy(): Promise<void> {
    this.destroyed ??= (async () => {
      for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
        let pids = this.pids();
        for (const pid of pids) signalQuietly(pid, signal);
        const deadline = Date.now() + KILL_GRACE_MS;
        while (pids.length > 0 && signal === 'SIGTERM' && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          pids = this.pids();
        }
        if (pids.length === 0) break;
      }
      // The devices first, both at once: the kernel removes a device within its close, and a device closed once its
      // namespace is being removed waits longer (in a CPU profile here, the two closes one after the other took
      // about 94 ms after the namespace's removal, 50 ms before it, and about 30 ms side by side before it).
      const closed = await Promise.allSettled([this.inside.closeInBackground(), this.host.closeInBackground()]);
      removeNamespace(this.layout.namespace);
      if (this.nestedRoute === 'routed') unrouteNested(this.layout.insideAddress);
      this.watchdog.stdin?.end();
      const failed = closed.find((c): c is PromiseRejectedResult => c.status === 'rejected');
      if (failed !== undefined) throw failed.reason;
    })();
    return this.destroyed;
  }
}

/** The watchdog of `namespace`; `unroute`: a shell command it also runs at the end (removing a nested shell's masquerade rule), or ''. */
function startWatchdog(namespace: string, unroute: string): ChildProcess {
  const child = spawn('/bin/sh', ['-c', WATCHDOG, 'linkshell-netns-watchdog', namespace, unroute], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
  child.on('error', () => {});
  child.stdin?.on('error', () => {});
  // Neither the watchdog nor its pipe keeps linkshell running; the pipe's end is what tells the watchdog to act.
  child.unref();
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return child;
}

function openTun(name: string): TunDevice {
  try {
    return TunDevice.open(name);
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    throw new NetnsSetupError(tunOpenProblem(e.code, e.message));
  }
}

/** Runs `ip [options...] -batch -` with `commands`, one a line; the first that fails stops it. */
function ipBatch(options: string[], commands: string[], what: string): void {
  const args = [...options, '-batch', '-'];
  const r = spawnSync('ip', args, { encoding: 'utf8', input: commands.join('\n') + '\n', stdio: ['pipe', 'ignore', 'pipe'] });
  if (r.error !== undefined) throw new NetnsSetupError(`${what}: cannot run ip (iproute2): ${(r.error as NodeJS.ErrnoException).code ?? r.error.message}`);
  if (r.status !== 0) {
    // ip names the failed line ("Command failed -:2"): name the command too.
    const said = (r.stderr ?? '').trim().replace(/\s*\n\s*/g, '; ') || `exit status ${r.status}`;
    const line = /Command failed -:(\d+)/.exec(said);
    const failed = line ? `ip ${commands[Number(line[1]) - 1]}` : `ip ${args.join(' ')}`;
    throw new NetnsSetupError(`${what}: ${failed} failed: ${said}`);
  }
}

/** f's result; what it throws becomes a NetnsSetupError that names the step. */
function step<T>(what: string, f: () => T): T {
  try {
    return f();
  } catch (error) {
    throw new NetnsSetupError(`${what}: ${(error as Error).message}`);
  }
}

/** Switches IPv6 off on a device of the host's namespace, if the kernel has IPv6 at all. */
function disableIpv6(device: string): void {
  if (!existsSync('/proc/sys/net/ipv6')) return;
  step(`switching IPv6 off on ${device}`, () => writeFileSync(`/proc/sys/net/ipv6/conf/${device}/disable_ipv6`, '1'));
}

/** The file that keeps a named namespace (as `ip netns` names them). */
export function namespacePath(namespace: string): string {
  return `/run/netns/${namespace}`;
}

function removeNamespace(namespace: string): void {
  try {
    nativeTun().removeNamespace(namespacePath(namespace)); // (What `ip netns del` does, without starting it.)
  } catch {
    // Not ours to remove after all (or gone): the watchdog tries again once linkshell ends.
  }
  rmSync(`/etc/netns/${namespace}`, { recursive: true, force: true });
}

function signalQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Gone already.
  }
}

export function ipv4ToNumber(address: string): number {
  const parts = address.split('.').map(Number);
  return ((parts[0] << 24) >>> 0) + (parts[1] << 16) + (parts[2] << 8) + parts[3];
}

function numberToIpv4(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}
