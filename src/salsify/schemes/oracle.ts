// The oracles: simulator-only schemes that know the simulated downlink's
// future (every delivery opportunity of its trace and what is queued ahead:
// FutureLink, built by sim-runner.ts from the downlink's TraceLink,
// link-emu/link.ts deliveryTime). Each makes one encoding per frame, its
// quantizer found by binary search on the frame's true size
// (view.trialBytes, not charged: an oracle), and one encoding is charged. Two
// rules, each a bound for what it claims:
//
// 'oracle' (delay-first): the best (lowest) quantizer whose frame, handed to
// the pacer when that encoding is done, would have fully arrived as soon as
// the smallest one (quantizer 127) would (the same delivery opportunity: the
// extra bytes cost no delay). What it bounds: the signal delay (mean and p95)
// of every scheme on the same path, at whatever SSIM (its quality is what
// comes free of delay: below Salsify-1's on most presets; before, it took the
// best quantizer arriving within one interval, and webrtc-like's smaller
// frames beat its mean delay on the Verizon stand-in).
//
// 'oracle-quality' (quality-first): the best quantizer whose frame fully
// arrives within one encode cycle of its hand-over (the time until the next
// frame's encoding is done, plus the path's propagation delay): it spends the
// whole link on every frame, yet no frame waits behind an earlier one. What
// it claims: an SSIM no lower than Salsify-1's at a mean and p95 signal delay
// no higher than Salsify-1's; no scheme with a higher SSIM at a mean and p95
// delay no higher than its own (a bound on quality at its delay); and no
// scheme with a lower mean or p95 delay at an SSIM no lower than Salsify-1's
// (the bound). Why: a frame sent once per encode cycle arrives one
// encode, at most one cycle of transmission and the propagation after its
// capture, the least delay at which a sender encoding once per cycle delivers
// frames that use the whole link; a scheme with better frames must send more
// bytes per frame than fit in a cycle, so they queue, or send fewer frames,
// so each waits longer for the next. An argument, not a proof (frame sizes
// depend on the reference each scheme's frames build on, it does not see
// random loss, and filling the cycle costs delay where the link is fast):
// test/salsify/oracle-quality.test.ts checks every claim on every preset and
// fails when any scheme beats it. One allowance: where Salsify-1 is at the
// model codec's finest quantizer throughout (on-off's first seconds), the
// oracle, keeping each frame within its cycle, sends a few frames coarser
// (25.16 against 25.20 dB in [2, 8) s) and is held to within 0.1 dB.
//
// Both: when not even quantizer 127 arrives within the budget (one frame
// interval for the delay-first oracle, one encode cycle for the quality-first
// one, plus the propagation delay, which no sender can beat), the frame is
// sent at 127 only if the next frame (one encode cycle later, of the same
// size) could not arrive as soon were this one skipped; otherwise it is
// skipped. In an outage that skips every frame but the last one captured
// before the link returns (the earlier ones would only queue ahead of it),
// and a key frame larger than the budget's capacity still goes out on a
// steady link. (Before, the delay-first oracle skipped at most maxSkips
// frames in a row, Salsify's own rule, and so sent a frame into every outage
// every fourth frame: on tmobile-umts its p95 was 2043 ms against
// Salsify-1's 1329.) A skip still charges the encoding at 127 (the scheme
// interface plans at least one encoding per frame).
//
// test/salsify/oracle.test.ts fails when any scheme beats the delay-first
// oracle's mean or p95 delay.
//
// SIMULATOR ONLY: no live sender knows its link's future. The registry's
// factory (built without a FutureLink) refuses to make one; runSalsifySim
// builds it with the simulated link's view.
//
// They see the link's on/off periods (a frame with a datagram reaching the
// link while it is off never arrives) and its other traffic (the presets'
// 4 kB/s: its schedule is fixed). What they do not see: datagrams of an
// earlier frame still held by the pacer (a frame's own datagrams are counted
// one pacing gap apart, at the gap the sender's estimate gives when the frame
// is planned), and random loss.
import { referenceFrameCycleMs } from '../timing-model.ts';
import type { EncodingChoice, SchemeParams, SenderScheme } from './scheme.ts';

export const ORACLE_MIN_QUANTIZER = 3;
export const ORACLE_MAX_QUANTIZER = 127;

/** The simulated link's future, as the oracle sees it (simulator-only). */
export interface FutureLink {
  /**
   * When a frame of `frameBytes` handed to the pacer at `atMs` would have fully reached the receiver (ms; Infinity if
   * never), behind what the link holds and what reaches it first: the sender's datagrams and the link's other traffic,
   * or, `withoutOtherTraffic`, the sender's only (the other traffic already in the link's queue still counts).
   */
  frameDeliveredAt(frameBytes: number, atMs: number, options?: { readonly withoutOtherTraffic?: boolean }): number;
  /** The path's fixed one-way propagation delay to the receiver (ms). */
  readonly propagationMs: number;
  /** Modelled time of one encoding of this run's pictures at `quantizer` (ms). */
  encodeMs(quantizer: number, keyFrame: boolean): number;
}

