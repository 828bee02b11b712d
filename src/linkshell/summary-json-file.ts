// --summary-json FILE: the run's figures and verdict as one JSON document
// (summaryDocument), in a file opened when linkshell starts (created if new, left
// as it is otherwise), so that a path that cannot be written stops it before
// anything runs; written once, at the end, with the summary and the run's
// verdict. A run that does not start leaves no file it created.

import { closeSync, existsSync, ftruncateSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { unwritableFile } from '../common/errors.ts';
import type { Histogram } from './histogram.ts';
import { throughputFigures, type LinkshellReport } from './summary.ts';
import { runVerdict } from './verdict.ts';

export class SummaryJsonFile {
  private constructor(
    readonly path: string,
    private fd: number | undefined,
    private readonly created: boolean,
  ) {}

  /** Throws an ERR_UNWRITABLE_FILE error naming the file if it cannot be written. */
  static open(path: string): SummaryJsonFile {
    const existed = existsSync(path);
    try {
      return new SummaryJsonFile(path, openSync(path, 'a'), !existed);
    } catch (error) {
      throw unwritableFile(path, error);
    }
  }

  write(report: LinkshellReport): void {
    if (this.fd === undefined) throw new Error(`summary file ${this.path} is closed`);
    const fd = this.fd;
    this.fd = undefined;
    try {
      ftruncateSync(fd, 0);
      writeSync(fd, JSON.stringify(summaryDocument(report), null, 2) + '\n');
    } catch (error) {
      throw unwritableFile(this.path, error);
    } finally {
      closeSync(fd);
    }
  }

  /** Nothing ran: a file created at the start goes, one that was there stays as it was. */
  discard(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
    if (!this.created) return;
    try {
      unlinkSync(this.path);
    } catch {
      // Gone already.
    }
  }
}

/** Finite numbers as they are, the rest as null (JSON has no NaN). */
const num = (x: number): number | null => (Number.isFinite(x) ? x : null);

function quantiles(h: Histogram) {
  return { count: h.count(), p50: num(h.quantile(0.5)), p95: num(h.quantile(0.95)), p99: num(h.quantile(0.99)), max: num(h.max()) };
}

/** The run's figures and verdict as one JSON document (what --summary-json writes). */
export function summaryDocument(report: LinkshellReport): object {
  const v = runVerdict(report);
  return {
    verdict: v.verdict,
    latenessBoundMs: v.latenessBoundMs,
    latenessP99Ms: num(v.latenessP99Ms),
    latenessMaxMs: num(v.latenessMaxMs),
    kernelDrops: v.kernelDrops ?? null,
    receivePath: report.receivePath ?? null,
    durationMs: report.durationMs,
    // When the trace started on linkshell's clock (its logs' base timestamp) and what passed unemulated before (--trace-clock-start).
    ...(report.traceClock ? { traceClock: report.traceClock } : {}),
    directions: report.directions.map((d) => {
      const s = d.stats;
      const t = throughputFigures(s, report.durationMs);
      return {
        name: d.name,
        trace: d.trace,
        queue: d.queue,
        datagramsIn: s.packetsIn + s.memoryCapDrops,
        datagramsOut: s.packetsOut,
        bytesIn: s.bytesIn + s.memoryCapDropBytes,
        bytesOut: s.bytesOut,
        drops: { queue: s.drops.queue, memoryCap: s.memoryCapDrops, loss: s.drops.loss, onoff: s.drops.onoff, oversize: s.drops.oversize, kernel: d.socketDrops ?? null },
        heldBytes: s.heldBytes,
        passthrough: { datagrams: s.passthroughDatagrams, bytes: s.passthroughBytes },
        capacityMbps: num(t.capacityMbps),
        throughputMbps: num(t.throughputMbps),
        utilization: num(t.utilization),
        queueingDelayMs: quantiles(s.queueingDelayMs),
        departureLatenessMs: quantiles(s.departureLatenessMs),
      };
    }),
    ...(report.relay ? { relay: report.relay } : {}),
    ...(report.netns ? { netns: report.netns } : {}),
  };
}
