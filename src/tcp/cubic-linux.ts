// CUBIC's congestion avoidance as Linux computes it (net/ipv4/tcp_cubic.c,
// bictcp_update, cubictcp_recalc_ssthresh and cubictcp_acked, with
// tcp_cong_avoid_ai from tcp_cong.c), in whole segments and kernel time
// units, where it departs from RFC 9438's real-valued formulas:
//
// - the curve is read at t + delay_min, the connection's smallest RTT
//   sample, not at t + SRTT (RFC 9438 4.2): behind a full queue SRTT is
//   several times delay_min, and reading the curve that much further ahead
//   ends each epoch sooner; delay_min is not updated in the first second of
//   an epoch (cubictcp_acked) and enters t in whole jiffies, rounded up;
// - time is in jiffies (HZ = 250 on Debian's kernels: 4 ms) and t in 1/1024 s
//   (BICTCP_HZ); the target is an integer: W_max +- floor(0.4 (t - K)^3),
//   C = bic_scale 41 / 1024 x 10 (cube_rtt_scale 410, >> 40);
// - cwnd grows by whole segments: cnt = cwnd / (target - cwnd) segments to
//   acknowledge for one more (100 cwnd when the target is not above cwnd),
//   at most 20 before the first loss (5 % a round trip), at least 2 (1.5x a
//   round trip); snd_cwnd_cnt counts acknowledged segments towards it;
// - cnt is recomputed at most once a jiffy, and not at all while cwnd is
//   unchanged for up to HZ / 32 jiffies;
// - the Reno-friendly estimate tcp_cwnd grows by one segment per
//   cwnd x beta_scale / 8 acknowledged (beta_scale = 8 (1024 + 717) / 3 /
//   (1024 - 717) = 15 in integers: alpha = 8 / 15, 0.533 a round trip) with no
//   switch to 1 at cwnd_prior (RFC 9438 4.3 has one), and only caps cnt at
//   cwnd / (tcp_cwnd - cwnd);
// - on a congestion event: ssthresh = max(cwnd 717 / 1024, 2) and W_max =
//   cwnd (1024 + 717) / 2048 below the last W_max (fast convergence), else
//   cwnd, all of cwnd, not of FlightSize;
// - K = cbrt((W_max - cwnd) 2^40 / 410) in 1/1024 s (Linux approximates the
//   cube root to about 0.2 %, here exact, then floored).
//
// Pure: the caller gives it cwnd (segments), the segments acknowledged, the
// time and the ACK's RTT sample, and sets cwnd to what it returns.

export const LINUX_HZ = 250;
const JIFFY_MS = 1000 / LINUX_HZ;
const BICTCP_HZ = 10;
const BETA = 717;
const BETA_SCALE = 1024;
const CUBE_RTT_SCALE = 41 * 10;
const CUBE_FACTOR = 2 ** (10 + 3 * BICTCP_HZ) / CUBE_RTT_SCALE;
const FRIENDLY_SCALE = Math.floor(Math.floor((8 * (BETA_SCALE + BETA)) / 3) / (BETA_SCALE - BETA));
/** Before the first loss, cwnd grows by at least one segment per this many acknowledged (5 % a round trip). */
export const LINUX_START_GROWTH_ACKS = 20;

/** Linux's jiffies at `nowMs`. */
export function jiffies(nowMs: number): number {
  return Math.floor(nowMs / JIFFY_MS);
}

/** usecs_to_jiffies: rounded up. */
function msToJiffiesUp(ms: number): number {
  return Math.ceil(ms / JIFFY_MS - 1e-9);
}

/** bictcp_update's target, segments: W_max +- floor(C (t - K)^3), t and K in 1/1024 s. */
export function linuxCubicTarget(t: number, k: number, originPoint: number): number {
  const offs = Math.abs(t - k);
  const delta = Math.floor((CUBE_RTT_SCALE * offs * offs * offs) / 2 ** (10 + 3 * BICTCP_HZ));
  return t < k ? originPoint - delta : originPoint + delta;
}

/** bic_K, 1/1024 s, for W_max - cwnd segments. */
export function linuxCubicK(wMaxMinusCwnd: number): number {
  return Math.floor(Math.cbrt(CUBE_FACTOR * wMaxMinusCwnd));
}

/** cubictcp_recalc_ssthresh's ssthresh for cwnd (segments). */
export function linuxCubicSsthresh(cwnd: number): number {
  return Math.max(Math.floor((cwnd * BETA) / BETA_SCALE), 2);
}

export interface LinuxCubicState {
  readonly cnt: number;
  readonly lastMaxCwnd: number;
  readonly originPoint: number;
  /** bic_K, 1/1024 s. */
  readonly k: number;
  /** Jiffy of the epoch's start, undefined between a reduction and the next update. */
  readonly epochStart: number | undefined;
  readonly delayMinMs: number;
  readonly tcpCwnd: number;
  readonly ackCnt: number;
  readonly cwndCnt: number;
}

export class LinuxCubicGrowth {
  private cnt = 0;
  private lastMaxCwnd = 0;
  private lastCwnd = 0;
  private lastTime = 0;
  private originPoint = 0;
  private k = 0;
  private epochStart: number | undefined = undefined;
  private delayMinMs = 0;
  private ackCnt = 0;
  private tcpCwnd = 0;
  /** tp->snd_cwnd_cnt. */
  private cwndCnt = 0;

