// `salsify send`: the Salsify sender over a real UDP socket (or, with
// --transport tcp, framed over one TCP connection to a relay: tcp-endpoint.ts). Captures are
// paced at the video's frame rate on the monotonic clock, like a webcam (the
// sender encodes the newest frame captured); the same SalsifySender as in the
// simulator runs over createUdpEndpoint. Every sender event goes to
// OUT/sender.jsonl (records.ts) on the shared clock (shared-clock.ts). The run
// ends after --duration (then waits up to --drain for the last frames to be
// acknowledged), on SIGINT/SIGTERM/SIGHUP, or on an error; its records always
// end with an end record.
import { join, resolve } from 'node:path';
import type { FunctionalCodec } from '../../codec-bridge/types.ts';
import type { VideoSource } from '../../codec-bridge/video/video-source.ts';
import { inContext, usageError } from '../../common/errors.ts';
import { formatAddress, isLoopback, parseHostPort, resolveHostPort, type UdpAddress } from '../../net/address.ts';
import type { EndpointContext } from '../../net/endpoint.ts';
import { createUdpEndpoint, type UdpEndpoint } from '../../net/udp-endpoint.ts';
import { createTcpEndpoint } from './tcp-endpoint.ts';
import { WallClockScheduler, type TimerKind } from '../../net/wall-clock.ts';
import { openCodec, openVideo, type CodecName } from '../open-inputs.ts';
import { SalsifySender, type Scheme, type SenderCounters, type SenderEvent } from '../sender.ts';
import { RECORDS_VERSION, runIdOf, SENDER_RECORDS, type SenderHeader } from './records.ts';
import { liveConnectionId } from './run-id.ts';
import { sharedClockNow, sharedClockOffset } from './shared-clock.ts';
import { countingWork, type CountingWork } from './counting-work.ts';
import { cpuMs } from './cpu-time.ts';
import { FirstFailure } from './first-failure.ts';
import { withModelledWorkTime } from './modelled-work.ts';
import { RecordsFile } from './records-file.ts';
import { watchStopSignals, type StopSignals } from './stop-signals.ts';
import { waitUntil } from './wait-until.ts';
import { makeDirectory } from '../../results/writer.ts';

/** What `salsify send` runs with (its command line is parsed by src/cli/salsify-send.ts). */
export interface SendArgs {
  readonly to: string;
  readonly video: string;
  /** Frames per second overriding the video's own rate (undefined: its own). */
  readonly fps?: number;
  readonly scheme: Scheme;
  readonly codec: CodecName;
  readonly durationS: number | null;
  readonly drainMs: number;
  readonly budgetMs: number;
  readonly seed: number | string;
  readonly out: string;
  readonly connectionId: number | undefined;
  readonly timer: TimerKind;
  /** udp (the default): datagrams to the receiver; tcp: framed over one TCP connection to a relay at `to` (tcp-endpoint.ts). */
  readonly transport?: 'udp' | 'tcp';
}

/** A sender event as a record line: shared-clock time, short field names. */
function eventRecord(e: SenderEvent, offset: number): object {
  const t = e.time + offset;
  switch (e.kind) {
    case 'capture':
      return { type: 'capture', t, i: e.sourceIndex };
    case 'sent':
      return {
        type: 'sent', t, i: e.sourceIndex, frame: e.frameNumber, bytes: e.bytes, q: e.quantizer, key: e.keyFrame,
        choice: e.choice, target: e.targetBytes, fragments: e.fragments, encodeMs: e.encodeMs,
      };
    case 'skip':
      return { type: 'skip', t, i: e.sourceIndex, target: e.targetBytes, better: e.betterBytes, worse: e.worseBytes };
    case 'loss':
      return { type: 'loss', t, ackFrame: e.ackFrame, receiverState: e.receiverStateId };
    case 'recovery':
      return { type: 'recovery', t, frame: e.frameNumber, fromState: e.fromStateId, key: e.keyFrame };
  }
}

async function resolvePeer(to: string): Promise<UdpAddress> {
  try {
    return await resolveHostPort(parseHostPort(to, '--to'), '--to');
  } catch (error) {
    throw usageError((error as Error).message);
  }
}

