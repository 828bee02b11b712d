// linkshell's native packet path (native-tun/src/pump.c, built with the TUN
// addon on Linux): a thread that receives datagrams from UDP sockets
// (recvmmsg) and packets from TUN devices (read) the moment the kernel has
// them, stamps each with its arrival time (the kernel's SO_TIMESTAMPNS for a
// socket, the clock in that thread right after the read for a TUN device),
// and hands them to this thread in batches. Whatever holds up the event loop
// then delays when the link model sees an arrival, not the arrival time the
// model uses: queue admission, log times and delays are those of the arrival.
//
// Sending: send() queues a datagram, and everything queued in one turn of
// the event loop leaves together (sendmmsg per socket) at the end of the
// turn, in the order queued, or earlier, when sendAt() is called after
// them. sendAt() hands a datagram to the thread with
// the time it is to leave: its departure no longer waits for this thread,
// and the thread notes how late each left (drainLateness()). At every wake
// (an arrival's or its timer's) the thread sends every such datagram due by
// then, one sendmmsg per run for one socket (in it, datagrams of one size to
// one destination as one segmented message, UDP_SEGMENT, which the kernel
// cuts into the same datagrams); its timer is set `sendSlackMs`
// after the earliest due time, so that a departure due shortly before the
// next arrival leaves in that arrival's wake instead of in a wake of its
// own. A datagram never leaves early; with nothing arriving it leaves at
// most the slack late (plus the time the kernel takes to run the thread).
//
// Where a pump is created with readsOnEventLoop, its UDP sources are read on
// this thread instead, while its event loop keeps up: libuv wakes the loop
// for a readable socket, and in that one wake the pump reads it (recvmmsg,
// the kernel's arrival stamps as ever), sends the departures due, hands the
// arrivals to the link model and sends any of its departures already due;
// the thread then wakes only for departures no arrival's wake took along,
// and every WATCH_MS (20 ms) to read what waits at those sockets (nothing,
// mostly, while the loop keeps up), so that their kernel buffers do not
// fill while the loop is held up (a long callback, a garbage collection,
// CPU contention) or reads too slowly; what it reads is handed over as
// above. One wake per datagram at low rates instead of two (the thread's
// and the loop's). TUN devices are always read by the thread: they have no
// kernel arrival stamp, and a read time on a held-up loop would be wrong.
//
// Arrival times are given on the caller's MonotonicClock (milliseconds since
// its origin): the thread reads CLOCK_MONOTONIC, which process.hrtime reads.

import { nativeTun } from '../netns/tun.ts';

/** One datagram (or packet) as received. */
export interface PumpArrival {
  /** The source it came from (as given to addUdp/addTun). */
  readonly source: number;
  readonly bytes: Buffer;
  /** Arrival time on the pump's clock (ms since its origin). */
  readonly atMs: number;
  /** The sender's address and port (sources added with wantAddress), else '' and 0. */
  readonly address: string;
  readonly port: number;
}

export interface PumpCounters {
  /** Datagrams received by the thread, receive calls (recvmmsg/read) it made, times epoll woke it, of which for its timer. */
  received: number;
  receiveCalls: number;
  wakes: number;
  timerWakes: number;
  /** Of those received, by the event loop (readsOnEventLoop); reads the thread made at its WATCH_MS looks at the loop's sources that found datagrams waiting. */
  receivedOnLoop: number;
  watchReads: number;
  /** Batches handed to this thread, the largest one, times the thread waited for this thread to take what it had. */
  handovers: number;
  maxBatch: number;
  stalls: number;
  sent: number;
  sendCalls: number;
  /** Datagrams handed over with sendAt: sent, not sent (an error, a source removed), still waiting. */
  timedSent: number;
  timedDropped: number;
  timedPending: number;
  /** Send calls (sendmmsg, write) the thread made for them. */
  timedSendCalls: number;
  /** Of the messages those calls sent, the ones that carried several datagrams of one size to one destination (UDP segmentation offload, cut into the same datagrams by the kernel). */
  segmentedSends: number;
  /** Times a thread found the other sending departures, none due still waiting, and went on without waiting for it. */
  sendLockSkips: number;
  /** Datagrams not sent: a full socket buffer or device queue, "port unreachable", other errors. */
  sendDrops: number;
  sendRefused: number;
  sendErrors: number;
  /** The kernel's drop count (SO_RXQ_OVFL) per UDP source that has reported one: [id, drops, id, drops, ...]. */
  kernelDrops: number[];
}

type PumpHandle = { readonly __pump: unique symbol };

