// Slow start as both congestion controls run it: RFC 5681 3.1 with RFC
// 3465's byte counting limit L, and one of
//
// - 'hystart++': RFC 9406 (hystart-plus-plus.ts) in the
//   initial slow start, which divides the growth by 4 in its Conservative
//   Slow Start and ends slow start (ssthresh = cwnd) after CSS_ROUNDS rounds;
// - 'hystart-linux': HyStart as Linux's CUBIC runs it (hystart-linux.ts),
//   which ends slow start at once on an ACK train or a delay increase (the
//   CUBIC model's default);
// - 'standard': RFC 5681 alone (Linux's Reno; the NewReno model's default).
//
// Linux runs HyStart in CUBIC only, and not HyStart++: checked against real
// Linux CUBIC and Reno on the same paths (bench/tcp-vs-linux.ts), each
// model's default is the one Linux runs.
//
// L stays the model's abcLimit (default 2) with HyStart++ too: RFC 9406 4.3
// recommends L = 8 MSS for a sender that does not pace, but the model's
// receiver acknowledges every second segment, so min(N, L MSS) is N either
// way except for the rare ACK that covers more.
import { HyStartPlusPlus, type HyStartAck } from './hystart-plus-plus.ts';
import { LinuxHyStart } from './hystart-linux.ts';

export type SlowStartKind = 'hystart++' | 'hystart-linux' | 'standard';
export const SLOW_START_KINDS: readonly SlowStartKind[] = ['hystart++', 'hystart-linux', 'standard'];

export interface SlowStartOptions {
  readonly mss: number;
  /** RFC 3465 limit L, segments per ACK (default 2). */
  readonly abcLimit?: number;
  /** 'hystart++', 'hystart-linux' or 'standard' (RFC 5681 alone, when not given). */
  readonly slowStart?: SlowStartKind;
}

export function checkSlowStartKind(kind: unknown): void {
  if (kind !== undefined && !SLOW_START_KINDS.includes(kind as SlowStartKind)) throw new RangeError(`slowStart must be one of ${SLOW_START_KINDS.map((k) => `"${k}"`).join(', ')}, got ${JSON.stringify(kind)}`);
}

/** What slow start sees of one ACK beyond the bytes it acknowledges. */
export interface SlowStartAck extends HyStartAck {
  readonly nowMs: number;
  readonly srttMs: number;
}

export class SlowStart {
  readonly hystart: HyStartPlusPlus | undefined;
  readonly linux: LinuxHyStart | undefined;
  private readonly limitBytes: number;

  constructor(private readonly options: SlowStartOptions) {
    checkSlowStartKind(options.slowStart);
    const kind = options.slowStart ?? 'standard';
    this.hystart = kind === 'hystart++' ? new HyStartPlusPlus() : undefined;
    this.linux = kind === 'hystart-linux' ? new LinuxHyStart() : undefined;
    this.limitBytes = (options.abcLimit ?? 2) * options.mss;
  }

  /** One ACK of `ackedBytes` new bytes in slow start with cwnd `cwndBytes`: cwnd's growth, and whether slow start ends with it (ssthresh = cwnd). */
  onAck(ackedBytes: number, cwndBytes: number, ack: SlowStartAck | undefined): { increase: number; exit: boolean } {
    const step = Math.min(ackedBytes, this.limitBytes);
    if (ack === undefined) return { increase: step, exit: false };
    if (this.hystart !== undefined) {
      if (this.hystart.onAck(ack) === 'exit') return { increase: 0, exit: true };
      return { increase: step / this.hystart.growthDivisor(), exit: false };
    }
    if (this.linux?.onAck({ ...ack, cwndBytes, mss: this.options.mss })) return { increase: 0, exit: true };
    return { increase: step, exit: false };
  }

  /** Fast recovery: HyStart++ is over (later slow starts are the standard one). */
  onCongestion(): void {
    this.hystart?.stop();
  }

  /** A timeout: HyStart++ is over; Linux's HyStart looks again in the slow start that follows. */
  onTimeout(): void {
    this.hystart?.stop();
    this.linux?.onTimeout();
  }
}
