// When the emulated link's trace starts (--trace-clock-start):
//
//   now           when linkshell starts (mm-link's way, the default)
//   first-packet  when the first datagram (either direction) reaches linkshell
//   first-rtp     when the first RTP packet (either direction; media-packets.ts:
//                 bare or inside TURN, not RTCP, STUN or DTLS) reaches it
//
// While the clock is held, datagrams pass through unemulated (no link, delay
// or loss; not in the logs; counted), as Mahimahi's
// MAHIMAHI_PASSTHROUGH_UNTIL_SIGNAL lets them pass until its signal: a
// call's connection set-up (ICE, DTLS) does not spend trace seconds, and the
// datagram that starts the clock meets the trace's time zero: with a trace
// rotated to start at its second S (salsify webrtc --trace-start S), the
// media's first packet meets trace second S, whenever it comes. Both
// directions are built at that moment with the same base timestamp, so
// media and feedback stay in step. The logs' base timestamp is that moment
// (their init timestamp stays linkshell's start, as Mahimahi's): a log
// replays as any other.
//
// Generic over what a direction is (the session's PathInfo), so that it can
// be driven and tested without sockets.

export const TRACE_CLOCK_STARTS = Object.freeze(['now', 'first-packet', 'first-rtp'] as const);
export type TraceClockStart = (typeof TRACE_CLOCK_STARTS)[number];

export interface PassedCount {
  datagrams: number;
  bytes: number;
}

export interface TraceClockReport {
  start: TraceClockStart;
  /** Link time (ms on linkshell's clock, the logs' base timestamp) at which the trace started; null while held. */
  startedAtMs: number | null;
  /** The run ended with the clock held (no start datagram came): the directions were started at its end, empty. */
  heldToEnd: boolean;
  /** Datagrams that passed through unemulated while the clock was held, per direction (0 uplink, 1 downlink). */
  passedUnemulated: [PassedCount, PassedCount];
}

export interface TraceClockOptions<P, F> {
  start: TraceClockStart;
  /** Whether a datagram is RTP (first-rtp; see media-packets.ts for the two framings). */
  isRtp: (bytes: Uint8Array) => boolean;
  /** Builds both directions (uplink, downlink) with the trace's time zero at `baseTimestamp`. */
  build: (baseTimestamp: number) => readonly [P, P];
  /** Where a datagram goes unemulated while the clock is held, per direction. */
  passThrough: readonly [(bytes: Uint8Array, flow: F) => void, (bytes: Uint8Array, flow: F) => void];
  /** Link time now (ms): with 'now', the trace starts here. */
  nowMs: number;
}

export class TraceClock<P, F> {
  private paths: readonly [P, P] | undefined;
  private startedAt: number | null = null;
  private heldToEnd = false;
  private readonly passed: [PassedCount, PassedCount] = [
    { datagrams: 0, bytes: 0 },
    { datagrams: 0, bytes: 0 },
  ];

  constructor(private readonly options: TraceClockOptions<P, F>) {
    if (options.start === 'now') this.startAt(options.nowMs);
  }

  /**
   * Where a datagram that arrived at `atMs` goes: the direction it enters
   * (the clock starting at `atMs` if this datagram starts it), or undefined
   * when the clock is held and it passed through.
   */
  entry(direction: 0 | 1, bytes: Uint8Array, flow: F, atMs: number): P | undefined {
    if (this.paths === undefined) {
      if (!this.starts(bytes)) {
        this.passed[direction].datagrams++;
        this.passed[direction].bytes += bytes.length;
        this.options.passThrough[direction](bytes, flow);
        return undefined;
      }
      this.startAt(atMs);
    }
    return this.paths![direction];
  }

  /** Starts the trace at `atMs` if it is still held (a run that ends before its start datagram: empty logs). */
  ensureStarted(atMs: number): void {
    if (this.paths !== undefined) return;
    this.heldToEnd = true;
    this.startAt(atMs);
  }

  /** Both directions once started, none while held. */
  started(): readonly P[] {
    return this.paths ?? [];
  }

  /** The logs' base timestamp, once started. */
  baseTimestamp(): number | null {
    return this.startedAt;
  }

  report(): TraceClockReport {
    return { start: this.options.start, startedAtMs: this.startedAt, heldToEnd: this.heldToEnd, passedUnemulated: [{ ...this.passed[0] }, { ...this.passed[1] }] };
  }

  private starts(bytes: Uint8Array): boolean {
    return this.options.start === 'first-packet' || (this.options.start === 'first-rtp' && this.options.isRtp(bytes));
  }

  private startAt(atMs: number): void {
    const base = Math.floor(atMs);
    this.startedAt = base;
    this.paths = this.options.build(base);
  }
}
