// oracle: the bound no real sender reaches. It knows the simulated
// downlink's future (every delivery opportunity of its trace and what is
// queued ahead: FutureLink, built by sim-runner.ts from the downlink's
// TraceLink, link-emu/link.ts deliveryTime). It is delay-first: per frame it
// makes one encoding, at the best (lowest) quantizer whose frame, handed to
// the pacer when that encoding is done, would have fully arrived as soon as
// the smallest one (quantizer 127) would (the same delivery opportunity: the
// extra bytes cost no delay), provided that one arrives within one frame
// interval (plus the path's
// fixed propagation delay, which no sender can beat). When not even
// quantizer 127 fits, it sends that frame at 127 only if the next frame
// (one encode cycle later, of the same size) could not arrive as soon were
// this one skipped; otherwise it skips. In an outage that skips every frame
// but the last one captured before the link returns (the earlier ones would
// only queue ahead of it), and a key frame larger than one interval's
// capacity still goes out on a steady link. (Before, it skipped at most
// maxSkips frames in a row, Salsify's own rule, and so sent a frame into
// every outage every fourth frame: on tmobile-umts its p95 was 2043 ms
// against Salsify-1's 1329.) The quantizer is found by binary
// search on the frame's true size (view.trialBytes, not charged: an oracle),
// and one encoding is charged. A skip still charges the encoding at 127 (the
// scheme interface plans at least one encoding per frame).
//
// What it bounds: the signal delay (mean and p95) of every scheme on the
// same path, at whatever SSIM (it is delay-first: its quality is what comes
// free of delay, below Salsify-1's on most presets; before, it took the best
// quantizer arriving within one interval, and webrtc-like's smaller frames
// beat its mean delay on the Verizon stand-in);
// test/salsify/oracle.test.ts fails when any scheme beats it. Not a
// quality-first bound (the lowest delay at an SSIM no lower than
// Salsify-1's): that is not built.
//
// SIMULATOR ONLY: no live sender knows its link's future. The registry's
// factory (built without a FutureLink) refuses to make one; runSalsifySim
// builds it with the simulated link's view.
//
// What it does not see: datagrams of an earlier frame still held by the
// pacer (a frame's own datagrams are counted one pacing gap apart, at the
// gap the sender's estimate gives when the frame is planned), and stages
// other than the link (an on/off period, random loss).
import type { EncodingChoice, SchemeParams, SenderScheme } from './scheme.ts';

export const ORACLE_MIN_QUANTIZER = 3;
export const ORACLE_MAX_QUANTIZER = 127;

/** The simulated link's future, as the oracle sees it (simulator-only). */
export interface FutureLink {
  /** When a frame of `frameBytes` handed to the pacer at `atMs` would have fully reached the receiver (ms; Infinity if never). */
  frameDeliveredAt(frameBytes: number, atMs: number): number;
  /** The path's fixed one-way propagation delay to the receiver (ms). */
  readonly propagationMs: number;
  /** Modelled time of one encoding of this run's pictures at `quantizer` (ms). */
  encodeMs(quantizer: number, keyFrame: boolean): number;
}

export type OracleParams = Pick<SchemeParams, 'frameIntervalMs'> & { readonly futureLink?: FutureLink };

export function oracle(params: OracleParams): SenderScheme {
  const link = params.futureLink;
  if (link === undefined) {
    throw new RangeError('the oracle scheme is simulator-only: it needs the simulated link\'s future (salsify sim, runSalsifySim), which a live sender does not have');
  }
  let skip = false;
  const interval = params.frameIntervalMs;
  /** Whether a frame of `bytes` encoded from `now` would arrive no sooner than the next frame's (one encode cycle later, the same size) if it were skipped. */
  const nextArrivesAsSoon = async (now: number, bytes: number, keyFrame: boolean): Promise<boolean> => {
    const encodeMs = link.encodeMs(ORACLE_MAX_QUANTIZER, keyFrame);
    const sentAt = now + encodeMs;
    const cycle = Math.max(1, Math.ceil(encodeMs / interval - 1e-9)) * interval;
    return link.frameDeliveredAt(bytes, sentAt + cycle) <= link.frameDeliveredAt(bytes, sentAt);
  };
  return {
    name: 'oracle',
    plan: async (view) => {
      /** When this frame, encoded at `q` from now and handed to the pacer, would have fully arrived. */
      const arrival = async (q: number) => link.frameDeliveredAt(await view.trialBytes(q), view.now + link.encodeMs(q, view.keyFrame));
      const soonest = await arrival(ORACLE_MAX_QUANTIZER);
      if (soonest > view.now + link.encodeMs(ORACLE_MAX_QUANTIZER, view.keyFrame) + link.propagationMs + interval) {
        skip = await nextArrivesAsSoon(view.now, await view.trialBytes(ORACLE_MAX_QUANTIZER), view.keyFrame);
        return { quantizers: [ORACLE_MAX_QUANTIZER], timing: 'serial' };
      }
      skip = false;
      // The lowest quantizer whose frame arrives as soon as the smallest would (frame size, so arrival, falling with the quantizer).
      let lo = ORACLE_MIN_QUANTIZER;
      let hi = ORACLE_MAX_QUANTIZER;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if ((await arrival(mid)) <= soonest) hi = mid;
        else lo = mid + 1;
      }
      return { quantizers: [lo], timing: 'serial' };
    },
    choose: (): EncodingChoice => (skip ? 'skip' : { index: 0, label: 'only' }),
  };
}
