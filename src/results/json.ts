// A run as JSON: its label, config, counters, bytes sent, link use, end time
// and summary (the per-frame records go to CSV, or here when asked). Numbers
// that are not finite (an unknown utilisation, the SSIM of identical
// pictures) become null, as JSON has no NaN or Infinity.
import type { RunRecord } from './frame-record.ts';
import type { Summary } from './summary.ts';

export function runToJson(run: RunRecord, summary: Summary, options: { frames?: boolean; extra?: Readonly<Record<string, unknown>> } = {}): Record<string, unknown> {
  return {
    label: run.label,
    config: run.config,
    counters: run.counters,
    bytesSent: run.bytesSent,
    link: run.link,
    endMs: run.endMs,
    ...(run.window ? { window: run.window } : {}),
    summary,
    ...options.extra,
    ...(options.frames ? { frames: run.frames } : {}),
  };
}

/** Pretty-printed JSON text, one trailing newline. */
export function jsonText(value: unknown): string {
  return JSON.stringify(value, null, 2) + '\n';
}
