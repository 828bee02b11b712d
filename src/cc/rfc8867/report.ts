// The one writer of the suite's results: a case result as JSON (everything
// but the logs), the table (src/results/table.ts's), CSV (one
// line per case and flow), the plots (src/plots: per case, the capacity with
// each flow's rate over time, and each flow's queueing delay), and the
// mm-link logs. Every file goes through src/results/writer.ts.
import { formatTable, type Column, type TableOptions } from '../../results/table.ts';
import { join } from 'node:path';
import type { TopLevelSpec } from 'vega-lite';
import { renderSvg } from '../../plots/render.ts';
import { jsonText } from '../../results/json.ts';
import { makeResultsDirectory, writeResultsFile } from '../../results/writer.ts';
import type { CaseResult } from './run-case.ts';
import { safeName } from './file-names.ts';

/** The result as JSON data (no logs). */
export function caseResultJson(r: CaseResult): Record<string, unknown> {
  const { logs: _logs, ...rest } = r;
  return rest;
}

const fixed = (x: number | null | undefined, digits = 1) => (x === null || x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(digits));

/** One row per case (and controller): each check's value, and pass or fail (the toolkit's one table, results/table.ts: 100 columns by default, every column with --wide). */
export function formatSuiteTable(results: readonly CaseResult[], options: TableOptions = {}): string {
  const media = (r: CaseResult) => r.metrics.flows.filter((f) => f.controller === r.controller);
  const value = (r: CaseResult, check: string) => r.checks.find((c) => c.check === check);
  const columns: Column<CaseResult>[] = [
    { head: 'case', cell: (r) => r.caseId },
    { head: 'controller', cell: (r) => r.controller, wrap: true },
    { head: 'media rate (kbit/s)', cell: (r) => media(r).map((f) => fixed(f.meanRateKbps, 0)).join(' / '), wrap: true },
    { head: 'util', cell: (r) => { const u = value(r, 'utilisation') ?? value(r, 'mediaShare'); return u ? fixed(u.value, 2) : '-'; }, align: 'right' },
    { head: 'qdelay p50', cell: (r) => fixed(Math.max(...media(r).map((f) => f.queueingDelayMs.p50 ?? NaN)), 0), align: 'right', wide: true },
    { head: 'p95 (ms)', cell: (r) => fixed(Math.max(...media(r).map((f) => f.queueingDelayMs.p95 ?? NaN)), 0), align: 'right' },
    { head: 'loss', cell: (r) => `${fixed(100 * Math.max(...media(r).map((f) => f.lossRate)), 2)} %`, align: 'right' },
    { head: 'fairness', cell: (r) => { const fair = r.metrics.fairness.filter((g) => g.controller === r.controller).map((g) => g.jainIndex); return fair.length ? fair.map((j) => fixed(j, 3)).join(' / ') : '-'; }, wrap: true },
    { head: 'convergence (s)', cell: (r) => { const c = value(r, 'convergence'); return c ? (c.value === null ? 'never' : fixed(c.value / 1000, 0)) : '-'; }, align: 'right', wide: true },
    { head: 'result', cell: (r) => (r.pass ? 'pass' : `FAIL (${r.checks.filter((c) => !c.pass).map((c) => c.check).join(', ')})`), wrap: true },
  ];
  return formatTable(columns, results, options);
}

const CSV_COLUMNS = [
  'case', 'controller', 'seed', 'flow', 'flow_controller', 'direction', 'delay_ms', 'start_ms', 'stop_ms',
  'mean_rate_kbps', 'utilisation', 'qdelay_mean_ms', 'qdelay_p50_ms', 'qdelay_p95_ms', 'qdelay_p99_ms', 'qdelay_max_ms', 'loss_rate',
  'packets_sent', 'packets_dropped', 'case_pass',
] as const;

export function suiteToCsv(results: readonly CaseResult[]): string {
  const cell = (v: unknown) => (v === null || v === undefined ? '' : String(v));
  const lines = [CSV_COLUMNS.join(',')];
  for (const r of results) {
    for (const f of r.metrics.flows) {
      lines.push([
        r.caseId, r.controller, r.seed, f.flowId, f.controller, f.direction, f.delayMs, f.startMs, f.stopMs,
        f.meanRateKbps, f.utilisation, f.queueingDelayMs.mean, f.queueingDelayMs.p50, f.queueingDelayMs.p95, f.queueingDelayMs.p99, f.queueingDelayMs.max, f.lossRate,
        f.packetsSent, f.packetsDropped, r.pass ? 1 : 0,
      ].map(cell).join(','));
    }
  }
  return lines.join('\n') + '\n';
}

