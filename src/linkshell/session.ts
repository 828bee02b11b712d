// A running linkshell: traces loaded, sockets bound, both directions driven
// by one wall-clock scheduler, logs written as the link runs. startLinkshell()
// does everything that can fail because of the arguments first (traces,
// addresses, the listen socket, log files) and throws a UsageError for it
// before any datagram moves; stop() ends the run cleanly whatever the cause.

import { UsageError } from '../common/usage-error.ts';
import { createQueue } from '../link-emu/queue-factory.ts';
import { createRng } from '../common/random.ts';
import { openTrace, type TraceLookupOptions } from '../link-emu/trace-files.ts';
import type { Trace } from '../link-emu/trace.ts';
import { createMonotonicClock, WallClockScheduler } from '../net/wall-clock.ts';
import { resolveHostPort, type UdpAddress } from '../net/address.ts';
import { Direction, type DirectionName } from './direction.ts';
import { LinkLogFile } from './log-file.ts';
import type { LinkshellConfig } from './options.ts';
import { Relay, type Flow, type KernelDrops } from './relay.ts';
import type { DirectionReport, LinkshellReport } from './summary.ts';

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
}

export interface LinkshellSession {
  readonly listenAddress: UdpAddress;
  readonly peerAddress: UdpAddress;
  /** Milliseconds since the session's clock started. */
  now(): number;
  /** Figures so far (the live status line reads these). */
  report(): LinkshellReport;
  /** Called once with the first internal error (a bug, a failed log write): the run should stop. */
  onFatal(listener: (error: Error) => void): void;
  /** Ends the run: logs brought up to now, completed and closed, sockets closed. Idempotent. */
  stop(): Promise<LinkshellReport>;
}

