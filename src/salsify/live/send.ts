// `salsify send`: the Salsify sender over a real UDP socket. Captures are
// paced at the video's frame rate on the monotonic clock, like a webcam (the
// sender encodes the newest frame captured); the same SalsifySender as in the
// simulator runs over createUdpEndpoint. Every sender event goes to
// OUT/sender.jsonl (records.ts) on the shared clock (shared-clock.ts). The run
// ends after --duration (then waits up to --drain for the last frames to be
// acknowledged) or on SIGINT/SIGTERM/SIGHUP, and always flushes its records.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { FunctionalCodec } from '../../codec-bridge/types.ts';
import type { VideoSource } from '../../codec-bridge/video/video-source.ts';
import { inContext, usageError } from '../../common/errors.ts';
import { formatAddress, isLoopback, parseHostPort, resolveHostPort, type UdpAddress } from '../../net/address.ts';
import { createUdpEndpoint, type UdpEndpoint } from '../../net/udp-endpoint.ts';
import { TIMER_KINDS, WallClockScheduler, type TimerKind } from '../../net/wall-clock.ts';
import { CODECS, openCodec, openVideo } from '../open-inputs.ts';
import { SalsifySender, SCHEMES, type Scheme, type SenderEvent } from '../sender.ts';
import { JsonlWriter } from './jsonl.ts';
import { durationMsValue, formatHelp, LIMITS, nameValue, noPositionals, optional, parseCommandLine, seedValue } from '../../common/validate.ts';
import { RECORDS_VERSION, runIdOf, SENDER_RECORDS, type SenderHeader } from './records.ts';
import { liveConnectionId } from './run-id.ts';
import { sharedClockNow, sharedClockOffset } from './shared-clock.ts';
import { countingWork } from './counting-work.ts';
import { cpuMs } from './cpu-time.ts';
import { withModelledWorkTime } from './modelled-work.ts';
import { onStopSignal } from './stop-signals.ts';

export const SEND_HELP = formatHelp({
  usage: ['salsify send --to HOST:PORT [options]'],
  about: `Runs the Salsify sender over UDP towards a \`salsify receive\`: captures the
video at its frame rate (like a webcam: the newest frame at each capture
instant), encodes and sends it, and records every capture, frame sent or
skipped, quantizer and size in OUT/sender.jsonl. Times are on a clock shared by
processes on one machine (ms since the epoch): run the receiver on the same
machine, or on one whose clock is synchronised with this one.`,
  options: [
    ['--to HOST:PORT', 'the receiver (or linkshell\'s listen address); default\n$LINKSHELL_ADDR when run as linkshell\'s command'],
    ['--video SRC', 'synthetic (1280x720 at 60 fps, the default),\nsynthetic:WxH[@FPS], FILE.y4m, or FILE.ivf (VP8)'],
    ['--scheme NAME', 'salsify-1 (default), salsify-2 or conventional'],
    ['--codec NAME', 'model (the default: the simulator\'s modelled codec,\nits encodings taking their modelled time) or vp8'],
    ['--duration S', 'seconds of video to capture, > 0 and at most 86400\n(default: until a signal; 500ms, 2min also work)'],
    ['--drain MS', 'after the last capture, wait at most this long (0 to\n3600000 ms) for the frames in flight to be acknowledged\n(default 1000)'],
    ['--budget MS', 'the transport\'s delay budget, > 0 and at most 60000\n(default 100)'],
    ['--seed N', 'seed of the synthetic video: an integer from 0 to\n2^53-1 (default 1)'],
    ['--out DIR', 'where sender.jsonl goes (default .; created if needed)'],
    ['--run-id HEX', 'the run id (8 hex digits; default: derived from the\nseed, process id and start time)'],
    ['--timer thread|timeout', 'how datagram pacing is timed (default thread)'],
    ['-h, --help', 'this text'],
  ],
  notes: `SIGINT, SIGTERM or SIGHUP stops the run cleanly (records flushed, exit 0); a
second one exits at once. Exit status: 0 on success, 2 for a bad argument or
input file, 1 otherwise.`,
});