/** What `salsify send` opens before a run: the receiver's address, the video and the codec. */
interface SendInputs {
  readonly peer: UdpAddress;
  readonly source: VideoSource;
  readonly codec: FunctionalCodec;
  close(): Promise<void>;
}

async function openSendInputs(args: SendArgs): Promise<SendInputs> {
  const peer = await resolvePeer(args.to);
  if (peer.port === 0) throw usageError(`--to: port 0 is not a receiver's port (${args.to})`);
  try {
    makeDirectory(args.out);
  } catch (error) {
    throw usageError(`cannot create --out ${args.out}: ${(error as Error).message}`);
  }
  let source: VideoSource;
  try {
    source = await openVideo(args.video, args.seed, { fps: args.fps });
  } catch (error) {
    throw inContext('--video', error);
  }
  let codec: FunctionalCodec;
  try {
    codec = await openCodec(args.codec);
  } catch (error) {
    await source.close();
    throw error;
  }
  return {
    peer, source, codec,
    close: async () => {
      await source.close();
      await codec.close();
    },
  };
}

/** Runs `salsify send` with its arguments (parsed by src/cli/salsify-send.ts): 0 once the run ended cleanly. */
export async function runSend(args: SendArgs): Promise<number> {
  // First of all, so that a signal at any later moment ends the run with its records complete.
  const stop = watchStopSignals('salsify send');
  try {
    const inputs = await openSendInputs(args);
    try {
      return await sendOverUdp(args, inputs, stop);
    } finally {
      await inputs.close();
    }
  } finally {
    stop.remove();
  }
}

async function sendOverUdp(args: SendArgs, inputs: SendInputs, stop: StopSignals): Promise<number> {
  const failure = new FirstFailure();
  const scheduler = new WallClockScheduler({ timer: args.timer, onError: failure.report });
  let endpoint: UdpEndpoint | undefined;
  try {
    const { peer } = inputs;
    // Loopback receivers get a loopback socket; others the wildcard address of the peer's IP version.
    const bind = isLoopback(peer.address) ? (peer.family === 6 ? '[::1]:0' : '127.0.0.1:0') : peer.family === 6 ? '[::]:0' : '0.0.0.0:0';
    endpoint =
      args.transport === 'tcp'
        ? await createTcpEndpoint({ relay: peer, scheduler })
        : await createUdpEndpoint({ bind, peer: { address: peer.address, port: peer.port }, scheduler });
    return await sendRun(args, inputs, endpoint, failure, stop);
  } finally {
    await endpoint?.close();
    scheduler.close();
  }
}

/** `ctx` with `afterReceive` called after each datagram the endpoint handles (the sender reads acknowledgements). */
function notifyingReceives(ctx: EndpointContext, afterReceive: () => void): EndpointContext {
  return {
    ...ctx,
    onReceive: (handler) => ctx.onReceive((bytes) => {
      handler(bytes);
      afterReceive();
    }),
  };
}

/** A sender started over `endpoint`, its records file opened with the header. */
interface LiveSender {
  readonly sender: SalsifySender;
  readonly working: CountingWork;
  readonly records: RecordsFile;
  readonly runId: string;
  /** Resolves with 'duration' once the last frame of --duration was captured. */
  readonly captured: Promise<string>;
  /** Sets what to call on the events that may end the drain (a datagram handled, a task ended). */
  onEvent(listener: () => void): void;
  counters(): SenderCounters & Record<string, number>;
}

