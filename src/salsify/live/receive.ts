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
import { join } from 'node:path';
import type { FunctionalCodec } from '../../codec-bridge/types.ts';
import { usageError } from '../../common/errors.ts';
import { formatAddress } from '../../net/address.ts';
import { createUdpEndpoint, type UdpEndpoint } from '../../net/udp-endpoint.ts';
import { openCodec, type CodecName } from '../open-inputs.ts';
import { FirstFailure } from './first-failure.ts';
import { ReceiveSession } from './receive-session.ts';
import { RecordsFile } from './records-file.ts';
import { RECEIVER_RECORDS, RECORDS_VERSION, type ReceiverHeader } from './records.ts';
import { SavedOutput } from './saved-output.ts';
import { sharedClockNow, sharedClockOffset } from './shared-clock.ts';
import { watchStopSignals, type StopSignals } from './stop-signals.ts';
import { makeDirectory } from '../../results/writer.ts';

/** What `salsify receive` runs with (its command line is parsed by src/cli/salsify-receive.ts). */
export interface ReceiveArgs {
  readonly port: number;
  readonly bind: string;
  readonly out: string;
  readonly codec: CodecName;
  readonly saveVideo: boolean;
  readonly idleTimeoutMs: number;
}

/** Runs `salsify receive` with its arguments (parsed by src/cli/salsify-receive.ts): 0 once the run ended cleanly. */
export async function runReceive(args: ReceiveArgs): Promise<number> {
  // First of all, so that a signal at any later moment ends the run with its records complete.
  const stop = watchStopSignals('salsify receive');
  try {
    try {
      makeDirectory(args.out);
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