export async function startLinkshell(config: LinkshellConfig, options: SessionOptions = {}): Promise<LinkshellSession> {
  const warn = options.warn ?? ((message: string) => process.stderr.write(`linkshell: ${message}\n`));
  const setup = <T>(f: () => T): T => {
    try {
      return f();
    } catch (error) {
      throw new UsageError(oneLine((error as Error).message));
    }
  };
  const uplinkTrace: Trace = setup(() => openTrace(config.uplinkTrace, options.traceLookup));
  const downlinkTrace: Trace = config.downlinkTrace === config.uplinkTrace ? uplinkTrace : setup(() => openTrace(config.downlinkTrace, options.traceLookup));
  const asUsage = (error: unknown) => {
    throw new UsageError((error as Error).message);
  };
  const listen = await resolveHostPort(config.listen, '--listen').catch(asUsage);
  const peer = await resolveHostPort(config.connect, '--connect').catch(asUsage);

  let fatalListener: ((error: Error) => void) | undefined;
  let fatalError: Error | undefined;
  const fatal = (error: unknown) => {
    if (fatalError !== undefined) return;
    fatalError = error instanceof Error ? error : new Error(String(error));
    fatalListener?.(fatalError);
  };
  const guarded = <A extends unknown[]>(f: (...args: A) => void) => (...args: A) => {
    try {
      f(...args);
    } catch (error) {
      fatal(error);
    }
  };

  // Filled in below, once the clock has started; datagrams cannot arrive before open() returns.
  let uplink: Direction<Flow> | undefined;
  let downlink: Direction<Flow> | undefined;
  let scheduler: WallClockScheduler | undefined;
  const relay = await Relay.open({
    listen,
    peer,
    maxSources: config.maxSources,
    receiveBufferBytes: options.receiveBufferBytes,
    // Whatever fell due before a datagram arrived happens first, so link time only moves forward.
    onInside: guarded((bytes, flow) => {
      scheduler?.runDue(Infinity);
      uplink?.push(bytes, flow);
    }),
    onOutside: guarded((bytes, flow) => {
      scheduler?.runDue(Infinity);
      downlink?.push(bytes, flow);
    }),
    warn,
  }).catch(asUsage);

  const initTimestamp = Date.now();
  const clock = createMonotonicClock();
  scheduler = new WallClockScheduler({ clock, timer: config.timer, spinMs: config.spinMs, onError: fatal });
  const baseTimestamp = Math.floor(clock.now());
  const commandLine = options.commandLine ?? ['linkshell', ...process.argv.slice(2)];
  const logs: LinkLogFile[] = [];
  const openLog = (path: string | undefined, linkName: string, traceName: string, queue: string): LinkLogFile | undefined => {
    if (path === undefined) return undefined;
    const file = new LinkLogFile(path, { linkName, traceName, logName: path, commandLine, queue, initTimestamp, baseTimestamp });
    logs.push(file);
    return file;
  };
  const rng = createRng(config.seed);
  const directionFor = (name: DirectionName, trace: Trace, deliver: (bytes: Uint8Array, flow: Flow) => void) => {
    const up = name === 'uplink';
    const queue = up ? config.uplinkQueue : config.downlinkQueue;
    const queueArgs = up ? config.uplinkQueueArgs : config.downlinkQueueArgs;
    const queueText = describeQueue(queue, queueArgs);
    const log = openLog(up ? config.uplinkLog : config.downlinkLog, up ? 'Uplink' : 'Downlink', up ? config.uplinkTrace : config.downlinkTrace, queueText);
    return {
      queueText,
      direction: new Direction<Flow>({
        name,
        trace,
        queue,
        queueArgs,
        mtu: config.mtu,
        once: config.once,
        delayMs: config.delayMs,
        loss: up ? config.uplinkLoss : config.downlinkLoss,
        overheadBytes: config.overheadBytes,
        memoryCapBytes: config.memoryCapBytes,
        scheduler,
        rng: rng.fork(name),
        baseTimestamp,
        log: log?.writer,
        deliver,
        onMemoryCap: (which) => warn(`${which} holds ${config.memoryCapBytes} bytes of datagrams; dropping arrivals until it drains (--memory-cap)`),
      }),
    };
  };
  let up, down;
  try {
    up = directionFor('uplink', uplinkTrace, (bytes, flow) => relay.sendToPeer(flow, bytes));
    down = directionFor('downlink', downlinkTrace, (bytes, flow) => relay.sendToInside(flow, bytes));
  } catch (error) {
    scheduler.close();
    for (const log of logs) log.close();
    await relay.close();
    throw new UsageError((error as Error).message);
  }
  uplink = up.direction;
  downlink = down.direction;
  const directions = [
    { name: 'uplink', trace: config.uplinkTrace, queue: up.queueText, direction: up.direction },
    { name: 'downlink', trace: config.downlinkTrace, queue: down.queueText, direction: down.direction },
  ];

  const flushTimer = setInterval(
    guarded(() => {
      for (const log of logs) log.flush();
    }),
    options.logFlushMs ?? 250,
  );

  let stopMs: number | undefined;
  // Read from the kernel until the sockets close; the last reading stays.
  let kernelDrops: KernelDrops | undefined;
  const report = (): LinkshellReport => {
    const drops = kernelDrops ?? relay.kernelDrops();
    return {
      durationMs: (stopMs ?? clock.now()) - baseTimestamp,
      directions: directions.map(
        (d): DirectionReport => ({ name: d.name, trace: d.trace, queue: d.queue, stats: d.direction.stats(), socketDrops: d.name === 'uplink' ? drops.inside : drops.outside }),
      ),
      relay: relay.stats(),
    };
  };

  let stopping: Promise<LinkshellReport> | undefined;
  const stop = (): Promise<LinkshellReport> => {
    stopping ??= (async () => {
      clearInterval(flushTimer);
      let problem: unknown;
      try {
        scheduler.runDue();
        for (const d of directions) d.direction.catchUp();
      } catch (error) {
        problem = error;
      }
      stopMs = clock.now();
      kernelDrops = relay.kernelDrops();
      scheduler.close();
      for (const log of logs) {
        try {
          log.close();
        } catch (error) {
          problem ??= error;
        }
      }
      await relay.close();
      if (problem !== undefined) fatal(problem);
      return report();
    })();
    return stopping;
  };

  return {
    listenAddress: relay.listenAddress,
    peerAddress: peer,
    now: () => clock.now(),
    report,
    onFatal: (listener) => {
      fatalListener = listener;
      if (fatalError !== undefined) listener(fatalError);
    },
    stop,
  };
}

/** A possibly multi-line message as one line ("tried:\n  a\n  b" becomes "tried: a; b"). */
function oneLine(message: string): string {
  return message.replace(/:\n\s*/g, ': ').replace(/\n\s*/g, '; ');
}

/** The queue as mm-link's "# queue:" header line shows it (the description the link's own queue gives). */
function describeQueue(kind: string, args: string): string {
  return createQueue(kind, args, createRng(0)).describe();
}
