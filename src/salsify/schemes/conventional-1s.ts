// conventional-1s: a conventional codec loop behind Salsify's transport, as
// the reference built it (alfalfa commit 49d4776, src/frontend/salsify-sender.cc;
// unchanged on master in src/salsify/salsify-sender.cc lines 453-489). One
// encoding per frame at a constant quantizer, never a skip. Once a second (at
// the first frame a second or more after the last update; the first update a
// second after start) the quantizer follows the change of the capacity
// estimate, in the reference's integer arithmetic:
//   rate   = floor(1e6 x 1400 / avg_delay_us)        (0 before any estimate)
//   change = (rate - ewma) / ewma, clamped to [-1, 1.5] (1.5 when ewma is 0)
//   q      = 127 if change < -0.99, else trunc(q / (1 + change)^(1 / 0.75)) clamped to [3, 127]
//   ewma   = trunc(0.8 rate + 0.2 ewma)
// starting from q = 32 and ewma = 0. An estimate of 0 us counts as 1 us (the
// reference divides by it: undefined behaviour).
import { MAX_QUANTIZER, stepQuantizer } from '../quantizer.ts';
import type { SchemeParams, SenderScheme } from './scheme.ts';

export const CONVENTIONAL_INITIAL_QUANTIZER = 32;
export const CONVENTIONAL_UPDATE_MS = 1000;

/** The reference's state of the conventional loop. */
export interface ConventionalState {
  readonly quantizer: number;
  readonly rateEwma: number;
}

/** One once-a-second update, given the receiver's inter-arrival estimate (whole us; undefined before any). */
export function conventionalUpdate(state: ConventionalState, interArrivalUs: number | undefined): ConventionalState & { rate: number; change: number } {
  // Before any estimate the reference's avg_delay is UINT32_MAX, so the rate is 0.
  const rate = interArrivalUs === undefined ? 0 : Math.floor(1e6 * 1400 / Math.max(1, interArrivalUs));
  const raw = (rate - state.rateEwma) / state.rateEwma; // +Infinity, or NaN (0 / 0), when the ewma is 0
  // std::max(-1.0, std::min(1.5, x)): a NaN comes out as 1.5.
  const change = Number.isNaN(raw) ? 1.5 : Math.max(-1, Math.min(1.5, raw));
  const quantizer = change < -0.99 ? MAX_QUANTIZER : stepQuantizer(Math.trunc(state.quantizer / Math.pow(1 + change, 1 / 0.75)), 0);
  return { quantizer, rateEwma: Math.trunc(0.8 * rate + 0.2 * state.rateEwma), rate, change };
}

export function conventional1s(_params: SchemeParams): SenderScheme {
  let state: ConventionalState = { quantizer: CONVENTIONAL_INITIAL_QUANTIZER, rateEwma: 0 };
  let nextUpdate: number | undefined;
  return {
    name: 'conventional-1s',
    adjust: (view) => {
      nextUpdate ??= view.startMs + CONVENTIONAL_UPDATE_MS;
      if (view.now < nextUpdate) return;
      state = conventionalUpdate(state, view.interArrivalUs);
      nextUpdate = view.now + CONVENTIONAL_UPDATE_MS;
    },
    plan: () => ({ quantizers: [state.quantizer], timing: 'serial' }),
    choose: () => ({ index: 0, label: 'only' }),
  };
}
