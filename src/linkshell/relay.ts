// linkshell's sockets, NAT-like: inside applications send to one listen
// socket; each inside source (address and port) gets an outside socket of
// its own towards the peer, so the peer's answers can be told apart and sent
// back, from the listen socket, to the source they belong to. Only the
// configured peer is ever sent to, and only datagrams from it are taken in on
// the outside sockets: linkshell is not an open relay.
//
// An outside socket is connected to the peer, so the kernel hands it only
// the peer's datagrams (and reports the peer's "port unreachable"). What
// else arrives at its port (the peer's host answering from another port,
// anyone else) goes to a second, unconnected socket bound to the same port
// (SO_REUSEADDR; the connected socket is the better match for the peer's
// datagrams), where it is counted, not relayed: so a peer that answers from
// another port than the one linkshell sends to is seen and warned about
// rather than lost silently. Applications that send to anything but the
// listen socket (TCP, a second port such as RTCP's) bypass linkshell: it
// cannot see them at all.
//
// Datagrams the kernel dropped at these sockets (full receive buffers) are
// read from its per-socket counters (src/net/socket-drops.ts).
//
// Where the native packet path is built (Linux; src/net/packet-pump.ts), the
// listen socket and the outside sockets are read through it (on the event
// loop, and what waits by its thread every 20 ms, so a held-up loop does not
// let the kernel's buffers fill), with every datagram stamped with the
// kernel's arrival time, and datagrams leave through it in batches
// (sendmmsg); Node's sockets then only bind, connect and hold the ports.
// Elsewhere Node's event loop reads them and a datagram's arrival time is
// when it was read.
//
// When the table of sources is full, a new source takes the place of the
// one idle longest, if that one has been idle (no datagram either way) for
// at least a minute, as a NAT's UDP mappings time out; otherwise the new
// source is refused. Nothing is forgotten while there is room.
//
// The relay only moves bytes; what happens between receiving and sending
// (the emulated link) is the caller's.

import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { formatAddress, isLoopback, type UdpAddress } from '../net/address.ts';
import { UdpSocketTable } from '../net/socket-drops.ts';
import { MAX_PUMP_SOURCES, PacketPump, packetPumpUnavailable, takeOverDgramSocket, type PumpArrival } from '../net/packet-pump.ts';

export interface Flow {
  /** "address:port" of the inside source. */
  readonly key: string;
  readonly insideAddress: string;
  readonly insidePort: number;
  /** Connected to the peer (replaced while a port of its own is looked for). */
  outside: Socket;
  /** Takes in, to count them, the datagrams at the outside socket's port that are not the peer's. */
  stray: Socket;
  /** Datagrams waiting for the outside socket to be bound and connected to the peer. */
  pending: Uint8Array[] | undefined;
  /** When a datagram last came from either end (ms on the relay's clock). */
  lastActive: number;
  /** Set when the flow has been forgotten to make room: its datagrams still in the link are dropped. */
  closed: boolean;
  /** The outside socket's source id in the packet pump, once the pump reads and sends it. */
  pumpId: number | undefined;
  /** Datagrams to the peer that the link will deliver through sendToPeer, not ahead: later ones wait behind them (order). */
  notAhead: number;
}

/** How long a source must have been idle before a new one may take its place. */
export const SOURCE_IDLE_EVICTION_MS = 60_000;

export interface RelayCounters {
  sources: number;
  /** Datagrams from inside sources past the limit of sources. */
  refusedSourceDatagrams: number;
  /** Datagrams at an outside socket's port from another host than the peer's (not relayed). */
  foreignDatagrams: number;
  /** Datagrams at an outside socket's port from the peer's host but another port than the peer's (not relayed). */
  foreignPortDatagrams: number;
  sendErrors: number;
  /** "Port unreachable" answers from the peer's host. */
  peerRefusals: number;
  socketErrors: number;
  /** Sources forgotten to make room for new ones, and datagrams that left the link for a forgotten source. */
  evictedSources: number;
  evictedFlowDatagrams: number;
}

export interface KernelDrops {
  inside: number | undefined;
  outside: number | undefined;
}

