// Quantizer arithmetic on VP8's 0..127 scale.

export const MIN_QUANTIZER = 0;
export const MAX_QUANTIZER = 127;
/** Salsify's two encodings: one better and one clearly worse than the last frame sent. */
export const BETTER_STEP = -17;
export const WORSE_STEP = 23;

export function clampQuantizer(q: number): number {
  return Math.min(MAX_QUANTIZER, Math.max(MIN_QUANTIZER, Math.round(q)));
}

/** The two quantizers Salsify tries next, given the last one sent. */
export function candidateQuantizers(lastSent: number, betterStep = BETTER_STEP, worseStep = WORSE_STEP): { better: number; worse: number } {
  return { better: clampQuantizer(lastSent + betterStep), worse: clampQuantizer(lastSent + worseStep) };
}

/**
 * The conventional codec loop's once-a-second adjustment: frame size falls
 * roughly exponentially with the quantizer (VP8's bits halve every ~12 steps),
 * so the step is 12 x log2(observed mean frame size / budget per frame).
 */
export function adjustConventionalQuantizer(current: number, meanFrameBytes: number, budgetBytesPerFrame: number): number {
  if (!(meanFrameBytes > 0)) return current;
  if (!(budgetBytesPerFrame > 0)) return MAX_QUANTIZER;
  return clampQuantizer(current + 12 * Math.log2(meanFrameBytes / budgetBytesPerFrame));
}
