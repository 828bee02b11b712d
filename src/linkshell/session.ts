// A running linkshell: traces loaded, sockets bound, both directions driven
// by one wall-clock scheduler, logs written as the link runs. startLinkshell()
// does everything that can fail because of the arguments first (traces,
// addresses, the listen socket, log files) and throws a bad-argument error (usageError) for it
// before any datagram moves; stop() ends the run cleanly whatever the cause.
//
// The pieces that do not depend on how datagrams reach the directions
// (traces, paths and their logs, the run's end) are shared with the
// transparent mode (netns-session.ts), where TUN devices take the relay's
// place: RunningSession drives either through a SessionTransport.
//
// The two directions are built when the trace clock starts (trace-clock.ts:
// at once, or at the first datagram or RTP packet, --trace-clock-start);
// until then datagrams pass through unemulated.

import { usageError } from '../common/errors.ts';
import { createQueue } from '../link-emu/queue-factory.ts';
import { createRng, type Rng } from '../common/random.ts';
import { openTrace, type TraceLookupOptions } from '../link-emu/trace-files.ts';
import type { Trace } from '../link-emu/trace.ts';
import { createMonotonicClock, WallClockScheduler, type MonotonicClock } from '../net/wall-clock.ts';
import { resolveHostPort, type UdpAddress } from '../net/address.ts';
import { Direction, type DirectionName } from './direction.ts';
import { LinkLogFile } from './log-file.ts';
import type { LinkshellConfig } from './config.ts';
import { Relay, type Flow, type KernelDrops, type RelayCounters } from './relay.ts';
import type { DirectionReport, LinkshellReport } from './summary.ts';
import { TraceClock } from './trace-clock.ts';
import { udpPayloadCarriesRtp } from './media-packets.ts';

export interface SessionOptions {
  /** One-line warnings (default: to stderr, prefixed "linkshell: "). */
  warn?: (message: string) => void;
  /** The command line recorded in log headers (default: linkshell and process.argv's arguments). */
  commandLine?: readonly string[];
  /** Where trace names are looked up (default: the working directory and environment). */
  traceLookup?: TraceLookupOptions;
  /** How often logs are written out (ms, default 250). */
  logFlushMs?: number;
  /** Receive buffer to ask for on each socket (bytes; default the relay's, 8 MiB; the kernel may cap it). */
  receiveBufferBytes?: number;
  /** Receive on the native packet path where it is built (default true); false: on the event loop, arrival = read time. */
  nativePath?: boolean;
}

/** A running emulated link, whichever carries its datagrams. */
export interface RunningLink<X = unknown> {
  /** Milliseconds since the session's clock started. */
  now(): number;
  /** Figures so far (the live status line reads these). */
  report(): LinkshellReport & X;
  /** Called once with the first internal error (a bug, a failed log write): the run should stop. */
  onFatal(listener: (error: Error) => void): void;
  /** Ends the run: logs brought up to now, completed and closed, sockets closed. Idempotent. */
  stop(): Promise<LinkshellReport & X>;
  /** Ends passthrough in both directions (MAHIMAHI_PASSTHROUGH_UNTIL_SIGNAL's SIGUSR1); true if either was in it. */
  endPassthrough(): boolean;
  /**
   * Lets the link empty before a stop: resolves once both directions have held nothing, and taken
   * nothing in, for `quietMs`; after `maxMs` whatever they hold; or as soon as `interrupt` settles.
   */
  drain(maxMs: number, quietMs: number, interrupt: Promise<unknown>): Promise<DrainOutcome>;
}

export interface DrainOutcome {
  /** Link bytes still held by the directions when it ended (0 when the link emptied). */
  heldBytes: number;
}

/** How often a drain looks at the directions (ms). */
const DRAIN_POLL_MS = 10;

export interface LinkshellSession extends RunningLink<{ relay: RelayCounters }> {
  readonly listenAddress: UdpAddress;
  readonly peerAddress: UdpAddress;
}

