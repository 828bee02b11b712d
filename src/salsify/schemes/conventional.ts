// conventional: a conventional codec loop behind Salsify's transport. One
// encoding per frame at a quantizer adjusted once a second (at the first
// frame a second or more after the last adjustment) from the mean size of
// the frames sent in that second against the budget per frame that the
// receiver's inter-arrival estimate allows (quantizer.ts); it never skips.
import { adjustConventionalQuantizer } from '../quantizer.ts';
import type { SchemeParams, SenderScheme } from './scheme.ts';

export function conventional(params: SchemeParams): SenderScheme {
  let quantizer = params.initialQuantizer;
  let windowStart: number | undefined;
  let windowBytes = 0;
  let windowFrames = 0;
  return {
    name: 'conventional',
    adjust: (view) => {
      windowStart ??= view.startMs;
      if (view.now - windowStart < 1000) return;
      const interArrival = view.interArrivalMs;
      if (interArrival !== undefined && windowFrames > 0) {
        const budgetPerFrame = (params.maxPayload / interArrival) * params.frameIntervalMs;
        quantizer = adjustConventionalQuantizer(quantizer, windowBytes / windowFrames, budgetPerFrame);
      }
      windowStart = view.now;
      windowBytes = 0;
      windowFrames = 0;
    },
    plan: () => ({ quantizers: [quantizer], timing: 'serial' }),
    choose: () => ({ index: 0, label: 'only' }),
    onSent: (frame) => {
      windowBytes += frame.bytes;
      windowFrames++;
    },
  };
}
