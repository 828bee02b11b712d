// The retransmission timeout of RFC 6298: SRTT and RTTVAR from RTT samples
// (alpha 1/8, beta 1/4, K 4), RTO = SRTT + max(G, K * RTTVAR), exponential
// back-off on expiry up to the maximum. The minimum comes in two styles:
//
// - 'linux' (the default, minimum 200 ms, TCP_RTO_MIN): Linux bounds the
//   variance term, not the sum: RTO = SRTT + max(G, K * RTTVAR, min), so the
//   timer never fires less than 200 ms after the smoothed RTT. The model
//   stands for the TCP that competes with media on real paths;
// - 'rfc6298' (minimum 1000 ms, RFC 6298 2.4): RTO = max(min, SRTT + max(G,
//   K * RTTVAR)).
//
// Pure: the sender gives it samples (Karn's rule, RFC 6298 section 3: never
// from a retransmitted segment, is the sender's to keep) and asks the value.

export type RtoStyle = 'linux' | 'rfc6298';

export interface RtoOptions {
  /** How the minimum applies (see above). Default 'linux'. */
  style?: RtoStyle;
  /** The minimum, ms: default 200 in the 'linux' style, 1000 in the 'rfc6298' style. */
  minRtoMs?: number;
  /** Upper bound, ms (RFC 6298 2.5: at least 60 s). Default 60000. */
  maxRtoMs?: number;
  /** RTO before any sample, ms (RFC 6298 2.1: 1 s). Default 1000. */
  initialRtoMs?: number;
  /** Clock granularity G, ms. Default 1 (the simulator's clock is exact; Linux's jiffy is 1 to 4 ms). */
  granularityMs?: number;
}

export const RFC6298_MIN_RTO_MS = 1000;
export const LINUX_MIN_RTO_MS = 200;

const ALPHA = 1 / 8;
const BETA = 1 / 4;
const K = 4;

export class RtoEstimator {
  readonly style: RtoStyle;
  readonly minRtoMs: number;
  readonly maxRtoMs: number;
  readonly granularityMs: number;
  private readonly initialRtoMs: number;
  private srttMs: number | undefined = undefined;
  private rttvarMs = 0;
  private rtoMs: number;
  private backoffs = 0;

  constructor(options: RtoOptions = {}) {
    this.style = options.style ?? 'linux';
    if (this.style !== 'linux' && this.style !== 'rfc6298') throw new RangeError(`RTO style must be "linux" or "rfc6298", got ${JSON.stringify(this.style)}`);
    this.minRtoMs = options.minRtoMs ?? (this.style === 'linux' ? LINUX_MIN_RTO_MS : RFC6298_MIN_RTO_MS);
    this.maxRtoMs = options.maxRtoMs ?? 60_000;
    this.granularityMs = options.granularityMs ?? 1;
    const initial = options.initialRtoMs ?? 1000;
    for (const [name, value] of [['minRtoMs', this.minRtoMs], ['maxRtoMs', this.maxRtoMs], ['initialRtoMs', initial], ['granularityMs', this.granularityMs]] as const) {
      if (!(value >= 0) || !Number.isFinite(value)) throw new RangeError(`${name} must be a finite number of ms >= 0, got ${value}`);
    }
    if (this.maxRtoMs < this.minRtoMs) throw new RangeError(`maxRtoMs (${this.maxRtoMs}) must not be below minRtoMs (${this.minRtoMs})`);
    this.initialRtoMs = initial;
    this.rtoMs = initial;
  }

  /** Smoothed RTT, ms (undefined before the first sample). */
  srtt(): number | undefined {
    return this.srttMs;
  }

  rttvar(): number {
    return this.rttvarMs;
  }

  /** The current RTO, ms, back-off included. */
  rto(): number {
    return this.rtoMs;
  }

  /** Times the timer expired since the last sample. */
  backoffCount(): number {
    return this.backoffs;
  }

  /** A new RTT measurement (RFC 6298 2.2 and 2.3); clears the back-off (section 5, step 5.7 note). */
  sample(rttMs: number): void {
    if (!(rttMs >= 0) || !Number.isFinite(rttMs)) throw new RangeError(`RTT sample must be a finite number of ms >= 0, got ${rttMs}`);
    if (this.srttMs === undefined) {
      this.srttMs = rttMs;
      this.rttvarMs = rttMs / 2;
    } else {
      this.rttvarMs = (1 - BETA) * this.rttvarMs + BETA * Math.abs(this.srttMs - rttMs);
      this.srttMs = (1 - ALPHA) * this.srttMs + ALPHA * rttMs;
    }
    this.backoffs = 0;
    const variance = Math.max(this.granularityMs, K * this.rttvarMs);
    const rto = this.style === 'linux' ? this.srttMs + Math.max(variance, this.minRtoMs) : Math.max(this.minRtoMs, this.srttMs + variance);
    this.rtoMs = Math.min(this.maxRtoMs, rto);
  }

  /** The timer expired: RTO doubles (RFC 6298 5.5), up to the maximum. */
  backOff(): void {
    this.backoffs++;
    this.rtoMs = Math.min(this.maxRtoMs, this.rtoMs * 2);
  }

  /** RFC 6298 5.7: a SYN timed out (and an initial RTO below 3 s was in use): data transmission starts with an RTO of 3 s. */
  resetAfterSynTimeout(): void {
    if (this.srttMs !== undefined || this.initialRtoMs >= 3000) return;
    this.rtoMs = Math.min(this.maxRtoMs, 3000);
    this.backoffs = 0;
  }
}