interface NativePump {
  createPump(callback: (records: ArrayBuffer, count: number) => void, maxPendingBytes: number, sendSlackMs: number, readsOnEventLoop: boolean): PumpHandle;
  addSource(pump: PumpHandle, id: number, fd: number, kind: 0 | 1, wantAddress: boolean): void;
  removeSource(pump: PumpHandle, id: number): void;
  send(pump: PumpHandle, id: number, bytes: Uint8Array, address?: string, port?: number): void;
  flush(pump: PumpHandle): number;
  sendAt(pump: PumpHandle, id: number, bytes: Uint8Array, dueMs: number, tag: number, address?: string, port?: number): void;
  drainLateness(pump: PumpHandle): Float64Array;
  stats(pump: PumpHandle): PumpCounters;
  closePump(pump: PumpHandle): void;
  monotonicNow(): number;
}

/** Most source ids (0 .. MAX_PUMP_SOURCES - 1). */
export const MAX_PUMP_SOURCES = 65544;
const RECORD_HEADER = 72;
/** A record's address form for an IPv4 address in its 4 bytes (see pump.c); 1 to 46: IPv6 text of that length. */
const ADDRESS_RAW_V4 = 0x84;
/** IPv4 addresses formatted so far (by their 32-bit value), so that a source's address is formatted once, not per datagram. */
const ADDRESS_CACHE_LIMIT = 4096;
const DEFAULT_MAX_PENDING = 64 << 20;
/**
 * How late the thread's timer lets a departure be before it wakes for it
 * alone (ms): see the top of this file. A millisecond, as Mahimahi, which
 * sends at a poll once per millisecond.
 */
export const DEFAULT_SEND_SLACK_MS = 1;

export interface PumpOptions {
  /** process.hrtime.bigint() at the clock's origin: arrival times count from it. */
  originNs: bigint;
  /** Called with every batch, arrivals in the order received (per source, the kernel's order). */
  onArrivals: (arrivals: PumpArrival[]) => void;
  /** A receive error at a source (errno name: ECONNREFUSED when the peer's host refused a datagram). */
  onError: (source: number, code: string) => void;
  /** Bytes waiting for this thread before the receive thread stops reading (default 64 MiB). */
  maxPendingBytes?: number;
  /** How late (ms) the thread's timer lets a departure handed over with sendAt be, when no arrival wakes it sooner (default DEFAULT_SEND_SLACK_MS). */
  sendSlackMs?: number;
  /** Read UDP sources on the event loop, the thread reading what waits at them every 20 ms (see the top of this file; default false: the thread reads them). */
  readsOnEventLoop?: boolean;
}

/** Why the native packet path cannot be used here, or undefined when it can. */
export function packetPumpUnavailable(): string | undefined {
  if (process.platform !== 'linux') return 'the native packet path is Linux only';
  try {
    const addon = nativeTun() as unknown as Partial<NativePump>;
    if (typeof addon.createPump !== 'function') return 'the native addon has no packet path: rebuild it (npm install)';
  } catch (error) {
    return (error as Error).message;
  }
  return undefined;
}

export class PacketPump {
  private readonly addon: NativePump;
  private readonly handle: PumpHandle;
  private readonly originMs: number;
  private closed = false;
  private finalStats: PumpCounters | undefined;
  private queued = 0;
  private flushScheduled = false;
  private readonly flushBound = () => this.flush();
  private readonly ipv4Text = new Map<number, string>();

  constructor(private readonly options: PumpOptions) {
    const unavailable = packetPumpUnavailable();
    if (unavailable !== undefined) throw new Error(unavailable);
    this.addon = nativeTun() as unknown as NativePump;
    this.originMs = Number(options.originNs) / 1e6;
    this.handle = this.addon.createPump((records, count) => this.deliver(records, count), options.maxPendingBytes ?? DEFAULT_MAX_PENDING, options.sendSlackMs ?? DEFAULT_SEND_SLACK_MS, options.readsOnEventLoop ?? false);
  }

  /** Receives from a UDP socket's fd (duplicated: the caller keeps and closes its own). */
  addUdp(id: number, fd: number, wantAddress: boolean): void {
    this.addon.addSource(this.handle, id, fd, 0, wantAddress);
  }

  /** Reads packets from a TUN device's fd (duplicated). */
  addTun(id: number, fd: number): void {
    this.addon.addSource(this.handle, id, fd, 1, false);
  }

  /** Stops receiving from a source and closes the pump's copy of its fd (sends to it fail from now on). */
  remove(id: number): void {
    if (!this.closed) this.addon.removeSource(this.handle, id);
  }

