// HyStart as Linux's CUBIC runs it (net/ipv4/tcp_cubic.c, hystart_update and
// cubictcp_acked, Linux 5.7 and later), the original HyStart of Ha and Rhee,
// not RFC 9406's HyStart++ (hystart-plus-plus.ts): once cwnd >= 16 segments
// (hystart_low_window), either signal ends slow start at once, ssthresh =
// cwnd, with no conservative phase:
//
// - ACK train: ACKs arriving at most 2 ms apart (hystart_ack_delta_us) since
//   the round started, for longer than (delay_min + ack_delay) / 2, the
//   halving applying to a sender that does not pace (Linux paces CUBIC only
//   under sch_fq; the model does not pace). ack_delay is min(1 ms, 4 x 64 KB
//   at the pacing rate, 2 cwnd / SRTT in slow start), the TSO/GRO cushion;
// - delay: the minimum of the round's first 8 samples (HYSTART_MIN_SAMPLES)
//   above delay_min + clamp(delay_min / 8, 4 ms, 16 ms), delay_min being the
//   connection's smallest RTT.
//
// A round starts with the first ACK past end_seq (SND.NXT when the last one
// started), counted from when cwnd reaches the low window. Linux looks for
// the signals in every slow start, not only the first, until one is found;
// an RTO (CA_Loss) lets it look again. Not modelled: Linux ignores samples
// in the first second after a congestion-avoidance epoch started
// (cubictcp_acked), which matters only to slow starts after a timeout.

export const LINUX_HYSTART_LOW_WINDOW = 16;
export const LINUX_HYSTART_ACK_DELTA_MS = 2;
export const LINUX_HYSTART_MIN_SAMPLES = 8;
const DELAY_THRESH_MIN_MS = 4;
const DELAY_THRESH_MAX_MS = 16;
/** sk_gso_max_size (64 KB) x 4, the ACK-train cushion's burst. */
const ACK_DELAY_BURST_BYTES = 65536 * 4;

export interface LinuxHyStartAck {
  readonly nowMs: number;
  readonly sndUna: number;
  readonly sndNxt: number;
  readonly rttMs: number | undefined;
  /** cwnd and SRTT, for the low window and the pacing rate. */
  readonly cwndBytes: number;
  readonly mss: number;
  readonly srttMs: number;
}

/** The delay threshold of tcp_cubic.c: clamp(delay_min / 8, 4 ms, 16 ms). */
export function linuxHyStartDelayThreshold(delayMinMs: number): number {
  return Math.min(DELAY_THRESH_MAX_MS, Math.max(DELAY_THRESH_MIN_MS, delayMinMs / 8));
}

/** hystart_ack_delay: min(1 ms, 4 x 64 KB at the slow-start pacing rate 2 cwnd / SRTT). */
export function linuxHyStartAckDelay(cwndBytes: number, srttMs: number): number {
  if (!(srttMs > 0)) return 0;
  const bytesPerMs = (2 * cwndBytes) / srttMs;
  return Math.min(1, ACK_DELAY_BURST_BYTES / bytesPerMs);
}

export class LinuxHyStart {
  private found = false;
  private delayMin = Infinity;
  private endSeq: number | undefined = undefined;
  private roundStart = 0;
  private lastAck = 0;
  private currentRtt = Infinity;
  private sampleCount = 0;
  /** Why slow start ended, once it has. */
  reason: 'ack-train' | 'delay' | undefined = undefined;

  isFound(): boolean {
    return this.found;
  }

  /** One ACK in slow start; true when HyStart ends slow start with it (ssthresh = cwnd). */
  onAck(ack: LinuxHyStartAck): boolean {
    if (ack.rttMs === undefined) return false;
    const delay = Math.max(ack.rttMs, 0.001);
    if (delay < this.delayMin) this.delayMin = delay;
    if (this.found || ack.cwndBytes < LINUX_HYSTART_LOW_WINDOW * ack.mss) return false;
    if (this.endSeq === undefined || ack.sndUna > this.endSeq) this.resetRound(ack);
    if (ack.nowMs - this.lastAck <= LINUX_HYSTART_ACK_DELTA_MS) {
      this.lastAck = ack.nowMs;
      const threshold = (this.delayMin + linuxHyStartAckDelay(ack.cwndBytes, ack.srttMs)) / 2;
      if (ack.nowMs - this.roundStart > threshold) return this.find('ack-train');
    }
    if (delay < this.currentRtt) this.currentRtt = delay;
    if (this.sampleCount < LINUX_HYSTART_MIN_SAMPLES) this.sampleCount++;
    else if (this.currentRtt > this.delayMin + linuxHyStartDelayThreshold(this.delayMin)) return this.find('delay');
    return false;
  }

  /** An RTO (Linux's CA_Loss): the next slow start looks again. */
  onTimeout(): void {
    this.found = false;
    this.reason = undefined;
    this.endSeq = undefined;
  }

  private find(reason: 'ack-train' | 'delay'): boolean {
    this.found = true;
    this.reason = reason;
    return true;
  }

  private resetRound(ack: LinuxHyStartAck): void {
    this.roundStart = ack.nowMs;
    this.lastAck = ack.nowMs;
    this.endSeq = ack.sndNxt;
    this.currentRtt = Infinity;
    this.sampleCount = 0;
  }
}