export interface SendArgs {
  readonly to: string;
  readonly video: string;
  readonly scheme: Scheme;
  readonly codec: 'model' | 'vp8';
  readonly durationS: number | null;
  readonly drainMs: number;
  readonly budgetMs: number;
  readonly seed: number | string;
  readonly out: string;
  readonly connectionId: number | undefined;
  readonly timer: TimerKind;
}

export function parseSendArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): { help: true } | { help: false; args: SendArgs } {
  const { values, positionals } = parseCommandLine('salsify send --help', {
    args: argv,
    options: {
      to: { type: 'string' }, video: { type: 'string' }, scheme: { type: 'string' }, codec: { type: 'string' },
      duration: { type: 'string' }, drain: { type: 'string' }, budget: { type: 'string' }, seed: { type: 'string' },
      out: { type: 'string' }, 'run-id': { type: 'string' }, timer: { type: 'string' }, help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) return { help: true };
  noPositionals(positionals, 'salsify send --help');
  const to = values.to ?? env.LINKSHELL_ADDR;
  if (to === undefined || to === '') throw usageError('--to HOST:PORT is required (or run inside linkshell, which sets $LINKSHELL_ADDR)');
  try {
    parseHostPort(to, '--to');
  } catch (error) {
    throw usageError((error as Error).message);
  }
  const scheme = nameValue('scheme', values.scheme ?? 'salsify-1', SCHEMES);
  const runId = values['run-id'];
  if (runId !== undefined && !/^[0-9a-fA-F]{8}$/.test(runId)) throw usageError(`--run-id must be 8 hex digits, got ${JSON.stringify(runId)}`);
  const timer = nameValue('timer', values.timer ?? 'thread', TIMER_KINDS);
  return {
    help: false,
    args: {
      to,
      video: values.video ?? 'synthetic',
      scheme: scheme as Scheme,
      codec: nameValue('codec', values.codec ?? 'model', CODECS),
      durationS: optional(values.duration, (t) => durationMsValue('duration', t, { unit: 's', minExclusive: true, maxMs: 1000 * LIMITS.maxRunS }) / 1000) ?? null,
      drainMs: optional(values.drain, (t) => durationMsValue('drain', t, { unit: 'ms', maxMs: LIMITS.maxPeriodMs })) ?? 1000,
      budgetMs: optional(values.budget, (t) => durationMsValue('budget', t, { unit: 'ms', minExclusive: true, maxMs: LIMITS.maxDelayMs })) ?? 100,
      seed: seedValue('seed', values.seed ?? '1'),
      out: values.out ?? '.',
      connectionId: runId === undefined ? undefined : Number.parseInt(runId, 16),
      timer: timer as TimerKind,
    },
  };
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runSend(argv: string[]): Promise<number> {
  const parsed = parseSendArgs(argv);
  if (parsed.help) {
    process.stdout.write(SEND_HELP);
    return 0;
  }
  const args = parsed.args;
  const peer = await resolvePeer(args.to);
  if (peer.port === 0) throw usageError(`--to: port 0 is not a receiver's port (${args.to})`);
  try {
    mkdirSync(args.out, { recursive: true });
  } catch (error) {
    throw usageError(`cannot create --out ${args.out}: ${(error as Error).message}`);
  }
  let source: VideoSource;
  try {
    source = await openVideo(args.video, args.seed);
  } catch (error) {
    throw inContext('--video', error);
  }
  let codec: FunctionalCodec | undefined;
  let endpoint: UdpEndpoint | undefined;
  let scheduler: WallClockScheduler | undefined;
  let records: JsonlWriter | undefined;
  let removeSignals = () => {};
  try {
    codec = await openCodec(args.codec);
    let timerFailure: Error | undefined;
    scheduler = new WallClockScheduler({
      timer: args.timer,
      onError: (error) => {
        timerFailure ??= error instanceof Error ? error : new Error(String(error));
      },
    });
    // Loopback receivers get a loopback socket; others the wildcard address of the peer's IP version.
    const bind = isLoopback(peer.address) ? (peer.family === 6 ? '[::1]:0' : '127.0.0.1:0') : peer.family === 6 ? '[::]:0' : '0.0.0.0:0';
    endpoint = await createUdpEndpoint({ bind, peer: { address: peer.address, port: peer.port }, scheduler });
    const ctx = endpoint;
    const offset = sharedClockOffset(() => ctx.now());
    const startMs = sharedClockNow();
    const connectionId = args.connectionId ?? liveConnectionId(args.seed, startMs);
    const runId = runIdOf(connectionId);
    records = new JsonlWriter(join(args.out, SENDER_RECORDS));
    const log = records;
    let ended = false;
    const frames = args.durationS === null ? undefined : Math.max(1, Math.round(args.durationS * source.fps));
    const working = countingWork(args.codec === 'model' ? withModelledWorkTime(ctx) : ctx);
    const sender = new SalsifySender({
      ctx: working, codec, source, scheme: args.scheme, connectionId, frames, budgetMs: args.budgetMs,
      log: (e) => {
        if (!ended) log.write(eventRecord(e, offset));
      },
    });
    let stopSignal: NodeJS.Signals | undefined;
    removeSignals = onStopSignal((signal) => {
      stopSignal = signal;
    });
    process.stderr.write(
      `salsify send: run ${runId}: ${args.scheme}, ${args.codec} codec, ${source.description}, ` +
        `to ${formatAddress(peer)} from ${formatAddress(endpoint.localAddress)}\n`,
    );
    // Source frame i is captured at captureStartMs + i / fps (the sender's timers may run a little late:
    // the capture records say when; the frame is the one of its nominal instant, as a webcam's).
    const header: SenderHeader = {
      type: 'sender', version: RECORDS_VERSION, runId, connectionId, startMs, captureStartMs: ctx.now() + offset,
      // A clip's absolute path, so that analyze (from another directory) can reopen it.
      video: /\.(y4m|ivf)$/i.test(args.video) ? resolve(args.video) : args.video, seed: args.seed,
      scheme: args.scheme, codec: args.codec, budgetMs: args.budgetMs, width: source.width, height: source.height,
      fps: source.fps, durationS: args.durationS, to: formatAddress(peer),
    };
    sender.start();
    log.write(header);

    // Wait for the end of the captures, a signal or a failure, then for the frames in flight.
    let stopAt: number | undefined;
    let reason = 'duration';
    for (;;) {
      await sleep(20);
      const now = ctx.now();
      const failure = sender.failure ?? timerFailure;
      if (failure) {
        reason = 'error';
        sender.stop();
        ended = true;
        log.write({ type: 'end', t: now + offset, reason, error: failure.message, counters: { ...sender.counters } });
        throw failure;
      }
      if (stopAt === undefined) {
        if (stopSignal !== undefined) reason = `signal ${stopSignal}`;
        else if (frames === undefined || sender.counters.captured < frames) continue;
        sender.stop();
        stopAt = now;
        continue;
      }
      // At least 5 frame intervals, then until the last encoding is done and everything sent is acknowledged.
      const waited = now - stopAt;
      if ((waited >= Math.min(args.drainMs, 5000 / source.fps) && working.busy() === 0 && sender.packetsInFlight === 0) || waited >= args.drainMs) break;
    }
    ended = true; // an encoding that outlived the drain is not recorded after the end record
    const endMs = ctx.now() + offset;
    const counters = { ...sender.counters, packetsInFlight: sender.packetsInFlight, foreignUdpDatagrams: endpoint.foreignDatagrams(), cpuMs: cpuMs() };
    log.write({ type: 'end', t: endMs, reason, counters });
    process.stderr.write(
      `salsify send: run ${runId} ended (${reason}): ${counters.captured} frames captured, ${counters.sent} sent, ${counters.skipped} skipped, ` +
        `${counters.datagramsSent} datagrams (${(counters.bytesSent / 1e6).toFixed(2)} MB), ${counters.acks} acknowledged; records in ${log.path}\n`,
    );
    if (counters.datagramsSent > 0 && counters.acks === 0) {
      process.stderr.write(`salsify send: warning: no datagram was acknowledged: is \`salsify receive\` listening at ${formatAddress(peer)}?\n`);
    }
    return 0;
  } finally {
    removeSignals();
    await endpoint?.close();
    scheduler?.close();
    await source.close();
    await codec?.close();
    await records?.close();
  }
}
