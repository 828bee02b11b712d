// The retransmission timeout of RFC 6298: SRTT and RTTVAR from RTT samples
// (alpha 1/8, beta 1/4, K 4), RTO = SRTT + max(G, K * RTTVAR), exponential
// back-off on expiry up to the maximum. The minimum comes in two styles:
//
// - 'linux' (the default, minimum 200 ms, TCP_RTO_MIN): Linux's estimator
//   (tcp_rtt_estimator in tcp_input.c), RTO = SRTT + rttvar, where rttvar
//   bounds the variance term, not the sum, by the minimum, and moves once a
//   round trip rather than with every sample: mdev (4 x the mean deviation)
//   follows each sample (with an eighth of the gain when the RTT falls, the
//   Eifel-like damping), rttvar rises at once to the round's largest mdev
//   and falls by a quarter of the way to it once a round (when SND.UNA
//   passes the SND.NXT of the round's start), never below the minimum. So
//   the timer never fires less than 200 ms after the smoothed RTT, and one
//   round trip of variable delay keeps it long for the next. The first
//   sample sets mdev = 2 R (RTO = 3 R, at least R + 200). Samples given
//   without their round (a handshake's) count as a round each;
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

/** Where a sample falls in the connection's round trips (Linux's per-round rttvar update). */
export interface RttRound {
  readonly sndUna: number;
  readonly sndNxt: number;
}

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
  /** Linux style: 4 x the mean deviation, its largest this round, and the variance term of the RTO. */
  private mdev4Ms = 0;
  private mdevMax4Ms = 0;
  private rttvar4Ms = 0;
  private rttSeq = 0;

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

  /** RTTVAR, ms ('linux' style: its variance term / 4). */
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

  /** A new RTT measurement (RFC 6298 2.2 and 2.3, or Linux's); clears the back-off (section 5, step 5.7 note). */
  sample(rttMs: number, round?: RttRound): void {
    if (!(rttMs >= 0) || !Number.isFinite(rttMs)) throw new RangeError(`RTT sample must be a finite number of ms >= 0, got ${rttMs}`);
    if (this.style === 'linux') {
      this.linuxSample(rttMs, round);
      return;
    }
    if (this.srttMs === undefined) {
      this.srttMs = rttMs;
      this.rttvarMs = rttMs / 2;
    } else {
      this.rttvarMs = (1 - BETA) * this.rttvarMs + BETA * Math.abs(this.srttMs - rttMs);
      this.srttMs = (1 - ALPHA) * this.srttMs + ALPHA * rttMs;
    }
    this.backoffs = 0;
    const variance = Math.max(this.granularityMs, K * this.rttvarMs);
    this.rtoMs = Math.min(this.maxRtoMs, Math.max(this.minRtoMs, this.srttMs + variance));
  }

  /** tcp_rtt_estimator and __tcp_set_rto, in ms. */
  private linuxSample(rttMs: number, round: RttRound | undefined): void {
    const minimum = Math.max(this.minRtoMs, this.granularityMs);
    if (this.srttMs === undefined) {
      this.srttMs = rttMs;
      this.mdev4Ms = 2 * rttMs;
      this.rttvar4Ms = Math.max(this.mdev4Ms, minimum);
      this.mdevMax4Ms = this.rttvar4Ms;
      this.rttSeq = round?.sndNxt ?? 0;
    } else {
      const error = rttMs - this.srttMs;
      this.srttMs += error / 8;
      let step = Math.abs(error) - this.mdev4Ms / 4;
      if (error < 0 && step > 0) step /= 8;
      this.mdev4Ms += step;
      if (this.mdev4Ms > this.mdevMax4Ms) {
        this.mdevMax4Ms = this.mdev4Ms;
        if (this.mdevMax4Ms > this.rttvar4Ms) this.rttvar4Ms = this.mdevMax4Ms;
      }
      if (round === undefined || round.sndUna > this.rttSeq) {
        if (this.mdevMax4Ms < this.rttvar4Ms) this.rttvar4Ms -= (this.rttvar4Ms - this.mdevMax4Ms) / 4;
        this.rttSeq = round?.sndNxt ?? 0;
        this.mdevMax4Ms = minimum;
      }
    }
    this.rttvarMs = this.rttvar4Ms / K;
    this.backoffs = 0;
    this.rtoMs = Math.min(this.maxRtoMs, this.srttMs + this.rttvar4Ms);
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