/** What carries datagrams between the applications and the two directions: the relay's sockets, or linkshell --netns's TUN devices. */
export interface SessionTransport<X> {
  /** Who receives: the native packet path's thread or the event loop. */
  receivePath(): 'native' | 'event-loop';
  /** What the kernel dropped before linkshell could take it, per direction. */
  kernelDrops(): KernelDrops;
  /** The transport's own counters, for the report. */
  figures(): X;
  /** Tells `add` how late each datagram sent ahead (Direction's sendAhead) left, per direction (0 uplink, 1 downlink), since the last call. */
  drainSendLateness?(add: (direction: number, ms: number) => void): void;
  /** Takes nothing in from the moment it is called; resolves once everything is closed. */
  close(): Promise<void>;
}

/** The settings a path is built from (both modes). */
export type PathConfig = Omit<LinkshellConfig, 'listen' | 'connect' | 'maxSources' | 'command'>;

export async function startLinkshell(config: LinkshellConfig, options: SessionOptions = {}): Promise<LinkshellSession> {
  const warn = options.warn ?? ((message: string) => process.stderr.write(`linkshell: ${message}\n`));
  const traces = loadTraces(config, options.traceLookup);
  const { listen, peer } = await resolveEndpoints(config);
  const faults = new FaultLatch();
  const paths: Paths = {};
  const clock = createMonotonicClock();
  const relay = await openRelay(config, options, listen, peer, paths, faults, warn, clock.originNs!);
  const scheduler = new WallClockScheduler({ clock, timer: config.timer, spinMs: config.spinMs, onError: (error) => faults.fail(error) });
  paths.scheduler = scheduler;
  const run: RunTimes = { clock, initTimestamp: Date.now() };
  const logs: LinkLogFile[] = [];
  const passthrough: PassthroughState = { on: config.passthroughUntilSignal ?? false };
  try {
    const build = { config, run, scheduler, rng: createRng(config.seed), logs, logFiles: openLogFiles(config, logs), commandLine: options.commandLine ?? ['linkshell', ...process.argv.slice(2)], warn, passthrough };
    // Where a departure is known at arrival, the native thread sends it at its time (see Direction's sendAhead).
    paths.clock = heldPaths(build, traces, udpPayloadCarriesRtp, [
      { deliver: (bytes, flow) => relay.sendToPeer(flow, bytes), sendAhead: (bytes, flow, due) => relay.sendToPeerAt(flow, bytes, due, 0) },
      { deliver: (bytes, flow) => relay.sendToInside(flow, bytes), sendAhead: (bytes, flow, due) => relay.sendToInsideAt(flow, bytes, due, 1) },
    ]);
  } catch (error) {
    scheduler.close();
    for (const log of logs) log.close();
    await relay.close();
    throw usageError((error as Error).message);
  }
  const transport: SessionTransport<{ relay: RelayCounters }> = {
    receivePath: () => relay.receivePath(),
    drainSendLateness: (add) => relay.drainSendLateness(add),
    kernelDrops: () => relay.kernelDrops(),
    figures: () => ({ relay: relay.stats() }),
    close: () => relay.close(),
  };
  const session = new RunningSession(transport, scheduler, run, paths.clock, passthrough, logs, faults, options.logFlushMs ?? 250);
  return Object.assign(session, { listenAddress: relay.listenAddress, peerAddress: peer });
}

/** The traces, loaded once each (the same file both ways is read once). */
export function loadTraces(config: Pick<PathConfig, 'uplinkTrace' | 'downlinkTrace'>, lookup: TraceLookupOptions | undefined): { uplink: Trace; downlink: Trace } {
  const open = (name: string) => {
    try {
      return openTrace(name, lookup);
    } catch (error) {
      throw usageError(oneLine((error as Error).message));
    }
  };
  const uplink = open(config.uplinkTrace);
  return { uplink, downlink: config.downlinkTrace === config.uplinkTrace ? uplink : open(config.downlinkTrace) };
}

async function resolveEndpoints(config: LinkshellConfig): Promise<{ listen: UdpAddress; peer: UdpAddress }> {
  return {
    listen: await resolveHostPort(config.listen, '--listen').catch(asUsageError),
    peer: await resolveHostPort(config.connect, '--connect').catch(asUsageError),
  };
}

function asUsageError(error: unknown): never {
  throw usageError((error as Error).message);
}

