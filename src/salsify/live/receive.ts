// `salsify receive`: the Salsify receiver over a real UDP socket. It waits for
// a sender; the first Salsify datagram names the run (its connection id, the
// run id) and the receiver of that run is created then, the same
// SalsifyReceiver as in the simulator. Per shown frame it records the show
// time on the shared clock (shared-clock.ts) and the frame number, which the
// sender's records map to the source frame; with the model codec also the
// modelled SSIM; otherwise every shown frame's compressed bytes go to
// OUT/received.ivf (in show order), which `salsify analyze` decodes again to
// compute SSIM against the source; with --save-video also the shown pictures
// (OUT/received.y4m).
// Ends after --idle-timeout seconds without a datagram (once a run started),
// or on SIGINT/SIGTERM/SIGHUP; always flushes its records.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { FunctionalCodec } from '../../codec-bridge/types.ts';
import { createIvfWriter, type IvfWriter } from '../../codec-bridge/video/ivf.ts';
import { createY4mWriter, type Y4mWriter } from '../../codec-bridge/video/y4m.ts';
import { UsageError } from '../../common/usage-error.ts';
import { formatAddress } from '../../net/address.ts';
import type { EndpointContext } from '../../net/endpoint.ts';
import { createUdpEndpoint, type UdpEndpoint } from '../../net/udp-endpoint.ts';
import { decodeDatagram, type FragmentDatagram } from '../datagram.ts';
import { FrameArrivals, type FrameArrival } from '../frame-arrivals.ts';
import type { ModelCodec } from '../model-codec.ts';
import { openCodec } from '../open-inputs.ts';
import { SalsifyReceiver, type ShownFrame } from '../receiver.ts';
import { JsonlWriter } from './jsonl.ts';
import { codecOption, noPositionals, numberOption } from './options.ts';
import { RECEIVER_RECORDS, RECORDS_VERSION, runIdOf, SAVED_FRAMES, SAVED_VIDEO, type ReceiverHeader } from './records.ts';
import { sharedClockNow, sharedClockOffset } from './shared-clock.ts';
import { countingWork } from './counting-work.ts';
import { cpuMs } from './cpu-time.ts';
import { withModelledWorkTime } from './modelled-work.ts';
import { onStopSignal } from './stop-signals.ts';

export const RECEIVE_HELP = `Usage: salsify receive --port P --out DIR [options]

Runs the Salsify receiver on a UDP port for one run of \`salsify send\`:
decodes and shows frames, acknowledges every datagram, and records per shown
frame its show time and frame number in DIR/receiver.jsonl (times on a clock
shared by processes on one machine: see salsify send --help). It serves the
first address it hears from; start it before the sender.

Options:
  --port P              UDP port to listen on (0: any free port, printed)
  --bind HOST           address to listen on (default 127.0.0.1; 0.0.0.0 for
                        senders on other machines)
  --out DIR             where receiver.jsonl (and received.ivf, received.y4m)
                        go (required; created if needed)
  --codec NAME          model (the default; decodes take their modelled time)
                        or vp8: the sender's codec
  --save-video          also write every shown picture to DIR/received.y4m
                        (raw I420: 83 MB per second of 720p60). Not needed for
                        SSIM: with vp8 the receiver keeps every shown frame's
                        compressed bytes (DIR/received.ivf), which salsify
                        analyze decodes again; the model codec's SSIM is
                        recorded as it goes
  --idle-timeout S      stop once no datagram came for S seconds after a run
                        started (default 3)
  -h, --help            this text

SIGINT, SIGTERM or SIGHUP stops it cleanly (records flushed, exit 0); a second
one exits at once. Exit status: 0 on success, 2 for a bad argument, 1 otherwise.
`;

export interface ReceiveArgs {
  readonly port: number;
  readonly bind: string;
  readonly out: string;
  readonly codec: 'model' | 'vp8';
  readonly saveVideo: boolean;
  readonly idleTimeoutMs: number;
}