/** Per case: capacity (area) and each flow's delivered rate (lines; Salsify's send rate too, its frames against the capacity), and below, each flow's mean queueing delay per bin. */
export function casePlotSpec(r: CaseResult): TopLevelSpec {
  const m = r.metrics;
  const sec = m.binMs / 1000;
  const rows: Array<Record<string, unknown>> = [];
  const delays: Array<Record<string, unknown>> = [];
  const directions = [...new Set(m.flows.map((f) => f.direction))];
  for (const d of directions) {
    m.directions[d].capacityKbps.forEach((c, k) => rows.push({ t: k * sec, kbps: c, series: 'capacity', direction: d }));
  }
  for (const f of m.flows) {
    const name = `flow ${f.flowId} (${f.controller})`;
    f.rateKbps.forEach((v, k) => rows.push({ t: (k + 1) * sec, kbps: v, series: `${name} delivered`, direction: f.direction }));
    if (f.targetKbps.every((x) => x === null)) f.sendRateKbps.forEach((v, k) => rows.push({ t: (k + 1) * sec, kbps: v, series: `${name} sent`, direction: f.direction }));
    f.queueingDelaySeriesMs.forEach((v, k) => {
      if (v !== null) delays.push({ t: (k + 1) * sec, ms: v, series: name, direction: f.direction });
    });
  }
  const title = `RFC 8867 ${r.caseId} (${r.title}): ${r.controller}, seed ${r.seed}`;
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title,
    vconcat: directions.flatMap((d) => [
      {
        width: 720, height: 220, title: `${d}: capacity and rates`,
        data: { values: rows.filter((x) => x.direction === d) },
        layer: [
          { transform: [{ filter: "datum.series === 'capacity'" }], mark: { type: 'area', interpolate: 'step-after', opacity: 0.25, color: '#4c78a8' }, encoding: { x: { field: 't', type: 'quantitative', title: 'time (s)' }, y: { field: 'kbps', type: 'quantitative', title: 'kbit/s' } } },
          { transform: [{ filter: "datum.series !== 'capacity'" }], mark: { type: 'line', strokeWidth: 1.2 }, encoding: { x: { field: 't', type: 'quantitative' }, y: { field: 'kbps', type: 'quantitative' }, color: { field: 'series', type: 'nominal', title: null } } },
        ],
      },
      {
        width: 720, height: 140, title: `${d}: queueing delay (mean per ${sec} s)`,
        data: { values: delays.filter((x) => x.direction === d) },
        mark: { type: 'line', strokeWidth: 1.2 },
        encoding: { x: { field: 't', type: 'quantitative', title: 'time (s)' }, y: { field: 'ms', type: 'quantitative', title: 'ms' }, color: { field: 'series', type: 'nominal', title: null } },
      },
    ]),
  } as TopLevelSpec;
}

export interface WriteOptions {
  readonly plots?: boolean;
  readonly logs?: boolean;
}

/** Writes DIR/CASE.CONTROLLER.json, .svg, the logs, and DIR/summary.csv for all. */
export async function writeSuite(dir: string, results: readonly CaseResult[], options: WriteOptions = {}): Promise<string[]> {
  makeResultsDirectory(dir, '--out');
  const written: string[] = [];
  const put = (name: string, text: string) => {
    const path = join(dir, name);
    writeResultsFile(path, text);
    written.push(path);
  };
  for (const r of results) {
    const stem = `${r.caseId}.${safeName(r.controller)}`;
    put(`${stem}.json`, jsonText(caseResultJson(r)));
    if (options.plots !== false) put(`${stem}.svg`, await renderSvg(casePlotSpec(r)));
    if (options.logs !== false && r.logs) for (const [name, text] of r.logs) put(`${safeName(r.controller)}.${name}`, text);
  }
  put('summary.csv', suiteToCsv(results));
  return written;
}

export { safeName } from './file-names.ts';
