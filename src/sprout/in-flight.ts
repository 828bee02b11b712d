// Packets in flight as Salsify's reference sender counts them: every datagram
// gets a send sequence number (0, 1, ...); an acknowledgement names a (frame,
// fragment), i.e. one sequence number; the packets in flight are the number
// sent minus the newest acknowledged sequence number, so the acknowledged
// packet itself still counts (alfalfa salsify-sender.cc: last_sent -
// last_acked, where last_sent counts the packets and last_acked is an index).
// Lost datagrams are thereby forgotten as soon as a later one is acknowledged.
// Memory is bounded: only the most recent `maxFrames` frames are remembered
// (an acknowledgement for an older frame is ignored).

export class InFlightCounter {
  readonly maxFrames: number;
  #sent = 0;
  /** Sequence number of the newest acknowledged datagram (-1: none yet). */
  #newestAcked = -1;
  /** frame number -> sequence number of its fragment 0 and its fragment count */
  readonly #frames = new Map<number, { first: number; count: number }>();

  constructor(maxFrames = 1024) {
    if (!(Number.isInteger(maxFrames) && maxFrames > 0)) throw new RangeError(`maxFrames must be a positive integer, got ${maxFrames}`);
    this.maxFrames = maxFrames;
  }

  /** Records that the `count` datagrams of `frame` are being sent (call before they leave). */
  addFrame(frame: number, count: number): void {
    if (!(Number.isInteger(count) && count > 0)) throw new RangeError(`fragment count must be a positive integer, got ${count}`);
    if (this.#frames.has(frame)) throw new Error(`frame ${frame} was already added to the in-flight counter`);
    this.#frames.set(frame, { first: this.#sent, count });
    this.#sent += count;
    while (this.#frames.size > this.maxFrames) {
      const oldest = this.#frames.keys().next().value as number;
      this.#frames.delete(oldest);
    }
  }

  /** Takes an acknowledgement of (frame, fragment); returns false if it names nothing known. */
  acknowledge(frame: number, fragment: number): boolean {
    const entry = this.#frames.get(frame);
    if (!entry || !(Number.isInteger(fragment) && fragment >= 0 && fragment < entry.count)) return false;
    const seq = entry.first + fragment;
    if (seq > this.#newestAcked) this.#newestAcked = seq;
    return true;
  }

  /** Whether any datagram has been acknowledged. */
  get acknowledged(): boolean {
    return this.#newestAcked >= 0;
  }

  /**
   * Datagrams registered (sent or queued to send) minus the sequence number of
   * the newest acknowledged one: the acknowledged datagram and every later one.
   * Before any acknowledgement, every datagram registered.
   */
  get packetsInFlight(): number {
    return this.#newestAcked < 0 ? this.#sent : this.#sent - this.#newestAcked;
  }

  get packetsSent(): number {
    return this.#sent;
  }
}