export function parseReceiveArgs(argv: string[]): { help: true } | { help: false; args: ReceiveArgs } {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string' }, bind: { type: 'string' }, out: { type: 'string' }, codec: { type: 'string' },
      'save-video': { type: 'boolean' }, 'idle-timeout': { type: 'string' }, help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) return { help: true };
  noPositionals('receive', positionals);
  if (values.port === undefined) throw new UsageError('--port P is required (0 for any free port)');
  if (!/^\d{1,5}$/.test(values.port) || Number(values.port) > 65535) throw new UsageError(`--port must be an integer from 0 to 65535, got ${JSON.stringify(values.port)}`);
  if (values.out === undefined || values.out === '') throw new UsageError('--out DIR is required');
  const bind = values.bind ?? '127.0.0.1';
  if (bind === '' || /[\s[\]]/.test(bind)) throw new UsageError(`--bind must be a host name or IP address, got ${JSON.stringify(bind)}`);
  return {
    help: false,
    args: {
      port: Number(values.port),
      bind,
      out: values.out,
      codec: codecOption(values.codec),
      saveVideo: values['save-video'] ?? false,
      idleTimeoutMs: 1000 * (numberOption('idle-timeout', values['idle-timeout'], (n) => n > 0, 'a number of seconds > 0') ?? 3),
    },
  };
}