export interface RelayOptions {
  listen: UdpAddress;
  peer: UdpAddress;
  maxSources: number;
  /** A datagram from an inside application; `atMs` is when the kernel received it (on `originNs`'s clock), undefined: now. */
  onInside: (bytes: Buffer, flow: Flow, atMs: number | undefined) => void;
  /** A datagram from the peer, on the flow's outside socket. */
  onOutside: (bytes: Buffer, flow: Flow, atMs: number | undefined) => void;
  /** Read and send through the native packet path where it is built, with arrival times on the clock that started at this process.hrtime.bigint() reading. */
  nativePath?: { originNs: bigint };
  /** Warnings (a refused source, a socket error): one line each. */
  warn: (message: string) => void;
  /** Socket receive buffer to ask for (the kernel may cap it). */
  receiveBufferBytes?: number;
  /** Monotonic milliseconds, for idle times (default performance.now). */
  now?: () => number;
}

const DEFAULT_RECEIVE_BUFFER = 8 << 20;
/** Ports tried for a flow's sockets before giving up on one that no other socket shares. */
const PORT_ATTEMPTS = 16;

export class Relay {
  private readonly flows = new Map<string, Flow>();
  private readonly counters: RelayCounters = {
    sources: 0,
    refusedSourceDatagrams: 0,
    foreignDatagrams: 0,
    foreignPortDatagrams: 0,
    sendErrors: 0,
    peerRefusals: 0,
    socketErrors: 0,
    evictedSources: 0,
    evictedFlowDatagrams: 0,
  };
  private closed = false;
  /** Kernel drops at the outside sockets of flows already forgotten. */
  private evictedKernelDrops = 0;
  private readonly outsideBind: string | undefined;
  private readonly now: () => number;
  /** The native packet path, if used: source 0 is the listen socket, flows take the others. */
  private pump: PacketPump | undefined;
  private readonly flowsByPumpId = new Map<number, Flow>();
  private nextPumpId = 1;
  private readonly freePumpIds: number[] = [];
  /** The flow of the latest datagram from inside: the next one mostly comes from the same source (found without a key string). */
  private lastInsideFlow: Flow | undefined;

  private constructor(
    private readonly listenSocket: Socket,
    readonly listenAddress: UdpAddress,
    private readonly options: RelayOptions,
  ) {
    // Towards a loopback peer, outside sockets stay on loopback too.
    this.outsideBind = isLoopback(options.peer.address) ? options.peer.address : undefined;
    this.now = options.now ?? (() => performance.now());
  }

  /** Binds the listen socket; rejects with an Error naming the address if it cannot. */
  static async open(options: RelayOptions): Promise<Relay> {
    const socket = createSocket({ type: options.listen.family === 6 ? 'udp6' : 'udp4' });
    await new Promise<void>((resolve, reject) => {
      const onError = (error: Error) => {
        socket.close();
        reject(new Error(`cannot listen on ${formatAddress(options.listen)}: ${(error as NodeJS.ErrnoException).code ?? error.message}`));
      };
      socket.once('error', onError);
      socket.bind({ address: options.listen.address, port: options.listen.port }, () => {
        socket.off('error', onError);
        resolve();
      });
    });
    trySetReceiveBuffer(socket, options.receiveBufferBytes ?? DEFAULT_RECEIVE_BUFFER);
    const bound = socket.address();
    const relay = new Relay(socket, { address: bound.address, family: options.listen.family, port: bound.port }, options);
    socket.on('message', (bytes, from) => relay.fromInside(bytes, from.address, from.port, undefined));
    socket.on('error', (error) => relay.socketError('listen socket', error));
    if (options.nativePath !== undefined && packetPumpUnavailable() === undefined) relay.startPump(options.nativePath.originNs);
    return relay;
  }

  /** How datagrams are received: 'native' (the packet path's thread, kernel arrival times) or 'event-loop' (read times). */
  receivePath(): 'native' | 'event-loop' {
    return this.pump !== undefined ? 'native' : 'event-loop';
  }

  /** The packet path's counters (undefined without it). */
  pumpStats(): ReturnType<PacketPump['stats']> | undefined {
    return this.pump !== undefined && !this.closed ? this.pump.stats() : undefined;
  }

  private startPump(originNs: bigint): void {
    const fd = takeOverDgramSocket(this.listenSocket);
    if (fd === undefined) return;
    this.pump = new PacketPump({
      originNs,
      // (One wake per datagram where the loop keeps up; the thread reads what waits every 20 ms: see packet-pump.ts.)
      readsOnEventLoop: true,
      onArrivals: (arrivals) => this.fromPump(arrivals),
      onError: (source, code) => {
        const flow = this.flowsByPumpId.get(source);
        this.socketError(flow ? `outside socket of ${flow.key}` : 'listen socket', Object.assign(new Error(code), { code, syscall: 'recvmmsg' }));
      },
    });
    this.pump.addUdp(0, fd, true);
  }

