// The traffic processes of the linkshell benchmarks (not a benchmark
// itself): `send` is an application sending datagrams at a fixed rate to
// linkshell's listen address, `sink` the peer counting what comes out. Each
// runs in a process of its own, so that linkshell's event loop carries only
// linkshell and neither end limits the rates measured.
//
// Protocol over the IPC channel: both send {ready: port} once bound (the
// sink's port is linkshell's --connect); the sender then waits for
// {start: {host, port, pps, size, durationMs}} and sends for durationMs; on
// {stop: true} each answers {counts} and exits.

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

const role = process.argv[2];
if (process.send === undefined || (role !== 'send' && role !== 'sink')) {
  console.error('bench/linkshell-traffic.ts send|sink is started by the linkshell benchmarks');
  process.exit(2);
}
const reply = (message: unknown) => process.send!(message);

const socket = createSocket('udp4');
const counts: TrafficCounts = { sent: 0, sendErrors: 0, received: 0, receivedBytes: 0 };
socket.on('message', (bytes) => {
  counts.received++;
  counts.receivedBytes += bytes.length;
});
socket.on('error', () => counts.sendErrors++);
socket.bind(0, '127.0.0.1', () => {
  try {
    socket.setRecvBufferSize(8 << 20);
  } catch {}
  reply({ ready: socket.address().port });
});

let scheduler: WallClockScheduler | undefined;
process.on('message', (message: { start?: TrafficStart; stop?: boolean }) => {
  if (message.start) start(message.start);
  if (message.stop) {
    scheduler?.close();
    reply({ counts });
    socket.close();
    process.disconnect();
  }
});

function start(s: TrafficStart): void {
  scheduler = new WallClockScheduler({ timer: 'timeout' });
  const payload = Buffer.alloc(s.size, 0x5a);
  const t0 = scheduler.now();
  // Every millisecond, send what the rate owes by now: exact on average whatever the timer jitter.
  const tick = (k: number) => {
    const elapsed = Math.min(scheduler!.now() - t0, s.durationMs);
    const owed = Math.floor((elapsed * s.pps) / 1000) - counts.sent;
    for (let i = 0; i < owed; i++) {
      socket.send(payload, s.port, s.host);
      counts.sent++;
    }
    if (elapsed < s.durationMs) scheduler!.at(t0 + k + 1, () => tick(k + 1));
  };
  tick(0);
}
