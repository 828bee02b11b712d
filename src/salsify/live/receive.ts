// `salsify receive`: the Salsify receiver over a real UDP socket. It waits for
// a sender; the first Salsify datagram names the run (its connection id, the
// run id) and the receiver of that run is created then, the same
// SalsifyReceiver as in the simulator (receive-session.ts). Per frame it
// records when its datagrams arrived; per shown frame it records the show
// time on the shared clock (shared-clock.ts) and the frame number, which the
// sender's records map to the source frame; with the model codec also the
// modelled SSIM; otherwise every shown frame's compressed bytes go to
// OUT/received.ivf (in show order), which `salsify analyze` decodes again to
// compute SSIM against the source; with --save-video also the shown pictures
// (OUT/received.y4m).
// Ends after --idle-timeout seconds without a datagram (once a run started),
// on SIGINT/SIGTERM/SIGHUP, or on an error; its records always end with an
// end record.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { FunctionalCodec } from '../../codec-bridge/types.ts';
import { usageError } from '../../common/errors.ts';
import { formatAddress } from '../../net/address.ts';
import { createUdpEndpoint, type UdpEndpoint } from '../../net/udp-endpoint.ts';
import { CODECS, openCodec } from '../open-inputs.ts';
import { durationMsValue, formatHelp, LIMITS, nameValue, noPositionals, optional, parseCommandLine, portValue, required } from '../../common/validate.ts';
import { FirstFailure } from './first-failure.ts';
import { ReceiveSession } from './receive-session.ts';
import { RecordsFile } from './records-file.ts';
import { RECEIVER_RECORDS, RECORDS_VERSION, type ReceiverHeader } from './records.ts';
import { SavedOutput } from './saved-output.ts';
import { sharedClockNow, sharedClockOffset } from './shared-clock.ts';
import { watchStopSignals, type StopSignals } from './stop-signals.ts';

export const RECEIVE_HELP = formatHelp({
  usage: ['salsify receive --port P --out DIR [options]'],
  about: `Runs the Salsify receiver on a UDP port for one run of \`salsify send\`:
decodes and shows frames, acknowledges every datagram, and records per shown
frame its show time and frame number in DIR/receiver.jsonl (times on a clock
shared by processes on one machine: see salsify send --help). It serves the
first address it hears from; start it before the sender.`,
  options: [
    ['--port P', 'UDP port to listen on, 0 to 65535 (0: any free port,\nprinted)'],
    ['--bind HOST', 'address to listen on (default 127.0.0.1; 0.0.0.0 for\nsenders on other machines)'],
    ['--out DIR', 'where receiver.jsonl (and received.ivf, received.y4m)\ngo (required; created if needed)'],
    ['--codec NAME', 'model (the default; decodes take their modelled time)\nor vp8: the sender\'s codec'],
    ['--save-video', 'also write every shown picture to DIR/received.y4m\n(raw I420: 83 MB per second of 720p60). Not needed for\nSSIM: with vp8 the receiver keeps every shown frame\'s\ncompressed bytes (DIR/received.ivf), which salsify\nanalyze decodes again; the model codec\'s SSIM is\nrecorded as it goes'],
    ['--idle-timeout S', 'stop once no datagram came for S seconds (> 0, at most\n3600) after a run started (default 3)'],
    ['-h, --help', 'this text'],
  ],
  notes: `SIGINT, SIGTERM or SIGHUP, at any moment (even while the program loads), stops
it cleanly (records ended, exit 0); a second one ends the records and exits at
once. Exit status: 0 on success, 2 for a bad argument or records that cannot
be written, 1 otherwise. Once created, receiver.jsonl ends with an end record
however the run ends (SIGKILL aside: then the records up to it, whole).`,
});

export interface ReceiveArgs {
  readonly port: number;
  readonly bind: string;
  readonly out: string;
  readonly codec: 'model' | 'vp8';
  readonly saveVideo: boolean;
  readonly idleTimeoutMs: number;
}