function startSender(args: SendArgs, inputs: SendInputs, endpoint: UdpEndpoint, failure: FirstFailure, stop: StopSignals): LiveSender {
  const { source, codec, peer } = inputs;
  const offset = sharedClockOffset(() => endpoint.now());
  const startMs = sharedClockNow();
  const connectionId = args.connectionId ?? liveConnectionId(args.seed, startMs);
  let listener = () => {};
  const ctx = notifyingReceives(endpoint, () => listener());
  const working = countingWork(args.codec === 'model' ? withModelledWorkTime(ctx) : ctx);
  const frames = args.durationS === null ? undefined : Math.max(1, Math.round(args.durationS * source.fps));
  let capturedAll!: () => void;
  const captured = new Promise<string>((resolve) => {
    capturedAll = () => resolve('duration');
  });
  let records: RecordsFile | undefined; // created just before the sender starts: its events go there
  const sender = new SalsifySender({
    ctx: working, codec, source, scheme: args.scheme, connectionId, frames, budgetMs: args.budgetMs,
    log: (e) => {
      records?.write(eventRecord(e, offset));
      if (e.kind === 'capture' && frames !== undefined && e.sourceIndex === frames - 1) capturedAll();
    },
  });
  // Source frame i is captured at captureStartMs + i / fps (the sender's timers may run a little late:
  // the capture records say when; the frame is the one of its nominal instant, as a webcam's).
  const header: SenderHeader = {
    type: 'sender', version: RECORDS_VERSION, runId: runIdOf(connectionId), connectionId, startMs, captureStartMs: endpoint.now() + offset,
    // A clip's absolute path, so that analyze (from another directory) can reopen it.
    video: /\.(y4m|ivf)$/i.test(args.video) ? resolve(args.video) : args.video, seed: args.seed,
    scheme: args.scheme, codec: args.codec, budgetMs: args.budgetMs, width: source.width, height: source.height,
    fps: source.fps, durationS: args.durationS, to: formatAddress(peer),
  };
  const file = new RecordsFile(join(args.out, SENDER_RECORDS), header, () => endpoint.now(), (t) => t + offset);
  records = file;
  // A signal while the inputs were opened: the records of a run that captured nothing.
  if (stop.received === undefined) sender.start();
  working.onTaskEnd((error) => {
    failure.report(error ?? sender.failure ?? file.failure);
    listener();
  });
  const counters = () => ({ ...sender.counters, packetsInFlight: sender.packetsInFlight, foreignUdpDatagrams: endpoint.foreignDatagrams(), cpuMs: cpuMs() });
  stop.beforeForcedExit((reason, error) => file.end(reason, counters(), error));
  return {
    sender, working, records: file, runId: header.runId, captured, counters,
    onEvent: (l) => {
      listener = l;
    },
  };
}

async function sendRun(args: SendArgs, inputs: SendInputs, endpoint: UdpEndpoint, failure: FirstFailure, stop: StopSignals): Promise<number> {
  const live = startSender(args, inputs, endpoint, failure, stop);
  const { sender, records, runId } = live;
  const to = formatAddress(inputs.peer);
  process.stderr.write(
    `salsify send: run ${runId}: ${args.scheme}, ${args.codec} codec, ${inputs.source.description}, to ${to} from ${formatAddress(endpoint.localAddress)}\n`,
  );
  try {
    const reason = await Promise.race([live.captured, stop.first.then((signal) => `signal ${signal}`), failure.thrown()]);
    sender.stop();
    await Promise.race([drain(live, endpoint, args.drainMs, 5000 / inputs.source.fps), failure.thrown()]);
    failure.report(records.failure);
    if (failure.error) throw failure.error;
    const end = live.counters();
    records.end(reason, end);
    process.stderr.write(
      `salsify send: run ${runId} ended (${reason}): ${end.captured} frames captured, ${end.sent} sent, ${end.skipped} skipped by choice, ` +
        `${end.superseded} superseded, ${end.datagramsSent} datagrams (${(end.bytesSent / 1e6).toFixed(2)} MB), ${end.acks} acknowledged; records in ${records.path}\n`,
    );
    if (end.datagramsSent > 0 && end.acks === 0) process.stderr.write(`salsify send: warning: no datagram was acknowledged: is \`salsify receive\` listening at ${to}?\n`);
    return 0;
  } catch (error) {
    sender.stop();
    records.end('error', live.counters(), error);
    throw error;
  } finally {
    records.close();
  }
}

/**
 * After the last capture: at least `minMs` (a few frame intervals), then until
 * the last encoding is done and everything sent is acknowledged, at most `drainMs` in all.
 */
async function drain(live: LiveSender, ctx: EndpointContext, drainMs: number, minMs: number): Promise<void> {
  const first = Math.min(drainMs, minMs);
  await new Promise<void>((resolve) => ctx.setTimer(first, resolve));
  const quiet = waitUntil(() => live.working.busy() === 0 && live.sender.packetsInFlight === 0, ctx, drainMs - first);
  live.onEvent(quiet.check);
  await quiet.done;
}
