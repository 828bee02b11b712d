// salsify-targetsize: the ablation without late binding, as the reference
// built it (alfalfa commit 79b758b, "Do only one encoding job based on target
// size", with Encoder::encode_with_target_size). The target is computed
// before encoding and one encoding is made:
//   - before the first acknowledgement (no target): at quantizer 32;
//   - a target of 0: at 127 (the reference's "fail-small");
//   - otherwise at the best quantizer whose frame fits, found by binary search
//     within the last quantizer of the encoder it encodes from +-16 (clamped
//     to 4..127; if none fits, the worst of the range). That is the quantizer
//     of the frame that made the source state (Encoder::last_y_ac_qi_ of the
//     reference's per-state encoders), not the last one sent: they differ
//     after a loss, and a key frame's encoder has none, so its search covers
//     4..127. (Searching around the last frame sent instead stalled: a key
//     frame too large at last + 16 was skipped for ever.)
// The frame is sent if it fits the target computed before encoding (its real
// size, as the reference compared); else it is skipped, except the 127 one of
// a target of 0 after 3 skips in a row. The search is on the reference's size
// estimate (TARGETSIZE_ESTIMATE_FACTOR below: 2.1 x the real size, measured on
// libvpx), each estimate charged the modelled time of its encode of a 1/4 x
// 1/4 sample of the picture (view.sampleEncodeMs: 38/16 ms under paper timing)
// before the one encoding sent.
//
// Stalls. The reference's rules can skip for ever, and in the simulator they
// do: when the link slows the target falls to a few packets; once nothing is
// in flight and nothing is sent no acknowledgement arrives, so the estimate
// and the target freeze; the search cannot leave the source's quantizer + 16,
// the frame there (against a reference ever staler) does not fit, and only a
// target of exactly 0 has the fail-small fallback (alfalfa 79b758b has the
// same three rules). The estimate's bias does not end that: searching on it
// (coarser quantizers, whose real frames fit more often) the Verizon stand-in
// showed 4,760 frames in the paper's window instead of 815 (mean delay 101 s
// instead of 266 s), and on-off still none (paper timing, model codec).
// Nothing else in the reference ends such a stall either (no timer, timeout
// or key frame on silence: salsify-sender.cc:141, :370, :383-384, :448,
// :530-531, encoder.cc:575-581 at 79b758b): it ends when an acknowledgement
// arrives or when the camera's picture lets the frame at the top of the
// range fit. The synthetic scene never does (it drifts ever further from a
// stale reference); with FourPeople's pictures the same run never skips more
// than 7 frames in a row (docs/paper-reproduction.md). The paper's own run
// (salsify-results, salsify-target-size/.../analysis.csv) has at most 18
// source frames between two shown frames but once, and that gap of 437 was a
// standing queue of 9 s draining, not a stall.
import { MAX_QUANTIZER } from '../quantizer.ts';
import type { SchemeParams, SenderScheme } from './scheme.ts';

export const TARGETSIZE_START_QUANTIZER = 32;
/**
 * The reference's size estimate over the real size. alfalfa 79b758b
 * (size_estimation.cc, Encoder::estimate_size) encodes a frame of width/4 x
 * height/4 made of the source's macroblocks (4c, 4r) at the candidate
 * quantizer, refresh_entropy_probs set, serialises it with its header and
 * probability tables and multiplies its size by 16. Measured with our VP8
 * bridge (libvpx, standing in for alfalfa's encoder) on 29 inter frames of
 * FourPeople at quantizers 20 to 127: the estimate was 2.01 to 2.24 times the
 * real frame (2.10 at 100): the sampled macroblocks are not each other's
 * neighbours, so prediction helps less, and the header counts 16 times.
 * Applied to key frames too (not measured on them).
 */
export const TARGETSIZE_ESTIMATE_FACTOR = 2.1;
export const TARGETSIZE_RADIUS = 16;
const LOWEST = 4;

/**
 * The reference's binary search: the best (lowest) quantizer in
 * [max(4, last - 16) .. min(127, last + 16)] (4..127 when `last` is
 * undefined) whose size fits `target`, or the range's highest when none does.
 */
export async function searchQuantizer(last: number | undefined, target: number, sizeAt: (q: number) => Promise<number>): Promise<number> {
  let lo = last === undefined ? LOWEST : last - TARGETSIZE_RADIUS >= LOWEST ? last - TARGETSIZE_RADIUS : LOWEST;
  let hi = last === undefined ? MAX_QUANTIZER : Math.min(MAX_QUANTIZER, last + TARGETSIZE_RADIUS);
  let best: number | undefined;
  while (lo <= hi) {
    const q = Math.floor((lo + hi) / 2);
    if ((await sizeAt(q)) <= target || (lo === hi && best === undefined)) {
      best = q;
      hi = q - 1;
    } else {
      lo = q + 1;
    }
  }
  return best ?? hi;
}

export function salsifyTargetsize(params: SchemeParams): SenderScheme {
  let target = Infinity;
  let failSmall = false;
  return {
    name: 'salsify-targetsize',
    plan: async (view) => {
      target = view.targetBytes();
      failSmall = target === 0;
      let searchMs = 0;
      /** The reference's estimate of the frame at `quantizer`, charging the sample encode it takes. */
      const estimate = async (quantizer: number) => {
        searchMs += view.sampleEncodeMs?.(quantizer) ?? 0;
        return TARGETSIZE_ESTIMATE_FACTOR * (await view.trialBytes(quantizer));
      };
      const q = target === Infinity ? TARGETSIZE_START_QUANTIZER
        : target === 0 ? MAX_QUANTIZER
        : await searchQuantizer(view.sourceQuantizer, target, estimate);
      return { quantizers: [q], timing: 'serial', searchMs };
    },
    choose: ([only], view) => {
      if (only.bytes <= target) return { index: 0, label: 'only' };
      return failSmall && view.skipsInARow >= params.maxSkips ? { index: 0, label: 'only' } : 'skip';
    },
  };
}
