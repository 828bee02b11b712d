// linkshell --netns: the same two directions as the relay mode (the one path
// model, the same logs), fed with every IP packet of a network namespace
// instead of the datagrams of one UDP port. COMMAND runs in the namespace
// (src/netns/namespace.ts); what it sends enters the uplink from the inside
// TUN device and leaves it through the host's; the host's answers cross the
// downlink the other way. A packet takes its IP length plus the 4-byte TUN
// header on the link (--overhead, 4 by default here), as Mahimahi counts and
// logs it. A DNS forwarder listens at $MAHIMAHI_BASE (src/netns/dns-forwarder.ts).

import { toolkitError, usageError } from '../common/errors.ts';
import { createRng } from '../common/random.ts';
import { createMonotonicClock, WallClockScheduler } from '../net/wall-clock.ts';
import { DnsForwarder } from '../netns/dns-forwarder.ts';
import { NetnsLink, NetnsSetupError, planLayout, type NetnsLayout } from '../netns/namespace.ts';
import { netnsUnavailable } from '../netns/prerequisites.ts';
import { readTxDropped } from '../netns/device-stats.ts';
import { PacketPump, packetPumpUnavailable } from '../net/packet-pump.ts';
import type { LinkLogFile } from './log-file.ts';
import { FaultLatch, heldPaths, loadTraces, openLogFiles, RunningSession, type HeldPaths, type PassthroughState, type PathConfig, type RunningLink, type RunTimes, type SessionOptions } from './session.ts';
import { ipPacketCarriesRtp } from './media-packets.ts';
import type { NetnsCounters } from './summary.ts';

export interface NetnsSession extends RunningLink<{ netns: NetnsCounters }> {
  readonly layout: NetnsLayout;
  /** The command line that runs `command` inside the namespace. */
  commandLine(command: readonly string[]): string[];
  /** What COMMAND finds in its environment: MAHIMAHI_BASE, the host's address on the link. */
  environment(): Record<string, string>;
}

