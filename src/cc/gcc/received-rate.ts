// The received bitrate R_hat that GCC's rate controller acts on
// (draft-ietf-rmcat-gcc-02, 5.5: "measured over a T seconds window",
// T = 0.5 s here): the bytes of the packets that arrived in the last
// `windowMs` of the receiver's clock, as the feedback reports them, over the
// window. Undefined until the packets seen span half a window, and again
// after a gap of more than a window without arrivals (a paused sender: the
// rate of the first packets after it would read as the path's).

export class ReceivedRateEstimator {
  private readonly arrivals: Array<{ t: number; bytes: number }> = [];
  private head = 0;
  private bytesInWindow = 0;
  private firstArrivalMs: number | undefined;
  private latestMs = -Infinity;

  constructor(readonly windowMs = 500) {
    if (!(windowMs > 0)) throw new RangeError(`windowMs must be > 0, got ${windowMs}`);
  }

  add(arrivalTimeMs: number, sizeBytes: number): void {
    if (this.firstArrivalMs !== undefined && arrivalTimeMs - this.latestMs > this.windowMs) {
      this.arrivals.length = 0;
      this.head = 0;
      this.bytesInWindow = 0;
      this.firstArrivalMs = undefined;
    }
    this.firstArrivalMs ??= arrivalTimeMs;
    this.arrivals.push({ t: arrivalTimeMs, bytes: sizeBytes });
    this.bytesInWindow += sizeBytes;
    if (arrivalTimeMs > this.latestMs) this.latestMs = arrivalTimeMs;
    const from = this.latestMs - this.windowMs;
    while (this.head < this.arrivals.length && this.arrivals[this.head]!.t <= from) {
      this.bytesInWindow -= this.arrivals[this.head]!.bytes;
      this.head++;
    }
    if (this.head > 1024 && this.head * 2 > this.arrivals.length) {
      this.arrivals.splice(0, this.head);
      this.head = 0;
    }
  }

  /** bit/s, or undefined while too little has been seen. */
  bitrate(): number | undefined {
    if (this.firstArrivalMs === undefined) return undefined;
    const span = Math.min(this.windowMs, this.latestMs - this.firstArrivalMs);
    if (span < this.windowMs / 2) return undefined;
    return (this.bytesInWindow * 8 * 1000) / span;
  }
}
