// salsify-1: Salsify with one encoder. Each frame is encoded twice from the
// same state, one after the other (the modelled times add): at a better and
// at a clearly worse quantizer than the last frame sent. The larger encoding
// that fits the transport's target is sent, else the frame is skipped (but
// never more than maxSkips in a row; choose-encoding.ts).
import { chooseEncoding } from '../choose-encoding.ts';
import { candidateQuantizers } from '../quantizer.ts';
import type { EncodeTiming, SchemeParams, SenderScheme } from './scheme.ts';

/** Salsify's two encodings per frame, run with the given timing. */
export function twoEncodings(name: string, timing: EncodeTiming, params: SchemeParams): SenderScheme {
  return {
    name,
    plan: (view) => {
      const { better, worse } = candidateQuantizers(view.lastQuantizer, params.betterStep, params.worseStep);
      return { quantizers: [better, worse], timing };
    },
    choose: ([better, worse], view) => {
      const choice = chooseEncoding({
        betterBytes: better.bytes, worseBytes: worse.bytes, targetBytes: view.target,
        skipsInARow: view.skipsInARow, maxSkips: params.maxSkips,
      });
      return choice === 'skip' ? 'skip' : { index: choice === 'better' ? 0 : 1, label: choice };
    },
  };
}

export const salsify1 = (params: SchemeParams): SenderScheme => twoEncodings('salsify-1', 'serial', params);
