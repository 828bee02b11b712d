// salsify-4: four encodings per frame, made at once (four encoders: the
// longest counts), at the last quantizer sent +0, -23 and +17 (clamped to
// 3..127) and at 127, as the reference's Salsify-4 (alfalfa commit 1af9531).
// The largest that fits the target is sent; if none fits the frame is
// skipped, but after 3 skips in a row the one at 127 is sent anyway.
import { chooseLargestFitting } from '../choose-encoding.ts';
import { MAX_QUANTIZER, stepQuantizer } from '../quantizer.ts';
import type { SchemeParams, SenderScheme } from './scheme.ts';

const STEPS = [0, -23, 17] as const;
const LABELS = ['q+0', 'q-23', 'q+17', 'q=127'] as const;

/** Salsify-4's encodings; `grace: false` sends a grace period of 0 (salsify-nograce, as the paper ran it). */
export function salsify4(params: SchemeParams, name = 'salsify-4', grace = true): SenderScheme {
  return {
    name,
    grace,
    plan: (view) => ({ quantizers: [...STEPS.map((d) => stepQuantizer(view.lastQuantizer, d)), MAX_QUANTIZER], timing: 'parallel' }),
    choose: (encoded, view) => {
      const choice = chooseLargestFitting(encoded.map((e) => e.bytes), view.target, view.skipsInARow, params.maxSkips);
      return choice === 'skip' ? 'skip' : { index: choice, label: LABELS[choice] };
    },
  };
}
