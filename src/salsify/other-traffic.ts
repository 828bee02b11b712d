// Other traffic on the simulated downlink, beside the sender's: regularly
// spaced packets of one size from the start of the run (the config's
// downlinkOtherTraffic, sim-runner.ts). The paper's bench had such traffic on
// its emulated link (presets.ts). Its packets carry zeros, which the receiver
// discards as datagrams that are not Salsify's. The schedule is fixed, so the
// oracle, which knows the link's future, also knows which of its packets
// reach the link ahead of a frame (upcoming).

export interface OtherTraffic {
  /** Bytes a second on the link (each packet's overhead included). */
  readonly bytesPerS: number;
  /** Bytes one packet occupies on the link: its datagram's payload plus the link's per-datagram overhead. */
  readonly packetBytes: number;
}

/** The gap between two packets (ms). */
export function otherTrafficIntervalMs(t: OtherTraffic): number {
  return (1000 * t.packetBytes) / t.bytesPerS;
}

/** `t` as --downlink-other-traffic takes it: BYTES_PER_S,PACKET_BYTES, or none. */
export function otherTrafficText(t: OtherTraffic | null): string {
  return t === null ? 'none' : `${t.bytesPerS},${t.packetBytes}`;
}

/** What `t` must be on a link adding `overheadBytes` to each datagram of at most `maxDatagramBytes`, when it is not that; undefined when it is. */
export function otherTrafficProblem(t: OtherTraffic, overheadBytes: number, maxDatagramBytes: number): string | undefined {
  const want = `{ bytesPerS > 0 and at most 1e9, packetBytes an integer from ${overheadBytes + 1} to ${maxDatagramBytes + overheadBytes} (the link's ${overheadBytes} bytes of overhead and a datagram's payload) }`;
  if (t === null || typeof t !== 'object') return want;
  const rateOk = typeof t.bytesPerS === 'number' && t.bytesPerS > 0 && t.bytesPerS <= 1e9;
  const sizeOk = Number.isInteger(t.packetBytes) && t.packetBytes > overheadBytes && t.packetBytes <= maxDatagramBytes + overheadBytes;
  return rateOk && sizeOk ? undefined : want;
}

/** What the sender needs of the simulator: to be called back at a time. */
interface Clock {
  at(time: number, callback: () => void): unknown;
}

/** Sends packet k (k = 1, 2, ...) at k x interval ms until `untilMs`, and tells what is still to come. */
export class OtherTrafficSender {
  readonly intervalMs: number;
  readonly #payload: Uint8Array;
  /** The number of the next packet to send. */
  #next = 1;

  constructor(
    readonly traffic: OtherTraffic,
    overheadBytes: number,
  ) {
    this.intervalMs = otherTrafficIntervalMs(traffic);
    this.#payload = new Uint8Array(traffic.packetBytes - overheadBytes);
  }

  get packetsSent(): number {
    return this.#next - 1;
  }

  start(clock: Clock, send: (bytes: Uint8Array) => void, untilMs: number): void {
    const tick = () => {
      send(this.#payload);
      this.#next++;
      const due = this.#next * this.intervalMs;
      if (due < untilMs) clock.at(due, tick);
    };
    if (this.intervalMs < untilMs) clock.at(this.intervalMs, tick);
  }

  /** The packets not sent yet that reach the link (after `delayMs`) no later than `untilLinkMs`, as arrivals at the link. */
  upcoming(delayMs: number, untilLinkMs: number): { atMs: number; bytes: number }[] {
    const arrivals: { atMs: number; bytes: number }[] = [];
    for (let k = this.#next; k * this.intervalMs + delayMs <= untilLinkMs; k++) arrivals.push({ atMs: k * this.intervalMs + delayMs, bytes: this.traffic.packetBytes });
    return arrivals;
  }
}
