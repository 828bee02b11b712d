// Whether a linkshell run can be trusted (the summary's last line, and
// --summary-json's "verdict"), so that an experiment can discard a run that
// the machine did not carry faithfully:
//
// - 'valid': every direction's departure lateness (how far the real sending
//   fell behind the link's own time) stayed at or under LATENESS_BOUND_MS at
//   the 99th percentile, and the kernel dropped nothing before linkshell took
//   it (the relay's sockets: full receive buffers, /proc/net/udp's drops;
//   --netns: the TUN devices' transmit drops);
// - 'kernel drops': the kernel dropped datagrams linkshell never saw (the
//   emulated link did not decide their fate);
// - 'late': no kernel drops, but departures left later than the bound;
// - 'unverified': the kernel's drop counters could not be read (not Linux).
//
// The bound: mm-link polls every millisecond, so its own departures can be up
// to a millisecond behind the trace; 2 ms at the 99th percentile allows that
// and a scheduling delay of the same size, and is small against the
// queueing delays and frame intervals (33 ms) the toolkit's experiments
// measure.

import type { LinkshellReport } from './summary.ts';

export const LATENESS_BOUND_MS = 2;

export type Verdict = 'valid' | 'late' | 'kernel drops' | 'unverified';

export interface RunVerdict {
  verdict: Verdict;
  /** The largest per-direction 99th percentile and maximum of departure lateness (ms; NaN without departures). */
  latenessP99Ms: number;
  latenessMaxMs: number;
  latenessBoundMs: number;
  /** Datagrams the kernel dropped before linkshell took them, both directions (undefined: not known). */
  kernelDrops: number | undefined;
}

export function runVerdict(report: LinkshellReport): RunVerdict {
  let p99 = NaN;
  let max = NaN;
  let kernelDrops: number | undefined = 0;
  for (const d of report.directions) {
    const h = d.stats.departureLatenessMs;
    if (h.count() > 0) {
      p99 = Number.isNaN(p99) ? h.quantile(0.99) : Math.max(p99, h.quantile(0.99));
      max = Number.isNaN(max) ? h.max() : Math.max(max, h.max());
    }
    kernelDrops = kernelDrops === undefined || d.socketDrops === undefined ? undefined : kernelDrops + d.socketDrops;
  }
  const verdict: Verdict = kernelDrops === undefined ? 'unverified' : kernelDrops > 0 ? 'kernel drops' : p99 > LATENESS_BOUND_MS ? 'late' : 'valid';
  return { verdict, latenessP99Ms: p99, latenessMaxMs: max, latenessBoundMs: LATENESS_BOUND_MS, kernelDrops };
}

const fixed = (x: number, digits: number) => (Number.isFinite(x) ? x.toFixed(digits) : '-');

/** The verdict as the summary's last line. */
export function formatVerdict(v: RunVerdict): string {
  const lateness = Number.isNaN(v.latenessP99Ms) ? 'no departures' : `departure lateness p99 ${fixed(v.latenessP99Ms, 3)} ms (bound ${v.latenessBoundMs} ms), max ${fixed(v.latenessMaxMs, 3)} ms`;
  const drops = v.kernelDrops === undefined ? 'kernel drops not known' : `${v.kernelDrops} kernel drop${v.kernelDrops === 1 ? '' : 's'}`;
  return `linkshell: verdict: ${v.verdict} (${lateness}; ${drops})\n`;
}