export async function startNetnsSession(config: PathConfig, options: SessionOptions = {}): Promise<NetnsSession> {
  const warn = options.warn ?? ((message: string) => process.stderr.write(`linkshell: ${message}\n`));
  const unavailable = netnsUnavailable();
  // What the machine lacks is not a bad argument: ERR_UNAVAILABLE (exit status 2), and nothing was started.
  if (unavailable !== undefined) throw toolkitError('ERR_UNAVAILABLE', unavailable);
  const traces = loadTraces(config, options.traceLookup);
  let link: NetnsLink;
  try {
    link = NetnsLink.create(planLayout(config.mtu - config.overheadBytes));
  } catch (error) {
    if (error instanceof NetnsSetupError) throw toolkitError('ERR_UNAVAILABLE', `--netns: ${error.message}`, error);
    throw error;
  }
  if (typeof link.nestedRoute === 'object') warn(`nested shell: COMMAND reaches this shell's host only, not the outer shells' (${link.nestedRoute.problem})`);
  const faults = new FaultLatch();
  const clock = createMonotonicClock();
  const scheduler = new WallClockScheduler({ clock, timer: config.timer, spinMs: config.spinMs, onError: (error) => faults.fail(error) });
  const run: RunTimes = { clock, initTimestamp: Date.now() };
  const logs: LinkLogFile[] = [];
  let paths: HeldPaths<null>;
  let dns: DnsForwarder | undefined;
  // The native thread (once reading starts) also writes, at their times, the packets whose departure is known at arrival:
  // uplink packets into the host's device (pump source 1), downlink packets into the inside device (source 0).
  let pump: PacketPump | undefined;
  const ahead = (device: number, tag: number) => (packet: Uint8Array, _flow: null, dueMs: number) => {
    if (pump === undefined) return false;
    pump.sendAt(device, packet, dueMs, tag);
    return true;
  };
  const passthrough: PassthroughState = { on: config.passthroughUntilSignal ?? false };
  try {
    const build = { config, run, scheduler, rng: createRng(config.seed), logs, logFiles: openLogFiles(config, logs), commandLine: options.commandLine ?? ['linkshell', ...process.argv.slice(2)], warn, passthrough };
    paths = heldPaths<null>(build, traces, ipPacketCarriesRtp, [
      { deliver: (packet) => link.host.write(packet), sendAhead: ahead(1, 0) },
      { deliver: (packet) => link.inside.write(packet), sendAhead: ahead(0, 1) },
    ]);
    dns = await DnsForwarder.listen(link.layout.hostAddress).catch((error: NodeJS.ErrnoException) => {
      warn(`no DNS inside: cannot listen on ${link.layout.hostAddress}:53 (${error.code ?? error.message})`);
      return undefined;
    });
  } catch (error) {
    scheduler.close();
    for (const log of logs) log.close();
    await link.destroy();
    throw usageError((error as Error).message);
  }
  // Whatever fell due before a packet arrived happens first, so link time only moves forward; the packet enters as of its arrival
  // (or passes through unemulated while the trace clock is held).
  const into = (which: 0 | 1) =>
    faults.guard((packet: Buffer, atMs?: number) => {
      const path = paths.entry(which, packet, null, atMs ?? scheduler.now());
      if (path === undefined) return;
      scheduler.runDue(Infinity, atMs);
      path.direction.push(packet, null, atMs);
    });
  pump = startReading(link, clock.originNs!, config.mtu - config.overheadBytes, into(0), into(1), (error) => faults.fail(error));

  const { layout } = link;
  const session = new RunningSession<null, { netns: NetnsCounters }>(
    {
      receivePath: () => (pump !== undefined ? 'native' : 'event-loop'),
      drainSendLateness: (add) => {
        const pairs = pump?.drainLateness() ?? [];
        for (let i = 0; i + 1 < pairs.length; i += 2) add(pairs[i]!, pairs[i + 1]!);
      },
      // The kernel's drops when linkshell did not read a device fast enough: its transmit queue overflowed.
      kernelDrops: () => ({ inside: readTxDropped(layout.insideDevice, layout.namespace), outside: readTxDropped(layout.hostDevice) }),
      figures: () => ({
        netns: {
          namespace: layout.namespace,
          // (Packets the native thread could not write count too.)
          writeDrops: link.host.stats().writeDrops + link.inside.stats().writeDrops + (pump?.stats().timedDropped ?? 0),
          dnsAnswers: dns?.stats().answered,
        },
      }),
      close: async () => {
        pump?.close();
        link.inside.stopReading();
        link.host.stopReading();
        await dns?.close();
        await link.destroy();
      },
    },
    scheduler,
    run,
    paths,
    passthrough,
    logs,
    faults,
    options.logFlushMs ?? 250,
  );
  return Object.assign(session, {
    layout,
    commandLine: (command: readonly string[]) => link.commandLine(command),
    environment: () => ({ MAHIMAHI_BASE: layout.hostAddress }),
  });
}

/**
 * Reads both devices: with the native packet path where it is built (its
 * thread reads each packet the moment the kernel queues it and stamps its
 * arrival; a packet longer than the devices' MTU, which cannot come, would be
 * refused by the link as oversize), else on the event loop (arrival = read
 * time). Returns the pump, if used.
 */
function startReading(
  link: NetnsLink,
  originNs: bigint,
  maxPacket: number,
  uplink: (packet: Buffer, atMs?: number) => void,
  downlink: (packet: Buffer, atMs?: number) => void,
  fail: (error: Error) => void,
): PacketPump | undefined {
  if (packetPumpUnavailable() === undefined) {
    const devices = [link.inside, link.host];
    const into = [uplink, downlink];
    const pump = new PacketPump({
      originNs,
      onArrivals: (arrivals) => {
        for (const a of arrivals) {
          devices[a.source]!.countRead(1);
          into[a.source]!(a.bytes, a.atMs);
        }
      },
      onError: (source, code) => fail(Object.assign(new Error(`reading TUN device ${devices[source]!.name} failed: ${code}`), { code })),
    });
    devices.forEach((device, i) => pump.addTun(i, device.fileDescriptor()));
    return pump;
  }
  link.inside.startReading(maxPacket, (packet) => uplink(packet), fail);
  link.host.startReading(maxPacket, (packet) => downlink(packet), fail);
  return undefined;
}