/** Keeps the first internal error of the run and tells the one listener; guard() wraps callbacks so that their errors end up here. */
export class FaultLatch {
  private error: Error | undefined;
  private listener: ((error: Error) => void) | undefined;

  fail(error: unknown): void {
    if (this.error !== undefined) return;
    this.error = error instanceof Error ? error : new Error(String(error));
    this.listener?.(this.error);
  }

  guard<A extends unknown[]>(f: (...args: A) => void): (...args: A) => void {
    return (...args: A) => {
      try {
        f(...args);
      } catch (error) {
        this.fail(error);
      }
    };
  }

  onFatal(listener: (error: Error) => void): void {
    this.listener = listener;
    if (this.error !== undefined) listener(this.error);
  }
}

/** Where the relay hands datagrams: filled in once the trace clock exists (no datagram can arrive before Relay.open returns). */
interface Paths {
  scheduler?: WallClockScheduler;
  clock?: TraceClock<PathInfo, Flow>;
}

/** Both directions, built when the trace clock starts (trace-clock.ts). */
export type HeldPaths<F> = TraceClock<PathInfo<F>, F>;

/** What a direction's departures are handed to: `deliver` at their time, or `sendAhead` (see Direction). */
export interface PathOutput<F> {
  deliver: (bytes: Uint8Array, flow: F) => void;
  sendAhead?: (bytes: Uint8Array, flow: F, dueMs: number) => boolean;
}

/** The trace clock of a session: both directions built when it starts, datagrams before it passed to `outputs`' deliver unemulated. */
export function heldPaths<F>(build: PathBuild, traces: { uplink: Trace; downlink: Trace }, isRtp: (bytes: Uint8Array) => boolean, outputs: readonly [PathOutput<F>, PathOutput<F>]): HeldPaths<F> {
  const [up, down] = outputs;
  return new TraceClock<PathInfo<F>, F>({
    start: build.config.traceClockStart,
    isRtp,
    nowMs: build.run.clock.now(),
    passThrough: [up.deliver, down.deliver],
    build: (base) => [buildPath(build, 'uplink', traces.uplink, up.deliver, up.sendAhead, base), buildPath(build, 'downlink', traces.downlink, down.deliver, down.sendAhead, base)],
  });
}

/** Opens the log files named (their headers come when the trace clock starts), so that one that cannot be written stops the run before it starts. */
export function openLogFiles(config: PathConfig, logs: LinkLogFile[]): Partial<Record<DirectionName, LinkLogFile>> {
  const files: Partial<Record<DirectionName, LinkLogFile>> = {};
  for (const [name, path] of [['uplink', config.uplinkLog], ['downlink', config.downlinkLog]] as const) {
    if (path === undefined) continue;
    files[name] = new LinkLogFile(path);
    logs.push(files[name]);
  }
  return files;
}

export interface PathInfo<F = Flow> {
  name: DirectionName;
  trace: string;
  queue: string;
  direction: Direction<F>;
}

function openRelay(
  config: LinkshellConfig,
  options: SessionOptions,
  listen: UdpAddress,
  peer: UdpAddress,
  paths: Paths,
  faults: FaultLatch,
  warn: (message: string) => void,
  originNs: bigint,
): Promise<Relay> {
  // Whatever fell due before a datagram arrived happens first, so link time only moves forward; the datagram enters as of its arrival
  // (or passes through unemulated while the trace clock is held).
  const into = (which: 0 | 1) =>
    faults.guard((bytes: Buffer, flow: Flow, atMs: number | undefined) => {
      const path = paths.clock?.entry(which, bytes, flow, atMs ?? paths.scheduler!.now());
      if (path === undefined) return;
      paths.scheduler?.runDue(Infinity, atMs);
      path.direction.push(bytes, flow, atMs);
    });
  return Relay.open({
    listen,
    peer,
    maxSources: config.maxSources,
    receiveBufferBytes: options.receiveBufferBytes,
    onInside: into(0),
    onOutside: into(1),
    warn,
    nativePath: options.nativePath === false ? undefined : { originNs },
  }).catch(asUsageError);
}

export interface RunTimes {
  clock: MonotonicClock;
  /** Wall-clock time (ms since the epoch) at the start, for log headers. */
  initTimestamp: number;
}

