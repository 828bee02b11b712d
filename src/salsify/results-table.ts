// The results table of `salsify sim` and `salsify analyze`: one row per run
// (signal delay, SSIM, frames, bytes, link use, wall time).
import Table from 'cli-table3';
import type { SalsifySimResult } from './sim-runner.ts';

export function formatResultsTable(runs: readonly { result: SalsifySimResult; wallMs?: number }[]): string {
  const table = new Table({
    head: ['scheme', 'delay mean', 'p5', 'p95 (ms)', 'SSIM mean', 'p5', 'p95 (dB)', 'shown', 'skipped', 'captured', 'sent (MB)', 'link use', 'wall (s)'],
    style: { head: [], border: [] },
  });
  const f = (x: number, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '-');
  for (const { result, wallMs } of runs) {
    const s = result.summary;
    table.push([
      result.config.scheme, f(s.signalDelayMs.mean), f(s.signalDelayMs.p5), f(s.signalDelayMs.p95),
      f(s.ssimDb.mean, 2), f(s.ssimDb.p5, 2), f(s.ssimDb.p95, 2),
      String(s.framesShown), String(s.framesSkipped), String(s.framesCaptured),
      f(s.bytesSent / 1e6, 2), `${f(100 * s.linkUtilization)} %`, wallMs === undefined ? '-' : f(wallMs / 1000, 2),
    ]);
  }
  return table.toString();
}