  private fromPump(arrivals: PumpArrival[]): void {
    for (const a of arrivals) {
      if (this.closed) return;
      if (a.source === 0) {
        this.fromInside(a.bytes, a.address, a.port, a.atMs);
        continue;
      }
      const flow = this.flowsByPumpId.get(a.source);
      if (flow === undefined || flow.closed) continue;
      flow.lastActive = this.now();
      this.options.onOutside(a.bytes, flow, a.atMs);
    }
  }

  stats(): RelayCounters {
    const pump = this.pumpStats();
    if (pump === undefined) return { ...this.counters };
    // Datagrams the packet path could not send count as send errors (a full buffer included); "port unreachable" as refusals.
    return {
      ...this.counters,
      sendErrors: this.counters.sendErrors + pump.sendErrors + pump.sendDrops,
      peerRefusals: this.counters.peerRefusals + pump.sendRefused,
    };
  }

  /**
   * Datagrams the kernel dropped so far at the relay's sockets because their
   * receive buffers were full: at the listen socket (from inside
   * applications) and at the outside sockets (from the peer). Undefined
   * where the kernel does not say (not Linux) or once the relay is closed.
   */
  kernelDrops(): KernelDrops {
    if (this.closed) return { inside: undefined, outside: undefined };
    const table = UdpSocketTable.read();
    const inside = table.drops(this.listenAddress.family, this.listenAddress);
    let outside: number | undefined = inside === undefined ? undefined : this.evictedKernelDrops;
    for (const flow of this.flows.values()) {
      const drops = this.outsideDrops(table, flow);
      if (drops !== undefined) outside = (outside ?? 0) + drops;
    }
    return { inside, outside };
  }

  /** Sends a datagram to the peer from the flow's outside socket. */
  sendToPeer(flow: Flow, bytes: Uint8Array): void {
    if (flow.notAhead > 0) flow.notAhead--;
    this.transmitToPeer(flow, bytes);
  }

  private transmitToPeer(flow: Flow, bytes: Uint8Array): void {
    if (this.closed) return;
    if (flow.closed) {
      this.counters.evictedFlowDatagrams++;
      return;
    }
    if (flow.pending !== undefined) flow.pending.push(bytes);
    else if (flow.pumpId !== undefined) this.pump!.send(flow.pumpId, bytes);
    else flow.outside.send(bytes);
  }

  /**
   * Hands a datagram for the peer to the native thread, to leave at `dueMs`
   * (on the clock of nativePath's origin) without waiting for this thread;
   * false when it cannot (no native path, the flow's socket not connected yet
   * or forgotten): send it with sendToPeer at its time then. `tag` comes back
   * with its lateness (drainSendLateness).
   */
  sendToPeerAt(flow: Flow, bytes: Uint8Array, dueMs: number, tag: number): boolean {
    // (Never ahead of a datagram of the flow still to go at its own time: the peer would get them out of order.)
    if (this.closed || this.pump === undefined || flow.closed || flow.pumpId === undefined || flow.notAhead > 0) {
      flow.notAhead++;
      return false;
    }
    this.pump.sendAt(flow.pumpId, bytes, dueMs, tag);
    return true;
  }

  /** As sendToPeerAt, towards the flow's inside source from the listen socket. */
  sendToInsideAt(flow: Flow, bytes: Uint8Array, dueMs: number, tag: number): boolean {
    if (this.closed || this.pump === undefined || flow.closed) return false;
    this.pump.sendAt(0, bytes, dueMs, tag, flow.insideAddress, flow.insidePort);
    return true;
  }

  /** Tells `add` how late each datagram handed over with a send...At left, since the last call. */
  drainSendLateness(add: (tag: number, ms: number) => void): void {
    if (this.closed || this.pump === undefined) return;
    const pairs = this.pump.drainLateness();
    for (let i = 0; i + 1 < pairs.length; i += 2) add(pairs[i]!, pairs[i + 1]!);
  }

  /** Sends a datagram to the flow's inside source from the listen socket. */
  sendToInside(flow: Flow, bytes: Uint8Array): void {
    if (this.closed) return;
    if (flow.closed) {
      this.counters.evictedFlowDatagrams++;
      return;
    }
    if (this.pump !== undefined) this.pump.send(0, bytes, flow.insideAddress, flow.insidePort);
    else this.listenSocket.send(bytes, flow.insidePort, flow.insideAddress);
  }

