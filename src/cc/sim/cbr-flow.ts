// A constant-bitrate flow: the sender sends datagrams of one size at one
// rate, whatever happens; the receiver sends nothing back. No controller: it
// is the suite's calibration source (what a link does to a known load) and
// the simplest FlowFactory to test the bottleneck with.
import type { Flow, FlowFactory } from '../flow.ts';
import type { TimerHandle } from '../../net/endpoint.ts';

export interface CbrOptions {
  /** bit/s of payload */
  readonly bitrate: number;
  /** Payload bytes per datagram (default 1200). */
  readonly payloadBytes?: number;
}

export function cbrFlow(options: CbrOptions): FlowFactory {
  const payload = options.payloadBytes ?? 1200;
  if (!(options.bitrate > 0 && Number.isFinite(options.bitrate))) throw new RangeError(`cbr bitrate must be a finite number of bit/s > 0, got ${options.bitrate}`);
  if (!(Number.isInteger(payload) && payload >= 1 && payload <= 65507)) throw new RangeError(`cbr payloadBytes must be an integer from 1 to 65507, got ${payload}`);
  const gapMs = (payload * 8 * 1000) / options.bitrate;
  return {
    name: `cbr-${options.bitrate / 1e6}mbps`,
    create(sender): Flow {
      let timer: TimerHandle | undefined;
      let sending = false;
      let sequence = 0;
      // Sends are due at start + k * gap (no drift from rounding in timers).
      let nextDue = 0;
      const tick = () => {
        if (!sending) return;
        const bytes = new Uint8Array(payload);
        new DataView(bytes.buffer).setUint32(0, sequence++ >>> 0);
        sender.send(bytes);
        nextDue += gapMs;
        timer = sender.setTimer(Math.max(0, nextDue - sender.now()), tick);
      };
      const begin = () => {
        sending = true;
        nextDue = sender.now();
        tick();
      };
      const halt = () => {
        sending = false;
        timer?.cancel();
        timer = undefined;
      };
      return { start: begin, pause: halt, resume: begin, stop: halt, targetBitrate: () => options.bitrate };
    },
  };
}
