// Quantizer arithmetic on VP8's 0..127 scale.

export const MIN_QUANTIZER = 0;
export const MAX_QUANTIZER = 127;
/** The reference sender never steps below this (alfalfa salsify-sender.cc, increment_quantizer). */
export const MIN_STEPPED_QUANTIZER = 3;
/** Salsify's two encodings: one better and one clearly worse than the last frame sent. */
export const BETTER_STEP = -17;
export const WORSE_STEP = 23;

export function clampQuantizer(q: number): number {
  return Math.min(MAX_QUANTIZER, Math.max(MIN_QUANTIZER, Math.round(q)));
}

/** `q + step`, clamped to 3..127 as the reference sender clamps every quantizer it derives. */
export function stepQuantizer(q: number, step: number): number {
  return Math.min(MAX_QUANTIZER, Math.max(MIN_STEPPED_QUANTIZER, Math.round(q + step)));
}

/** The two quantizers Salsify tries next, given the last one sent. */
export function candidateQuantizers(lastSent: number, betterStep = BETTER_STEP, worseStep = WORSE_STEP): { better: number; worse: number } {
  return { better: stepQuantizer(lastSent, betterStep), worse: stepQuantizer(lastSent, worseStep) };
}
