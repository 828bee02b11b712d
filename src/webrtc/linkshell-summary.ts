// What a call (Chromium's or a Salsify endpoint's) asks of its linkshell
// beyond the path: when the trace clock starts (--trace-clock-start; the
// media's first packet, so that --trace-start S means "the media's first
// packet meets trace second S" for every system) and a machine-readable
// summary (--summary-json, src/linkshell/summary-json-file.ts), which the
// call's validity reads instead of the printed summary.
import { readFileSync, rmSync } from 'node:fs';
import type { TraceClockStart } from '../linkshell/trace-clock.ts';

/**
 * The linkshell options a call adds to its path's. A document left at
 * `summaryJson` by an earlier run is removed first: linkshell writes its own
 * only when it ends cleanly, and an old one must not be read as this run's.
 */
export function callLinkshellArgs(traceClockStart: TraceClockStart, summaryJson: string): string[] {
  rmSync(summaryJson, { force: true });
  return ['--trace-clock-start', traceClockStart, '--summary-json', summaryJson];
}

/** The fields of linkshell's --summary-json document a call reads. */
export interface LinkshellSummary {
  readonly verdict: string;
  /** The largest per-direction departure lateness p99 (ms), null without departures. */
  readonly latenessP99Ms: number | null;
  readonly traceClock?: {
    readonly start: TraceClockStart;
    readonly startedAtMs: number | null;
    /** The run ended before the datagram that was to start the trace. */
    readonly heldToEnd?: boolean;
  };
}

/** linkshell's summary document at `path`; undefined if it is missing or is not one (linkshell did not end cleanly). */
export function readLinkshellSummary(path: string): LinkshellSummary | undefined {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const doc = value as Record<string, unknown>;
  if (typeof doc.verdict !== 'string' || !(typeof doc.latenessP99Ms === 'number' || doc.latenessP99Ms === null)) return undefined;
  return doc as unknown as LinkshellSummary;
}