  /** Closes every socket; later sends are ignored. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const sockets = [this.listenSocket, ...[...this.flows.values()].flatMap((f) => [f.outside, f.stray])];
    for (const flow of this.flows.values()) flow.closed = true;
    this.pump?.close();
    await Promise.all(sockets.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }

  private fromInside(bytes: Buffer, address: string, port: number, atMs: number | undefined): void {
    if (this.closed) return;
    const last = this.lastInsideFlow;
    const flow = last !== undefined && !last.closed && last.insidePort === port && last.insideAddress === address ? last : this.insideFlow(address, port);
    if (flow === undefined) return;
    this.lastInsideFlow = flow;
    flow.lastActive = this.now();
    this.options.onInside(bytes, flow, atMs);
  }

  /** The flow of an inside source, opened if it is new; undefined when a new source is refused (too many). */
  private insideFlow(address: string, port: number): Flow | undefined {
    const key = this.listenAddress.family === 6 ? `[${address}]:${port}` : `${address}:${port}`;
    let flow = this.flows.get(key);
    if (flow === undefined) {
      if (this.flows.size >= this.options.maxSources && !this.evictIdlest()) {
        if (this.counters.refusedSourceDatagrams === 0) {
          this.options.warn(`more than ${this.options.maxSources} inside sources; datagrams from new ones (first: ${key}) are dropped (--max-sources)`);
        }
        this.counters.refusedSourceDatagrams++;
        return undefined;
      }
      flow = this.openFlow(key, address, port);
    }
    return flow;
  }

  /** Forgets the source idle longest if it has been idle long enough; true if room was made. */
  private evictIdlest(): boolean {
    let idlest: Flow | undefined;
    for (const flow of this.flows.values()) if (idlest === undefined || flow.lastActive < idlest.lastActive) idlest = flow;
    if (idlest === undefined || this.now() - idlest.lastActive < SOURCE_IDLE_EVICTION_MS) return false;
    idlest.closed = true;
    this.evictedKernelDrops += this.outsideDrops(UdpSocketTable.read(), idlest) ?? 0;
    this.flows.delete(idlest.key);
    this.releasePumpId(idlest);
    idlest.outside.close();
    idlest.stray.close();
    this.counters.evictedSources++;
    return true;
  }

  private openFlow(key: string, address: string, port: number): Flow {
    const flow: Flow = { key, insideAddress: address, insidePort: port, outside: undefined!, stray: undefined!, pending: [], lastActive: this.now(), closed: false, pumpId: undefined, notAhead: 0 };
    this.newSockets(flow);
    this.flows.set(key, flow);
    this.counters.sources++;
    void this.connectFlow(flow).catch((error: Error) => this.socketError(`outside socket of ${key}`, error));
    return flow;
  }

  private newSockets(flow: Flow): void {
    const type = this.options.peer.family === 6 ? 'udp6' : 'udp4';
    const outside = createSocket({ type, reuseAddr: true });
    const stray = createSocket({ type, reuseAddr: true });
    outside.on('message', (bytes) => {
      if (this.closed || flow.closed) return;
      flow.lastActive = this.now();
      this.options.onOutside(bytes, flow, undefined);
    });
    stray.on('message', (_bytes, sender) => this.fromStranger(sender));
    outside.on('error', (error) => this.socketError(`outside socket of ${flow.key}`, error));
    stray.on('error', (error) => this.socketError(`outside socket of ${flow.key} (datagrams not from the peer)`, error));
    flow.outside = outside;
    flow.stray = stray;
  }

  /**
   * Binds the flow's two sockets to one port, connects the first to the peer
   * and sends what waited. With address reuse allowed, the kernel may hand
   * out a port that another such socket holds already (another flow's,
   * another linkshell's, connected to the same peer: their answers would be
   * mixed up), so a port shared with any other socket is given back for
   * another one.
   */
  private async connectFlow(flow: Flow): Promise<void> {
    const gone = () => this.closed || flow.closed;
    let port = 0;
    for (let attempt = 1; ; attempt++) {
      await bindSocket(flow.outside, this.outsideBind, 0);
      if (gone()) return;
      port = flow.outside.address().port;
      const sharing = UdpSocketTable.read().socketsAtPort(port);
      if (sharing === undefined || sharing <= 1) break;
      if (attempt === PORT_ATTEMPTS) {
        this.options.warn(`outside socket of ${flow.key}: no port of its own after ${PORT_ATTEMPTS} attempts; port ${port} is shared with another socket`);
        break;
      }
      flow.outside.close();
      flow.stray.close();
      this.newSockets(flow);
    }
    trySetReceiveBuffer(flow.outside, this.options.receiveBufferBytes ?? DEFAULT_RECEIVE_BUFFER);
    // Connected to the peer: the kernel gives it only the peer's datagrams, and sends skip the address lookup.
    const outside = flow.outside;
    await new Promise<void>((resolve) => outside.connect(this.options.peer.port, this.options.peer.address, () => resolve()));
    if (gone()) return;
    this.pumpFlow(flow);
    const pending = flow.pending ?? [];
    flow.pending = undefined;
    for (const bytes of pending) this.transmitToPeer(flow, bytes);
    await bindSocket(flow.stray, this.outsideBind, port);
  }