/** The oracles' rules (see the top of this file). */
export const ORACLE_RULES = ['delay-first', 'quality-first'] as const;
export type OracleRule = (typeof ORACLE_RULES)[number];

/** The scheme name of each rule. */
export const ORACLE_NAMES: Readonly<Record<OracleRule, string>> = Object.freeze({ 'delay-first': 'oracle', 'quality-first': 'oracle-quality' });

/** The rule of an oracle's scheme name (undefined: not an oracle). */
export function oracleRuleOf(scheme: string): OracleRule | undefined {
  return ORACLE_RULES.find((rule) => ORACLE_NAMES[rule] === scheme);
}

export type OracleParams = Pick<SchemeParams, 'frameIntervalMs'> & {
  readonly futureLink?: FutureLink;
  readonly rule?: OracleRule;
  /** Time from one encoding's start to the next's under the sender's frame clock (default: the next-frame clock's, whole intervals covering the encode). */
  readonly frameCycleMs?: (encodeMs: number, frameIntervalMs: number) => number;
};

export function oracle(params: OracleParams): SenderScheme {
  const link = params.futureLink;
  if (link === undefined) {
    throw new RangeError('the oracle schemes are simulator-only: they need the simulated link\'s future (salsify sim, runSalsifySim), which a live sender does not have');
  }
  const rule = params.rule ?? 'delay-first';
  let skip = false;
  const interval = params.frameIntervalMs;
  /** Time from one encoding's start to the next's under the sender's frame clock. */
  const cycleMs = (encodeMs: number) => (params.frameCycleMs ?? referenceFrameCycleMs)(encodeMs, interval);
  /** How long after its hand-over (beyond the propagation delay) a frame may take to arrive whole. */
  const budgetMs = (encodeMs: number) => (rule === 'delay-first' ? interval : cycleMs(encodeMs));
  /**
   * Whether to skip a frame of `bytes` encoded from `now` (skip mode, below): when (a) on the link without its other
   * traffic the next frame (one encode cycle later, the same size) would arrive as soon as this one, so that skipping
   * gives up nothing the link could carry; and, for the delay-first oracle, (b) with the other traffic the next frame
   * would arrive at most its budget (one frame interval) after this one. Without other traffic (b) follows from (a).
   * With it, (a) alone skips into a trickle of opportunities that the other traffic then fills (ATT-LTE-driving's 21 to
   * 29 s: one a second), where the next frame arrives seconds later; and judged with the other traffic alone, every
   * frame in an outage looks a little sooner than the next (behind less of it) and is sent, queuing frames for the
   * link's return. The quality-first oracle keeps (a) alone: its claims hold with it, and (b) made its p95 delay lower
   * than the delay-first oracle's on tmobile-umts (test/salsify/oracle.test.ts).
   */
  const skipThisOne = async (now: number, bytes: number, keyFrame: boolean): Promise<boolean> => {
    const encodeMs = link.encodeMs(ORACLE_MAX_QUANTIZER, keyFrame);
    const sentAt = now + encodeMs;
    const nextAt = sentAt + cycleMs(encodeMs);
    const alone = { withoutOtherTraffic: true };
    if (link.frameDeliveredAt(bytes, nextAt, alone) > link.frameDeliveredAt(bytes, sentAt, alone)) return false;
    return rule !== 'delay-first' || link.frameDeliveredAt(bytes, nextAt) <= link.frameDeliveredAt(bytes, sentAt) + interval;
  };
  return {
    name: ORACLE_NAMES[rule],
    plan: async (view) => {
      const sentAt = (q: number) => view.now + link.encodeMs(q, view.keyFrame);
      /** When this frame, encoded at `q` from now and handed to the pacer, would have fully arrived. */
      const arrival = async (q: number) => link.frameDeliveredAt(await view.trialBytes(q), sentAt(q));
      /** The latest arrival the rule accepts for the frame at `q`. */
      const deadline = (q: number) => sentAt(q) + link.propagationMs + budgetMs(link.encodeMs(q, view.keyFrame));
      const soonest = await arrival(ORACLE_MAX_QUANTIZER);
      if (soonest > deadline(ORACLE_MAX_QUANTIZER)) {
        skip = await skipThisOne(view.now, await view.trialBytes(ORACLE_MAX_QUANTIZER), view.keyFrame);
        return { quantizers: [ORACLE_MAX_QUANTIZER], timing: 'serial' };
      }
      skip = false;
      // Delay-first: the lowest quantizer whose frame arrives as soon as the smallest would; quality-first: the
      // lowest whose frame arrives within its deadline (frame size, so arrival, falling with the quantizer).
      const accepts = async (q: number) => (await arrival(q)) <= (rule === 'delay-first' ? soonest : deadline(q));
      let lo = ORACLE_MIN_QUANTIZER;
      let hi = ORACLE_MAX_QUANTIZER;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (await accepts(mid)) hi = mid;
        else lo = mid + 1;
      }
      return { quantizers: [lo], timing: 'serial' };
    },
    choose: (): EncodingChoice => (skip ? 'skip' : { index: 0, label: 'only' }),
  };
}