  /** Queues a datagram for source `id`'s socket (to `address`:`port` if the socket is not connected) or device; sent at the end of this turn. */
  send(id: number, bytes: Uint8Array, address?: string, port?: number): void {
    if (this.closed) return;
    if (address === undefined) this.addon.send(this.handle, id, bytes);
    else this.addon.send(this.handle, id, bytes, address, port);
    this.queued++;
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      queueMicrotask(this.flushBound);
    }
  }

  /**
   * Hands a datagram to the thread, to leave source `id`'s socket (to
   * `address`:`port` if it is not connected) or device at `atMs` on the pump's
   * clock (at once if that has passed). `tag` comes back with its lateness.
   */
  sendAt(id: number, bytes: Uint8Array, atMs: number, tag: number, address?: string, port?: number): void {
    if (this.closed) return;
    // What send() queued earlier leaves first: the thread may send this one at once (it may be due already).
    if (this.queued > 0) this.flush();
    const due = Math.max(0, atMs + this.originMs);
    if (address === undefined) this.addon.sendAt(this.handle, id, bytes, due, tag);
    else this.addon.sendAt(this.handle, id, bytes, due, tag, address, port);
  }

  /** How late (ms) each datagram handed over with sendAt left, since the last call: [tag, ms, tag, ms, ...]. */
  drainLateness(): Float64Array {
    if (this.closed) return new Float64Array(0);
    return this.addon.drainLateness(this.handle);
  }

  /** Sends what is queued now; returns how many could not be sent (counted in stats()). */
  flush(): number {
    this.flushScheduled = false;
    if (this.closed || this.queued === 0) return 0;
    this.queued = 0;
    return this.addon.flush(this.handle);
  }

  /** Milliseconds on the pump's clock now (the same clock as the arrival times). */
  now(): number {
    return this.addon.monotonicNow() - this.originMs;
  }

  /** The counters now (once closed: as they were at the close). */
  stats(): PumpCounters {
    return this.finalStats ?? this.addon.stats(this.handle);
  }

  /** Sends what is queued, stops the thread, closes its fds. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.flush();
    this.finalStats = this.addon.stats(this.handle);
    this.closed = true;
    this.addon.closePump(this.handle);
  }

  private deliver(batch: ArrayBuffer, count: number): void {
    if (this.closed) return;
    const records = Buffer.from(batch);
    const view = new DataView(batch);
    const arrivals: PumpArrival[] = [];
    let offset = 0;
    for (let i = 0; i < count; i++) {
      const atMs = view.getFloat64(offset, true) - this.originMs;
      const source = view.getUint32(offset + 8, true);
      const length = view.getUint32(offset + 12, true);
      const port = view.getUint16(offset + 16, true);
      const addressForm = records[offset + 18];
      const error = records[offset + 19];
      const address =
        addressForm === ADDRESS_RAW_V4 ? this.formatIpv4(view.getUint32(offset + 20)) : addressForm > 0 ? records.toString('latin1', offset + 20, offset + 20 + addressForm) : '';
      const start = offset + RECORD_HEADER;
      offset = start + ((length + 7) & ~7);
      if (error !== 0) {
        this.options.onError(source, errnoName(error));
        continue;
      }
      arrivals.push({ source, bytes: records.subarray(start, start + length), atMs, address, port });
    }
    if (arrivals.length > 0) this.options.onArrivals(arrivals);
  }

  /** Dotted text of an IPv4 address (its 32-bit value, network order read big-endian): one string per address, kept. */
  private formatIpv4(value: number): string {
    let text = this.ipv4Text.get(value);
    if (text === undefined) {
      if (this.ipv4Text.size >= ADDRESS_CACHE_LIMIT) this.ipv4Text.clear();
      text = `${value >>> 24}.${(value >>> 16) & 255}.${(value >>> 8) & 255}.${value & 255}`;
      this.ipv4Text.set(value, text);
    }
    return text;
  }
}

const ERRNO_NAMES: Record<number, string> = { 1: 'EPERM', 5: 'EIO', 9: 'EBADF', 12: 'ENOMEM', 14: 'EFAULT', 19: 'ENODEV', 22: 'EINVAL', 77: 'EBADFD', 90: 'EMSGSIZE', 101: 'ENETUNREACH', 105: 'ENOBUFS', 111: 'ECONNREFUSED', 113: 'EHOSTUNREACH' };

function errnoName(errno: number): string {
  return ERRNO_NAMES[errno] ?? `errno ${errno}`;
}

/** The fd of a bound Node dgram socket, after stopping Node's own reading of it (the pump reads it instead); undefined where Node does not expose it. */
export function takeOverDgramSocket(socket: object): number | undefined {
  // Node keeps a dgram socket's handle in its state (under a symbol; the `_handle` accessor is deprecated and warns).
  const stateKey = Object.getOwnPropertySymbols(socket).find((key) => key.description === 'state symbol');
  const state = stateKey === undefined ? undefined : (socket as Record<symbol, { handle?: { fd?: unknown; recvStop?: () => number } } | undefined>)[stateKey];
  const handle = state?.handle;
  if (handle === undefined || typeof handle.fd !== 'number' || handle.fd < 0 || typeof handle.recvStop !== 'function') return undefined;
  handle.recvStop();
  return handle.fd;
}