  /** Hands a connected outside socket to the packet path (if used): its thread reads it, sends go through it. */
  private pumpFlow(flow: Flow): void {
    if (this.pump === undefined) return;
    // (Ids of forgotten flows are taken again only once every other has been used: the thread closes a removed source's fd a moment later.)
    const id = this.nextPumpId < MAX_PUMP_SOURCES ? this.nextPumpId++ : this.freePumpIds.shift();
    if (id === undefined) return; // (more sockets than the path takes: this one stays on the event loop)
    const fd = takeOverDgramSocket(flow.outside);
    if (fd === undefined) {
      this.freePumpIds.push(id);
      return;
    }
    try {
      this.pump.addUdp(id, fd, false);
    } catch (error) {
      // Node no longer reads the socket: it must be the pump's or nobody's.
      this.socketError(`outside socket of ${flow.key}`, error as Error);
      return;
    }
    flow.pumpId = id;
    this.flowsByPumpId.set(id, flow);
  }

  private releasePumpId(flow: Flow): void {
    if (flow.pumpId === undefined) return;
    this.pump?.remove(flow.pumpId);
    this.flowsByPumpId.delete(flow.pumpId);
    this.freePumpIds.push(flow.pumpId);
    flow.pumpId = undefined;
  }

  /** A datagram at an outside socket's port that is not the peer's: counted, not relayed. */
  private fromStranger(sender: RemoteInfo): void {
    if (this.closed) return;
    const peer = this.options.peer;
    if (sender.address !== peer.address) {
      this.counters.foreignDatagrams++;
      return;
    }
    if (this.counters.foreignPortDatagrams++ === 0) {
      this.options.warn(
        `the peer's host sent a datagram from port ${sender.port}, not the peer's port ${peer.port}: dropped, linkshell relays only ${formatAddress(peer)} (further ones only counted)`,
      );
    }
  }

  private outsideDrops(table: UdpSocketTable, flow: Flow): number | undefined {
    let local;
    try {
      local = flow.outside.address();
    } catch {
      return undefined; // Not bound yet.
    }
    // Both sockets of the flow share the local port: their drops are summed.
    return table.drops(this.options.peer.family, local);
  }

  /** Send failures arrive here too (sends take no callback, to keep the per-datagram cost down). */
  private socketError(which: string, error: Error): void {
    const e = error as NodeJS.ErrnoException;
    if (e.code === 'ECONNREFUSED') {
      // The peer's host answered a datagram with "port unreachable".
      this.counters.peerRefusals++;
      if (this.counters.peerRefusals === 1 && !this.closed) {
        this.options.warn(`the peer ${formatAddress(this.options.peer)} refused a datagram (ECONNREFUSED): is anything listening there? (further refusals only counted)`);
      }
      return;
    }
    const isSend = e.syscall === 'send' || e.syscall === 'sendto' || e.syscall === 'sendmsg';
    if (isSend) this.counters.sendErrors++;
    else this.counters.socketErrors++;
    if (this.closed) return;
    if (!isSend || this.counters.sendErrors === 1) this.options.warn(`${which}: ${isSend ? 'send failed: ' : ''}${e.code ?? e.message}${isSend ? ' (further send errors only counted)' : ''}`);
  }
}

/** Binds `socket` to `address` (undefined: any) and `port` (0: the kernel's choice); rejects on an error. */
function bindSocket(socket: Socket, address: string | undefined, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind({ address, port }, () => {
      socket.off('error', reject);
      resolve();
    });
  });
}

function trySetReceiveBuffer(socket: Socket, bytes: number): void {
  try {
    socket.setRecvBufferSize(bytes);
  } catch {
    // The kernel's limit applies; the default buffer still works.
  }
}
