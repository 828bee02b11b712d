// salsify-1: Salsify with one encoder, as the reference runs it (alfalfa
// src/salsify/salsify-sender.cc, mode s1). Each frame is encoded twice from
// the same state, one after the other (the modelled times add): at the last
// quantizer sent -17 and +23 (clamped to 3..127). The larger encoding that
// fits the transport's target is sent, else the frame is skipped, but after 3
// skips in a row the +23 one is sent anyway (choose-encoding.ts).
import { chooseLargestFitting } from '../choose-encoding.ts';
import { candidateQuantizers } from '../quantizer.ts';
import type { EncodeTiming, SchemeParams, SenderScheme } from './scheme.ts';

/** Salsify's two encodings per frame, run with the given timing; `grace: false` sends a grace period of 0. */
export function twoEncodings(name: string, timing: EncodeTiming, params: SchemeParams, grace = true): SenderScheme {
  return {
    name,
    grace,
    plan: (view) => {
      const { better, worse } = candidateQuantizers(view.lastQuantizer, params.betterStep, params.worseStep);
      return { quantizers: [better, worse], timing };
    },
    choose: (encoded, view) => {
      const choice = chooseLargestFitting(encoded.map((e) => e.bytes), view.target, view.skipsInARow, params.maxSkips);
      return choice === 'skip' ? 'skip' : { index: choice, label: choice === 0 ? 'better' : 'worse' };
    },
  };
}

export const salsify1 = (params: SchemeParams): SenderScheme => twoEncodings('salsify-1', 'serial', params);
