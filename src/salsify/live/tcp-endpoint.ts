// The sender's transport over TCP (salsify send --transport tcp): the same
// endpoint interface as the UDP one (src/net/udp-endpoint.ts's UdpEndpoint),
// its datagrams length-prefixed over one TCP connection (tcp-framing.ts) to a
// relay (tcp-relay.ts) that forwards them as UDP to salsify receive and its
// acknowledgements back, as TURN over TCP carries a WebRTC call. What is
// lost on the way is resent by TCP, so every datagram arrives, in order, and
// one lost segment holds back every datagram behind it (head-of-line
// blocking). Sends never block: what TCP cannot take yet is queued in the
// socket (bufferedBytes() says how much).
import { createConnection, type Socket } from 'node:net';
import { formatAddress, type UdpAddress } from '../../net/address.ts';
import type { UdpEndpoint } from '../../net/udp-endpoint.ts';
import { workInRealTime } from '../../net/endpoint.ts';
import { WallClockScheduler } from '../../net/wall-clock.ts';
import type { TimerHandle } from '../../common/timer.ts';
import { Deframer, frameDatagram } from './tcp-framing.ts';

export interface TcpEndpoint extends UdpEndpoint {
  /** Bytes written but not yet taken by the kernel's send buffer. */
  bufferedBytes(): number;
}

export interface TcpEndpointOptions {
  /** The relay to connect to. */
  readonly relay: UdpAddress;
  readonly scheduler?: WallClockScheduler;
  readonly timeoutMs?: number;
}

export async function createTcpEndpoint(options: TcpEndpointOptions): Promise<TcpEndpoint> {
  const { relay } = options;
  const socket: Socket = await new Promise((resolve, reject) => {
    const s = createConnection({ host: relay.address, port: relay.port, noDelay: true });
    const timer = setTimeout(() => {
      s.destroy();
      reject(new Error(`cannot connect to the TCP relay ${formatAddress(relay)}: no answer within ${options.timeoutMs ?? 10_000} ms`));
    }, options.timeoutMs ?? 10_000);
    s.once('connect', () => {
      clearTimeout(timer);
      s.off('error', onError);
      resolve(s);
    });
    const onError = (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(new Error(`cannot connect to the TCP relay ${formatAddress(relay)}: ${error.code ?? error.message}`));
    };
    s.once('error', onError);
  });
  const scheduler = options.scheduler ?? new WallClockScheduler({ timer: 'timeout' });
  const ownsScheduler = options.scheduler === undefined;
  const deframer = new Deframer();
  let handler: ((bytes: Uint8Array) => void) | undefined;
  let closed = false;
  let failure: Error | undefined;
  socket.on('data', (chunk: Buffer) => {
    if (closed) return;
    for (const datagram of deframer.push(chunk)) handler?.(datagram);
  });
  socket.on('error', (error: NodeJS.ErrnoException) => {
    failure ??= new Error(`TCP connection to ${formatAddress(relay)}: ${error.code ?? error.message}`);
  });
  socket.on('close', () => {
    failure ??= new Error(`TCP connection to ${formatAddress(relay)} closed by the relay`);
  });
  const local = { address: socket.localAddress ?? '0.0.0.0', family: 4 as const, port: socket.localPort ?? 0 };
  return {
    localAddress: local,
    peer: () => relay,
    foreignDatagrams: () => 0,
    bufferedBytes: () => socket.writableLength,
    now: () => scheduler.now(),
    setTimer: (delayMs: number, callback: () => void): TimerHandle => {
      if (!(delayMs >= 0) || !Number.isFinite(delayMs)) throw new RangeError(`timer delay must be a finite number of ms >= 0, got ${delayMs}`);
      return scheduler.at(scheduler.now() + delayMs, callback);
    },
    send: (bytes: Uint8Array) => {
      if (closed) throw new Error(`TCP endpoint to ${formatAddress(relay)} is closed`);
      if (failure !== undefined) throw failure;
      socket.write(frameDatagram(bytes));
    },
    onReceive: (h) => {
      handler = h;
    },
    work: (task) => workInRealTime(task),
    close: async () => {
      if (closed) return;
      closed = true;
      if (ownsScheduler) scheduler.close();
      await new Promise<void>((resolve) => {
        socket.end(() => resolve());
        setTimeout(resolve, 2000).unref();
      });
      socket.destroy();
    },
  };
}