/** The endpoint as the receiver sees it: datagrams are handed over by the run's gatekeeper below. */
function forwardingContext(endpoint: UdpEndpoint): EndpointContext & { deliver(bytes: Uint8Array): void } {
  let handler: ((bytes: Uint8Array) => void) | undefined;
  return {
    now: () => endpoint.now(),
    setTimer: (ms, callback) => endpoint.setTimer(ms, callback),
    send: (bytes) => endpoint.send(bytes),
    work: (task, ms) => endpoint.work(task, ms),
    onReceive: (h) => {
      handler = h;
    },
    deliver: (bytes) => handler?.(bytes),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runReceive(argv: string[]): Promise<number> {
  const parsed = parseReceiveArgs(argv);
  if (parsed.help) {
    process.stdout.write(RECEIVE_HELP);
    return 0;
  }
  const args = parsed.args;
  try {
    mkdirSync(args.out, { recursive: true });
  } catch (error) {
    throw new UsageError(`cannot create --out ${args.out}: ${(error as Error).message}`);
  }
  let endpoint: UdpEndpoint;
  try {
    const host = args.bind.includes(':') ? `[${args.bind}]` : args.bind;
    endpoint = await createUdpEndpoint({ bind: `${host}:${args.port}` });
  } catch (error) {
    throw new UsageError(`--bind ${args.bind} --port ${args.port}: ${(error as Error).message}`);
  }
  let codec: FunctionalCodec | undefined;
  let records: JsonlWriter | undefined;
  let video: Y4mWriter | undefined;
  let frames: IvfWriter | undefined;
  let removeSignals = () => {};
  try {
    codec = await openCodec(args.codec);
    const offset = sharedClockOffset(() => endpoint.now());
    records = new JsonlWriter(join(args.out, RECEIVER_RECORDS));
    const log = records;
    const listen = formatAddress(endpoint.localAddress);
    const modelled = codec.name === 'model' ? (codec as ModelCodec) : undefined;
    // Without the model codec's own SSIM, every shown frame's compressed bytes are kept (about the
    // video's bit rate), so that analyze can decode them again and compare with the source.
    const saveFrames = !modelled;
    const header: ReceiverHeader = {
      type: 'receiver', version: RECORDS_VERSION, startMs: sharedClockNow(), codec: args.codec, listen,
      video: args.saveVideo ? SAVED_VIDEO : null, frames: saveFrames ? SAVED_FRAMES : null,
    };
    log.write(header);
    const framesPath = join(args.out, SAVED_FRAMES);
    const videoPath = join(args.out, SAVED_VIDEO);
    let pictures = 0;
    let saveFailure: Error | undefined;
    let ignoredBeforeRun = 0;
    let ended = false;
    const onShown = (s: ShownFrame) => {
      if (ended) return; // a decode that outlived the drain: after the end record
      const record: Record<string, unknown> = {
        type: 'shown', t: s.shownAt + offset, frame: s.frameNumber, bytes: s.frame.length, src: s.sourceStateId, dst: s.targetStateId,
      };
      if (modelled) record.ssim = modelled.modelledSsim(s.frame);
      if (saveFrames && !saveFailure) {
        try {
          frames ??= createIvfWriter(framesPath, { width: s.picture.width, height: s.picture.height, fps: 60, fourcc: 'VP80' });
          frames.write({ data: s.frame, timestamp: s.frameNumber }).catch((error: Error) => {
            saveFailure ??= error;
          });
        } catch (error) {
          saveFailure = error as Error;
        }
      }
      if (args.saveVideo && !saveFailure) {
        try {
          // The first picture fixes the file's size; the frame rate in its header is nominal (pictures come when shown).
          video ??= createY4mWriter(videoPath, { width: s.picture.width, height: s.picture.height, fps: 60 });
          // write() copies the picture before it returns, so decoder buffers may be reused.
          video.write(s.picture).catch((error: Error) => {
            saveFailure ??= error;
          });
          record.picture = pictures++;
        } catch (error) {
          saveFailure = error as Error;
        }
      }
      log.write(record);
    };

    const arrivals = new FrameArrivals();
    const arrivalRecord = (frame: number, a: FrameArrival, t: number) =>
      ({ type: 'arrival', t: t + offset, frame, first: a.firstMs + offset, fragments: a.fragments, of: a.fragmentCount });
    const onFragment = (d: FragmentDatagram, at: number) => {
      const complete = arrivals.fragment(d, at);
      if (complete && !ended) log.write(arrivalRecord(d.frameNumber, complete, complete.lastMs!));
    };
    const ctx = forwardingContext(endpoint);
    const decoding = countingWork(modelled ? withModelledWorkTime(ctx) : ctx);
    let receiver: SalsifyReceiver | undefined;
    let runId: string | undefined;
    let lastDatagram = 0;
    endpoint.onReceive((bytes) => {
      lastDatagram = endpoint.now();
      if (!receiver) {
        // The run starts with its first Salsify fragment; anything else before it is ignored.
        let connectionId: number;
        try {
          const d = decodeDatagram(bytes);
          if (d.type !== 'fragment') throw new Error('not a fragment');
          connectionId = d.connectionId;
        } catch {
          ignoredBeforeRun++;
          return;
        }
        runId = runIdOf(connectionId);
        const peer = endpoint.peer();
        log.write({ type: 'run', t: lastDatagram + offset, runId, connectionId, peer: peer ? formatAddress(peer) : '?' });
        process.stderr.write(`salsify receive: run ${runId} from ${peer ? formatAddress(peer) : '?'}\n`);
        receiver = new SalsifyReceiver({ ctx: decoding, codec: codec!, connectionId, onShown, onFragment });
      }
      ctx.deliver(bytes);
    });
    let stopSignal: NodeJS.Signals | undefined;
    removeSignals = onStopSignal((signal) => {
      stopSignal = signal;
    });
    process.stderr.write(`salsify receive: listening on ${listen} (${args.codec} codec), records in ${log.path}\n`);

    let reason: string;
    for (;;) {
      await sleep(20);
      const failure = receiver?.failure ?? saveFailure;
      if (failure) {
        ended = true;
        log.write({ type: 'end', t: endpoint.now() + offset, reason: 'error', error: failure.message, counters: { ...receiver?.counters } });
        throw failure;
      }
      if (stopSignal !== undefined) {
        reason = `signal ${stopSignal}`;
        break;
      }
      if (receiver && endpoint.now() - lastDatagram >= args.idleTimeoutMs) {
        reason = 'idle';
        break;
      }
    }
    // Let the frames already complete finish decoding (bounded).
    const drainUntil = endpoint.now() + 2000;
    while (receiver && (receiver.decodeQueueLength > 0 || decoding.busy() > 0) && endpoint.now() < drainUntil) await sleep(10);
    for (const [frame, a] of arrivals.incomplete()) log.write(arrivalRecord(frame, a, a.firstMs));
    ended = true;
    const counters = { ...(receiver?.counters ?? {}), picturesSaved: pictures, ignoredBeforeRun, foreignUdpDatagrams: endpoint.foreignDatagrams(), cpuMs: cpuMs() };
    log.write({ type: 'end', t: endpoint.now() + offset, reason, counters });
    const shown = receiver?.counters.framesShown ?? 0;
    process.stderr.write(
      `salsify receive: ${runId === undefined ? 'no run' : `run ${runId}`} ended (${reason}): ${shown} frames shown; records in ${log.path}\n`,
    );
    return 0;
  } finally {
    removeSignals();
    await endpoint.close();
    await codec?.close();
    await video?.close();
    await frames?.close();
    await records?.close();
  }
}
