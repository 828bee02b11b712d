// EndpointContext over a real UDP socket, so that endpoint code written for
// the simulator (the Salsify sender and receiver) runs unchanged on a real
// network or through linkshell. Time is the monotonic clock in milliseconds
// since the endpoint was created; timers are drift-free (WallClockScheduler).

import { createSocket, type Socket } from 'node:dgram';
import { isIP } from 'node:net';
import { formatAddress, parseHostPort, resolveHostPort, type UdpAddress } from './address.ts';
import { workInRealTime, type EndpointContext } from './endpoint.ts';
import type { TimerHandle } from '../common/timer.ts';
import { WallClockScheduler, type TimerKind } from './wall-clock.ts';

export type AddressSpec = string | { address: string; port: number };

export interface UdpEndpointOptions {
  /** Local address to bind: "HOST:PORT" or an object (default 127.0.0.1:0, an ephemeral port on loopback). */
  bind?: AddressSpec;
  /**
   * The peer datagrams are sent to and accepted from. Without one, the
   * endpoint waits like a server: the sender of the first datagram it
   * receives becomes its peer, and send() before that throws.
   */
  peer?: AddressSpec;
  /** The scheduler behind now() and setTimer() (default: a new one, its clock starting now). */
  scheduler?: WallClockScheduler;
  /** The timer of the scheduler made when none is given: 'timeout' (default, within about 1 ms) or 'thread' (within about 0.1 ms). */
  timer?: TimerKind;
}

export interface UdpEndpoint extends EndpointContext {
  /** The bound local address (with the port the system chose for port 0). */
  readonly localAddress: UdpAddress;
  /** The current peer, if known. */
  peer(): UdpAddress | undefined;
  /** Datagrams received from others than the peer, and ignored. */
  foreignDatagrams(): number;
  /** Stops the timers and closes the socket; further sends are errors. */
  close(): Promise<void>;
}

async function resolveSpec(spec: AddressSpec, what: string): Promise<UdpAddress> {
  if (typeof spec === 'string') return resolveHostPort(parseHostPort(spec, what), what);
  const family = isIP(spec.address);
  if (family === 0) return resolveHostPort({ host: spec.address, port: spec.port }, what);
  if (!Number.isInteger(spec.port) || spec.port < 0 || spec.port > 65535) throw new Error(`${what}: port ${spec.port} is not an integer from 0 to 65535`);
  return { address: spec.address, family: family as 4 | 6, port: spec.port };
}

export async function createUdpEndpoint(options: UdpEndpointOptions = {}): Promise<UdpEndpoint> {
  const bindTo = await resolveSpec(options.bind ?? '127.0.0.1:0', 'bind');
  let peer = options.peer === undefined ? undefined : await resolveSpec(options.peer, 'peer');
  if (peer !== undefined && peer.port === 0) throw new Error(`peer: port 0 is not a peer's port (${formatAddress(peer)})`);
  if (peer !== undefined && peer.family !== bindTo.family) {
    throw new Error(`peer ${formatAddress(peer)} and bind address ${formatAddress(bindTo)} are of different IP versions`);
  }
  const socket: Socket = createSocket({ type: bindTo.family === 6 ? 'udp6' : 'udp4' });
  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => {
      socket.close();
      reject(new Error(`cannot bind UDP socket to ${formatAddress(bindTo)}: ${(error as NodeJS.ErrnoException).code ?? error.message}`));
    };
    socket.once('error', onError);
    socket.bind({ address: bindTo.address, port: bindTo.port }, () => {
      socket.off('error', onError);
      resolve();
    });
  });
  const bound = socket.address();
  const localAddress: UdpAddress = { address: bound.address, family: bindTo.family, port: bound.port };
  const scheduler = options.scheduler ?? new WallClockScheduler({ timer: options.timer ?? 'timeout' });
  const ownsScheduler = options.scheduler === undefined;
  let handler: ((bytes: Uint8Array) => void) | undefined;
  let foreign = 0;
  let closed = false;
  let socketError: Error | undefined;

  socket.on('message', (bytes, from) => {
    if (closed) return;
    if (peer === undefined) {
      peer = { address: from.address, family: from.family === 'IPv6' ? 6 : 4, port: from.port };
    } else if (from.port !== peer.port || from.address !== peer.address) {
      foreign++;
      return;
    }
    handler?.(bytes);
  });
  // A send to a closed port can come back as an error event on some systems; keep it for the next send.
  socket.on('error', (error) => {
    socketError = error;
  });

  return {
    localAddress,
    peer: () => peer,
    foreignDatagrams: () => foreign,
    now: () => scheduler.now(),
    setTimer: (delayMs: number, callback: () => void): TimerHandle => {
      if (!(delayMs >= 0) || !Number.isFinite(delayMs)) throw new RangeError(`timer delay must be a finite number of ms >= 0, got ${delayMs}`);
      return scheduler.at(scheduler.now() + delayMs, callback);
    },
    send: (bytes: Uint8Array) => {
      if (closed) throw new Error(`UDP endpoint ${formatAddress(localAddress)} is closed`);
      if (peer === undefined) throw new Error(`UDP endpoint ${formatAddress(localAddress)} has no peer yet (none given, and nothing received)`);
      if (socketError !== undefined) {
        const error = socketError;
        socketError = undefined;
        throw new Error(`UDP endpoint ${formatAddress(localAddress)}: ${(error as NodeJS.ErrnoException).code ?? error.message}`);
      }
      // The bytes are copied, so the caller may reuse its buffer at once.
      socket.send(Buffer.from(bytes), peer.port, peer.address, (error) => {
        if (error) socketError = error;
      });
    },
    onReceive: (h) => {
      handler = h;
    },
    work: (task) => workInRealTime(task),
    close: async () => {
      if (closed) return;
      closed = true;
      if (ownsScheduler) scheduler.close();
      await new Promise<void>((resolve) => socket.close(() => resolve()));
    },
  };
}
