// oracle: the bound no real sender reaches. It knows the simulated
// downlink's future (every delivery opportunity of its trace and what is
// queued ahead: FutureLink, built by sim-runner.ts from the downlink's
// TraceLink, link-emu/link.ts deliveryTime). Per frame it makes one encoding,
// at the best (lowest) quantizer whose frame, handed to the pacer when that
// encoding is done, would be fully delivered within one frame interval of
// that moment (capture + encode time + one frame interval, plus the path's
// fixed propagation delay, which no sender can beat); when not even
// quantizer 127 fits, it skips the frame, unless it skipped maxSkips frames
// in a row (Salsify's own rule, choose-encoding.ts): then it sends at 127, so
// that a key frame larger than one interval's capacity still goes out. The quantizer is found by binary
// search on the frame's true size (view.trialBytes, not charged: an oracle),
// and one encoding is charged. A skip still charges the encoding at 127 (the
// scheme interface plans at least one encoding per frame).
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

export type OracleParams = Pick<SchemeParams, 'frameIntervalMs' | 'maxSkips'> & { readonly futureLink?: FutureLink };

export function oracle(params: OracleParams): SenderScheme {
  const link = params.futureLink;
  if (link === undefined) {
    throw new RangeError('the oracle scheme is simulator-only: it needs the simulated link\'s future (salsify sim, runSalsifySim), which a live sender does not have');
  }
  let skip = false;
  return {
    name: 'oracle',
    plan: async (view) => {
      const fits = async (q: number) => {
        const sentAt = view.now + link.encodeMs(q, view.keyFrame);
        return link.frameDeliveredAt(await view.trialBytes(q), sentAt) <= sentAt + link.propagationMs + params.frameIntervalMs;
      };
      skip = !(await fits(ORACLE_MAX_QUANTIZER)) && view.skipsInARow < params.maxSkips;
      if (skip || !(await fits(ORACLE_MAX_QUANTIZER))) return { quantizers: [ORACLE_MAX_QUANTIZER], timing: 'serial' };
      // The lowest fitting quantizer, frame size falling with the quantizer.
      let lo = ORACLE_MIN_QUANTIZER;
      let hi = ORACLE_MAX_QUANTIZER;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (await fits(mid)) hi = mid;
        else lo = mid + 1;
      }
      return { quantizers: [lo], timing: 'serial' };
    },
    choose: (): EncodingChoice => (skip ? 'skip' : { index: 0, label: 'only' }),
  };
}
