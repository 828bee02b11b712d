// The traffic process of the linkshell benchmarks (not a benchmark itself):
// an application that sends datagrams at a fixed rate to linkshell's listen
// address, and the peer that counts what comes out. It runs in its own
// process so that linkshell's event loop carries only linkshell.
//
// Protocol over the IPC channel: the child sends {sink: port} once its sink
// is bound; the parent answers {start: {target, pps, size, durationMs}}; the
// child sends for durationMs, and answers {stop: true} with its counts.

import { createSocket } from 'node:dgram';
import { WallClockScheduler } from '../src/net/wall-clock.ts';

export interface TrafficStart {
  /** linkshell's listen address. */
  host: string;
  port: number;
  pps: number;
  size: number;
  durationMs: number;
}

export interface TrafficCounts {
  sent: number;
  sendErrors: number;
  received: number;
  receivedBytes: number;
}

if (process.send === undefined) {
  console.error('bench/linkshell-traffic.ts is started by the linkshell benchmarks');
  process.exit(2);
}
const send = (message: unknown) => process.send!(message);

const sink = createSocket('udp4');
const source = createSocket('udp4');
const counts: TrafficCounts = { sent: 0, sendErrors: 0, received: 0, receivedBytes: 0 };
sink.on('message', (bytes) => {
  counts.received++;
  counts.receivedBytes += bytes.length;
});
sink.bind(0, '127.0.0.1', () => {
  try {
    sink.setRecvBufferSize(8 << 20);
  } catch {}
  send({ sink: sink.address().port });
});
source.bind(0, '127.0.0.1');

let scheduler: WallClockScheduler | undefined;
process.on('message', (message: { start?: TrafficStart; stop?: boolean }) => {
  if (message.start) start(message.start);
  if (message.stop) {
    scheduler?.close();
    send({ counts });
    sink.close();
    source.close();
    process.disconnect();
  }
});

function start(s: TrafficStart): void {
  scheduler = new WallClockScheduler({ spinMs: 0 });
  const payload = Buffer.alloc(s.size, 0x5a);
  const t0 = scheduler.now();
  const onSent = (error: Error | null) => {
    if (error) counts.sendErrors++;
  };
  // Every millisecond, send what the rate owes by now: exact on average whatever the timer jitter.
  const tick = (k: number) => {
    const elapsed = Math.min(scheduler!.now() - t0, s.durationMs);
    const owed = Math.floor((elapsed * s.pps) / 1000) - counts.sent;
    for (let i = 0; i < owed; i++) {
      source.send(payload, s.port, s.host, onSent);
      counts.sent++;
    }
    if (elapsed < s.durationMs) scheduler!.at(t0 + k + 1, () => tick(k + 1));
  };
  tick(0);
}
