// Packets in flight as Salsify's sender counts them: every datagram gets a send
// sequence number; an acknowledgement names a (frame, fragment); the datagrams
// in flight are those sent after the newest acknowledged one. Lost datagrams
// are thereby forgotten as soon as a later one is acknowledged.
// Memory is bounded: only the most recent `maxFrames` frames are remembered
// (an acknowledgement for an older frame is ignored).

export class InFlightCounter {
  readonly maxFrames: number;
  #sent = 0;
  #acked = 0; // sequence number just after the newest acknowledged datagram
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
    const next = entry.first + fragment + 1;
    if (next > this.#acked) this.#acked = next;
    return true;
  }

  /** Datagrams registered (sent or queued to send) after the newest acknowledged one. */
  get packetsInFlight(): number {
    return this.#sent - this.#acked;
  }

  get packetsSent(): number {
    return this.#sent;
  }
}