export interface PathBuild {
  config: PathConfig;
  run: RunTimes;
  scheduler: WallClockScheduler;
  rng: Rng;
  /** Log files opened so far (to close them all, whatever happens). */
  logs: LinkLogFile[];
  /** Each logged direction's file, opened (openLogFiles), its header still to come. */
  logFiles: Partial<Record<DirectionName, LinkLogFile>>;
  commandLine: readonly string[];
  warn: (message: string) => void;
  /** Whether datagrams still pass unemulated until SIGUSR1 (MAHIMAHI_PASSTHROUGH_UNTIL_SIGNAL): one state for both directions, whether built at the start or when the trace clock starts. */
  passthrough: PassthroughState;
}

export interface PassthroughState {
  on: boolean;
}

/** One direction, its trace's time zero at `baseTimestamp` (link time), with its log file if it has one; throws an Error naming the problem (a log file that cannot be written). */
export function buildPath<F = Flow>(
  build: PathBuild,
  name: DirectionName,
  trace: Trace,
  deliver: (bytes: Uint8Array, flow: F) => void,
  sendAhead: ((bytes: Uint8Array, flow: F, dueMs: number) => boolean) | undefined,
  baseTimestamp: number,
): PathInfo<F> {
  const { config, run } = build;
  const up = name === 'uplink';
  const queue = up ? config.uplinkQueue : config.downlinkQueue;
  const queueArgs = up ? config.uplinkQueueArgs : config.downlinkQueueArgs;
  const queueText = describeQueue(queue, queueArgs);
  const traceName = up ? config.uplinkTrace : config.downlinkTrace;
  const file = build.logFiles[name];
  const log = file?.begin({ linkName: up ? 'Uplink' : 'Downlink', traceName, logName: file.path, commandLine: build.commandLine, queue: queueText, initTimestamp: run.initTimestamp, baseTimestamp });
  const direction = new Direction<F>({
    name,
    trace,
    queue,
    queueArgs,
    mtu: config.mtu,
    once: config.once,
    delayMs: config.delayMs,
    loss: up ? config.uplinkLoss : config.downlinkLoss,
    lossAt: up ? config.uplinkLossAt : config.downlinkLossAt,
    onOff: up ? config.uplinkOnOff : config.downlinkOnOff,
    overheadBytes: config.overheadBytes,
    memoryCapBytes: config.memoryCapBytes,
    scheduler: build.scheduler,
    rng: build.rng.fork(name),
    baseTimestamp,
    log,
    deliver,
    sendAhead,
    passthrough: build.passthrough.on,
    onMemoryCap: (which) => build.warn(`${which} holds ${config.memoryCapBytes} bytes of datagrams; dropping arrivals until it drains (--memory-cap)`),
  });
  return { name, trace: traceName, queue: queueText, direction };
}

/** The run once started: logs flushed a few times a second, figures on demand, one orderly stop. */
export class RunningSession<F, X extends Pick<LinkshellReport, 'relay' | 'netns'>> implements RunningLink<X> {
  private readonly flushTimer: NodeJS.Timeout;
  private stopMs: number | undefined;
  /** The kernel's drop counts as last read before the sockets closed (read afresh until then). */
  private finalKernelDrops: KernelDrops | undefined;
  private stopping: Promise<LinkshellReport & X> | undefined;

  constructor(
    private readonly transport: SessionTransport<X>,
    private readonly scheduler: WallClockScheduler,
    private readonly run: RunTimes,
    private readonly traceClock: HeldPaths<F>,
    private readonly passthrough: PassthroughState,
    private readonly logs: readonly LinkLogFile[],
    private readonly faults: FaultLatch,
    logFlushMs: number,
  ) {
    this.flushTimer = setInterval(
      faults.guard(() => {
        for (const log of logs) log.flush();
        this.drainSendLateness();
      }),
      logFlushMs,
    );
  }

  now(): number {
    return this.run.clock.now();
  }

  onFatal(listener: (error: Error) => void): void {
    this.faults.onFatal(listener);
  }

  endPassthrough(): boolean {
    // Directions built later (when a held trace clock starts) start out of passthrough too.
    const pending = this.passthrough.on;
    this.passthrough.on = false;
    // (Both directions, not stopping at the first that was in passthrough.)
    const ended = this.traceClock.started().map((p) => p.direction.endPassthrough());
    return pending || ended.some((was) => was);
  }

