// The runs of one scenario and scheme across --seeds, as one row (pure): the
// mean of each figure and the least and greatest p95 delay and mean SSIM
// (the spread the tables print and the plots draw as bars).
import type { Distribution } from '../results/statistics.ts';
import type { Summary } from '../results/summary.ts';
import type { Finished } from './finished.ts';

export interface SchemeRuns {
  readonly scenario: string;
  readonly scheme: string;
  readonly runs: readonly Finished[];
}

/** The runs grouped by scenario and scheme, in the order they first appear. */
export function groupBySchemes(finished: readonly Finished[]): SchemeRuns[] {
  const groups = new Map<string, { scenario: string; scheme: string; runs: Finished[] }>();
  for (const f of finished) {
    const key = `${f.run.scenario}\u0000${f.run.scheme}`;
    const g = groups.get(key) ?? { scenario: f.run.scenario, scheme: f.run.scheme, runs: [] };
    g.runs.push(f);
    groups.set(key, g);
  }
  return [...groups.values()];
}

const finite = (xs: readonly (number | null)[]) => xs.filter((x): x is number => x !== null && Number.isFinite(x));
const meanOf = (xs: readonly (number | null)[]) => {
  const f = finite(xs);
  return f.length ? f.reduce((a, b) => a + b, 0) / f.length : NaN;
};
/** [least, greatest] of the finite values; [NaN, NaN] when none is. */
export function extent(xs: readonly (number | null)[]): [number, number] {
  const f = finite(xs);
  return f.length ? [Math.min(...f), Math.max(...f)] : [NaN, NaN];
}

function meanDistribution(ds: readonly Distribution[]): Distribution {
  return { mean: meanOf(ds.map((d) => d.mean)), p5: meanOf(ds.map((d) => d.p5)), p95: meanOf(ds.map((d) => d.p95)) };
}

/** The mean of each figure over the summaries (counts too: the mean count per run). */
export function meanSummary(summaries: readonly Summary[]): Summary {
  const m = (pick: (s: Summary) => number) => meanOf(summaries.map(pick));
  return {
    signalDelayMs: meanDistribution(summaries.map((s) => s.signalDelayMs)),
    ssimDb: meanDistribution(summaries.map((s) => s.ssimDb)),
    framesCaptured: m((s) => s.framesCaptured), framesSent: m((s) => s.framesSent), framesShown: m((s) => s.framesShown),
    framesNeverShown: m((s) => s.framesNeverShown), framesLost: m((s) => s.framesLost), framesSkipped: m((s) => s.framesSkipped),
    framesSuperseded: m((s) => s.framesSuperseded), framesNotCaughtUp: m((s) => s.framesNotCaughtUp),
    bytesSent: m((s) => s.bytesSent), linkUtilization: m((s) => s.linkUtilization),
  };
}

export interface Spread {
  readonly runs: number;
  readonly p95DelayMs: [number, number];
  readonly ssimDb: [number, number];
}

export function seedSpread(summaries: readonly Summary[]): Spread {
  return { runs: summaries.length, p95DelayMs: extent(summaries.map((s) => s.signalDelayMs.p95)), ssimDb: extent(summaries.map((s) => s.ssimDb.mean)) };
}