export function parseReceiveArgs(argv: string[]): { help: true } | { help: false; args: ReceiveArgs } {
  const { values, positionals } = parseCommandLine('salsify receive --help', {
    args: argv,
    options: {
      port: { type: 'string' }, bind: { type: 'string' }, out: { type: 'string' }, codec: { type: 'string' },
      'save-video': { type: 'boolean' }, 'idle-timeout': { type: 'string' }, help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) return { help: true };
  noPositionals(positionals, 'salsify receive --help');
  const port = portValue('port', required('port', values.port, 'P (0 for any free port)', 'salsify receive --help'));
  const out = required('out', values.out, 'DIR', 'salsify receive --help');
  const bind = values.bind ?? '127.0.0.1';
  if (bind === '' || /[\s[\]]/.test(bind)) throw usageError(`--bind must be a host name or IP address, got ${JSON.stringify(bind)}`);
  return {
    help: false,
    args: {
      port,
      bind,
      out,
      codec: nameValue('codec', values.codec ?? 'model', CODECS),
      saveVideo: values['save-video'] ?? false,
      idleTimeoutMs: optional(values['idle-timeout'], (t) => durationMsValue('idle-timeout', t, { unit: 's', minExclusive: true, maxMs: LIMITS.maxPeriodMs })) ?? 3000,
    },
  };
}

export async function runReceive(argv: string[]): Promise<number> {
  // First of all, so that a signal at any later moment ends the run with its records complete.
  const stop = watchStopSignals('salsify receive');
  try {
    const parsed = parseReceiveArgs(argv);
    if (parsed.help) {
      process.stdout.write(RECEIVE_HELP);
      return 0;
    }
    const args = parsed.args;
    try {
      mkdirSync(args.out, { recursive: true });
    } catch (error) {
      throw usageError(`cannot create --out ${args.out}: ${(error as Error).message}`);
    }
    const endpoint = await bindReceiver(args);
    try {
      const codec = await openCodec(args.codec);
      try {
        return await receiveRun(args, endpoint, codec, stop);
      } finally {
        await codec.close();
      }
    } finally {
      await endpoint.close();
    }
  } finally {
    stop.remove();
  }
}

async function bindReceiver(args: ReceiveArgs): Promise<UdpEndpoint> {
  try {
    const host = args.bind.includes(':') ? `[${args.bind}]` : args.bind;
    return await createUdpEndpoint({ bind: `${host}:${args.port}` });
  } catch (error) {
    throw usageError(`--bind ${args.bind} --port ${args.port}: ${(error as Error).message}`);
  }
}

async function receiveRun(args: ReceiveArgs, endpoint: UdpEndpoint, codec: FunctionalCodec, stop: StopSignals): Promise<number> {
  const offset = sharedClockOffset(() => endpoint.now());
  const listen = formatAddress(endpoint.localAddress);
  const failure = new FirstFailure();
  // Without the model codec's own SSIM, every shown frame's compressed bytes are kept (about the
  // video's bit rate), so that analyze can decode them again and compare with the source.
  const saved = new SavedOutput(args.out, { frames: codec.name !== 'model', pictures: args.saveVideo }, failure.report);
  const header: ReceiverHeader = {
    type: 'receiver', version: RECORDS_VERSION, startMs: sharedClockNow(), codec: args.codec, listen, ...saved.names,
  };
  const records = new RecordsFile(join(args.out, RECEIVER_RECORDS), header, () => endpoint.now(), (t) => t + offset);
  const session = new ReceiveSession({ endpoint, codec, records, saved, failure, offset });
  stop.beforeForcedExit((reason, error) => session.end(reason, error));
  process.stderr.write(`salsify receive: listening on ${listen} (${args.codec} codec), records in ${records.path}\n`);
  try {
    const reason = await Promise.race([stop.first.then((signal) => `signal ${signal}`), session.idle(args.idleTimeoutMs), failure.thrown()]);
    // Let the frames already complete finish decoding (bounded).
    await Promise.race([session.drain(2000), failure.thrown()]);
    failure.report(records.failure);
    if (failure.error) throw failure.error;
    session.end(reason);
    const runId = session.runId;
    process.stderr.write(`salsify receive: ${runId === undefined ? 'no run' : `run ${runId}`} ended (${reason}): ${session.framesShown} frames shown; records in ${records.path}\n`);
    return 0;
  } catch (error) {
    session.end('error', error);
    throw error;
  } finally {
    try {
      await saved.close();
    } finally {
      records.close();
    }
  }
}