  state(): LinuxCubicState {
    const { cnt, lastMaxCwnd, originPoint, k, epochStart, delayMinMs, tcpCwnd, ackCnt, cwndCnt } = this;
    return { cnt, lastMaxCwnd, originPoint, k, epochStart, delayMinMs, tcpCwnd, ackCnt, cwndCnt };
  }

  /** cubictcp_acked: an RTT sample (ms) keeps delay_min, except in the first second of an epoch. */
  onRttSample(rttMs: number, nowMs: number): void {
    if (this.epochStart !== undefined && jiffies(nowMs) - this.epochStart < LINUX_HZ) return;
    const delay = Math.max(rttMs, 0.001);
    if (this.delayMinMs === 0 || delay < this.delayMinMs) this.delayMinMs = delay;
  }

  /** Congestion avoidance on an ACK of `acked` segments with cwnd `cwnd` segments: the new cwnd (bictcp_update, tcp_cong_avoid_ai). */
  onAck(cwnd: number, acked: number, nowMs: number): number {
    this.update(cwnd, acked, nowMs);
    return this.congAvoidAi(cwnd, acked);
  }

  /** A congestion event with cwnd `cwnd` segments: the new ssthresh, segments (cubictcp_recalc_ssthresh). */
  onCongestion(cwnd: number): number {
    this.epochStart = undefined;
    this.lastMaxCwnd = cwnd < this.lastMaxCwnd ? Math.floor((cwnd * (BETA_SCALE + BETA)) / (2 * BETA_SCALE)) : cwnd;
    this.cwndCnt = 0;
    return linuxCubicSsthresh(cwnd);
  }

  /** A timeout (CA_Loss: bictcp_reset; tcp_enter_loss also clears snd_cwnd_cnt): everything starts over. */
  onTimeout(): void {
    this.cnt = 0;
    this.lastMaxCwnd = 0;
    this.lastCwnd = 0;
    this.lastTime = 0;
    this.originPoint = 0;
    this.k = 0;
    this.epochStart = undefined;
    this.delayMinMs = 0;
    this.ackCnt = 0;
    this.tcpCwnd = 0;
    this.cwndCnt = 0;
  }

  private update(cwnd: number, acked: number, nowMs: number): void {
    const now = jiffies(nowMs);
    this.ackCnt += acked;
    if (this.lastCwnd === cwnd && now - this.lastTime <= LINUX_HZ / 32) return;
    if (this.epochStart === undefined || now !== this.lastTime) {
      this.lastCwnd = cwnd;
      this.lastTime = now;
      this.updateCubicCnt(cwnd, acked, now);
    }
    this.friendliness(cwnd);
    this.cnt = Math.max(this.cnt, 2);
  }

  /** The cubic part of bictcp_update: the epoch, the target and cnt. */
  private updateCubicCnt(cwnd: number, acked: number, now: number): void {
    if (this.epochStart === undefined) {
      this.epochStart = now;
      this.ackCnt = acked;
      this.tcpCwnd = cwnd;
      const below = this.lastMaxCwnd > cwnd;
      this.k = below ? linuxCubicK(this.lastMaxCwnd - cwnd) : 0;
      this.originPoint = below ? this.lastMaxCwnd : cwnd;
    }
    const tJiffies = now - this.epochStart + msToJiffiesUp(this.delayMinMs);
    const t = Math.floor((tJiffies * 2 ** BICTCP_HZ) / LINUX_HZ);
    const target = linuxCubicTarget(t, this.k, this.originPoint);
    this.cnt = target > cwnd ? Math.floor(cwnd / (target - cwnd)) : 100 * cwnd;
    if (this.lastMaxCwnd === 0 && this.cnt > LINUX_START_GROWTH_ACKS) this.cnt = LINUX_START_GROWTH_ACKS;
  }

  /** The Reno-friendly estimate: tcp_cwnd + 1 per cwnd x 15 / 8 acknowledged; cnt at most cwnd / (tcp_cwnd - cwnd). */
  private friendliness(cwnd: number): void {
    const perSegment = Math.floor((cwnd * FRIENDLY_SCALE) / 8);
    if (perSegment > 0) {
      while (this.ackCnt > perSegment) {
        this.ackCnt -= perSegment;
        this.tcpCwnd++;
      }
    }
    if (this.tcpCwnd > cwnd) this.cnt = Math.min(this.cnt, Math.floor(cwnd / (this.tcpCwnd - cwnd)));
  }

  /** tcp_cong_avoid_ai: one more segment per `cnt` acknowledged. */
  private congAvoidAi(cwnd: number, acked: number): number {
    const w = this.cnt;
    if (this.cwndCnt >= w) {
      this.cwndCnt = 0;
      cwnd++;
    }
    this.cwndCnt += acked;
    if (this.cwndCnt >= w) {
      const delta = Math.floor(this.cwndCnt / w);
      this.cwndCnt -= delta * w;
      cwnd += delta;
    }
    return cwnd;
  }
}