  drain(maxMs: number, quietMs: number, interrupt: Promise<unknown>): Promise<DrainOutcome> {
    const start = this.run.clock.now();
    let quietSince = start;
    let last = this.linkState();
    return new Promise((resolve) => {
      const end = () => {
        clearInterval(timer);
        resolve({ heldBytes: this.linkState().heldBytes });
      };
      const timer = setInterval(
        this.faults.guard(() => {
          // (A departure sent ahead wakes no one at its time: bring the directions up to now.)
          this.scheduler.runDue();
          const now = this.run.clock.now();
          const state = this.linkState();
          if (state.datagramsIn !== last.datagramsIn || state.heldBytes > 0) quietSince = now;
          last = state;
          if (now - quietSince >= quietMs || now - start >= maxMs) end();
        }),
        DRAIN_POLL_MS,
      );
      void interrupt.then(end, end);
    });
  }

  /**
   * Datagrams taken in so far, whatever became of them (emulated, passed through, refused), and the link
   * bytes the directions hold now (queued, in delay, partly sent).
   */
  private linkState(): { datagramsIn: number; heldBytes: number } {
    const [up, down] = this.traceClock.report().passedUnemulated;
    let datagramsIn = up.datagrams + down.datagrams;
    let heldBytes = 0;
    for (const p of this.traceClock.started()) {
      const stats = p.direction.stats();
      datagramsIn += stats.packetsIn + stats.passthroughDatagrams + stats.memoryCapDrops;
      heldBytes += stats.heldBytes;
    }
    return { datagramsIn, heldBytes };
  }

  report(): LinkshellReport & X {
    this.drainSendLateness();
    const drops = this.finalKernelDrops ?? this.transport.kernelDrops();
    const end = this.stopMs ?? this.run.clock.now();
    return {
      // (Over the emulated link's time: from the trace's start.)
      durationMs: end - (this.traceClock.baseTimestamp() ?? end),
      traceClock: this.traceClock.report(),
      directions: this.traceClock.started().map(
        (p): DirectionReport => ({
          name: p.name,
          trace: p.trace,
          queue: p.queue,
          stats: p.direction.stats(),
          socketDrops: p.name === 'uplink' ? drops.inside : drops.outside,
        }),
      ),
      receivePath: this.transport.receivePath(),
      ...this.transport.figures(),
    };
  }

  stop(): Promise<LinkshellReport & X> {
    this.stopping ??= this.finish();
    return this.stopping;
  }

  private drainSendLateness(): void {
    this.transport.drainSendLateness?.((direction, ms) => this.traceClock.started()[direction]?.direction.addSendLateness(ms));
  }

  private async finish(): Promise<LinkshellReport & X> {
    clearInterval(this.flushTimer);
    let problem = attempt(() => {
      // A run that ends with its trace clock held: both directions from now, empty, so that the logs and the summary have them.
      this.traceClock.ensureStarted(this.run.clock.now());
      this.scheduler.runDue();
      for (const p of this.traceClock.started()) p.direction.catchUp();
    });
    this.stopMs = this.run.clock.now();
    this.drainSendLateness();
    this.finalKernelDrops = this.transport.kernelDrops();
    this.scheduler.close();
    for (const log of this.logs) {
      const failed = attempt(() => log.close());
      problem ??= failed;
    }
    await this.transport.close();
    if (problem !== undefined) this.faults.fail(problem);
    return this.report();
  }
}

/** Runs `f`; returns what it threw, or undefined. */
function attempt(f: () => void): unknown {
  try {
    f();
    return undefined;
  } catch (error) {
    return error ?? new Error('undefined thrown');
  }
}

/** A possibly multi-line message as one line ("tried:\n  a\n  b" becomes "tried: a; b"). */
function oneLine(message: string): string {
  return message.replace(/:\n\s*/g, ': ').replace(/\n\s*/g, '; ');
}

/** The queue as mm-link's "# queue:" header line shows it (the description the link's own queue gives). */
function describeQueue(kind: string, args: string): string {
  return createQueue(kind, args, createRng(0)).describe();
}
