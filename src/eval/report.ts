// The eval's files built from the store: results.json, results.csv, the SVG
// plots (DIR/plots/) and report.html. The report is an ordered list of
// sections (REPORT_SECTIONS), each a function of the report's context: what
// was run and where (provenance), the results beside the paper's (with the
// spread across seeds and the invalid and degenerate runs marked), the
// findings, each scenario's delay/SSIM picture, each run's time series, and
// each run's configuration with the command that reruns it. Rendering and
// writing only: the figures come from outputs.ts, the points from
// scenario-points.ts and the specifications from src/plots/eval-plots.ts.
import { isAbsolute, join, relative } from 'node:path';
import { scenarioSpec, seriesSpec } from '../plots/eval-plots.ts';
import { chartSection, escapeHtml, renderPage, renderSvg, type HtmlChart } from '../plots/render.ts';
import { layoutScenario } from '../plots/scenario-layout.ts';
import type { TableRow } from '../results/table.ts';
import { makeResultsDirectory, writeResultsFile } from '../results/writer.ts';
import { findingsHtml, findingsReport, type FindingsReport } from './findings-output.ts';
import { jsonText } from '../results/json.ts';
import { INCLUDED_CALLS_DIFFER, type IncludedRun } from './include.ts';
import { resultsCsv, resultsJson, tableRows, type Finished } from './outputs.ts';
import type { PaperResults } from './paper-reference.ts';
import { provenanceHtml, type Provenance } from './provenance.ts';
import { scenarioPoints } from './scenario-points.ts';

export { scenarioPoints } from './scenario-points.ts';

export interface ReportFiles {
  readonly json: string;
  readonly csv: string;
  /** DIR/findings.json: the paper's findings computed from these results. */
  readonly findings: string;
  /** What findings.json holds, for the caller to print. */
  readonly findingsReport: FindingsReport;
  readonly report: string;
  readonly plots: readonly string[];
}

/** Everything a section of the report may draw on. */
export interface ReportContext {
  readonly dir: string;
  readonly finished: readonly Finished[];
  readonly paper: PaperResults;
  readonly seeds: number;
  readonly included: readonly IncludedRun[];
  /** Absent: no provenance block (a caller that has none to give). */
  readonly provenance?: Provenance;
  /** The charts, rendered, with the file each was written to (plots/). */
  readonly scenarioCharts: readonly HtmlChart[];
  readonly runCharts: readonly HtmlChart[];
  /** The paper's findings computed from the results (also written to findings.json). */
  readonly findings: FindingsReport;
}

export interface ReportSection {
  /** The section's id in the page (stable: links and tests use it). */
  readonly id: string;
  readonly html: (context: ReportContext) => string | Promise<string>;
}

/** A run's id as a file name: "att-lte/salsify-1/1" -> "att-lte_salsify-1_1". */
export function fileId(id: string): string {
  return id.replace(/\//g, '_');
}

/** A path as the report prints it: relative to the working directory, never the machine's absolute path. */
export function shownPath(path: string): string {
  if (!isAbsolute(path)) return path;
  const rel = relative(process.cwd(), path);
  return rel === '' ? '.' : rel;
}

const fmt = (x: number | null | undefined, d = 1) => (x === null || x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(d));
const range = (r: readonly [number, number] | undefined, d: number) => (!r ? '' : Number.isFinite(r[0]) ? `${fmt(r[0], d)}–${fmt(r[1], d)}` : '-');

function htmlTable(rows: readonly TableRow[]): string {
  const spread = rows.some((r) => r.spread);
  const head = ['run', 'delay mean', 'p5', 'p95 (ms)', ...(spread ? ['p95 across seeds'] : []), 'SSIM mean', 'p5', 'p95 (dB)', ...(spread ? ['SSIM across seeds'] : []),
    'shown', 'lost', 'skipped', 'superseded', 'link use', 'marks'];
  const body = rows.map((row) => {
    const s = row.summary;
    const marks = row.marks ?? [];
    const kind = marks.some((m) => m.kind === 'invalid') ? 'invalid' : marks.some((m) => m.kind === 'degenerate') ? 'degenerate' : row.label.endsWith('(paper)') ? 'paper' : '';
    const cells = [
      row.label, fmt(s.signalDelayMs.mean), fmt(s.signalDelayMs.p5), fmt(s.signalDelayMs.p95), ...(spread ? [range(row.spread?.p95DelayMs, 0)] : []),
      fmt(s.ssimDb.mean, 2), fmt(s.ssimDb.p5, 2), fmt(s.ssimDb.p95, 2), ...(spread ? [range(row.spread?.ssimDb, 2)] : []),
      fmt(s.framesShown, Number.isInteger(s.framesShown) ? 0 : 1), fmt(s.framesLost, Number.isInteger(s.framesLost) ? 0 : 1),
      fmt(s.framesSkipped, Number.isInteger(s.framesSkipped) ? 0 : 1), fmt(s.framesSuperseded, Number.isInteger(s.framesSuperseded) ? 0 : 1),
      Number.isFinite(s.linkUtilization) ? `${fmt(100 * s.linkUtilization)} %` : '-',
      marks.map((m) => `${m.kind}: ${m.text}`).join('; '),
    ];
    return `<tr${kind ? ` class="${kind}"` : ''}>${cells.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`;
  });
  return `<table class="results">\n<thead><tr>${head.map((c) => `<th>${escapeHtml(c)}</th>`).join('')}</tr></thead>\n<tbody>\n${body.join('\n')}\n</tbody>\n</table>`;
}

const summarySection: ReportSection = {
  id: 'summary',
  html: ({ finished, paper, seeds, included }) => {
    const calls = included.length ? `, and ${included.length} WebRTC call${included.length > 1 ? 's' : ''} included (${included.map((i) => escapeHtml(shownPath(i.source))).join(', ')}; ${escapeHtml(INCLUDED_CALLS_DIFFER)})` : '';
    const source = paper.source === null ? 'reference file not found' : shownPath(paper.source);
    return `<p>${finished.length} runs${seeds > 1 ? ` (${seeds} seeds each)` : ''}${calls}. Rows marked "(paper)" are the published figures (${escapeHtml(source)}). Files: <a href="results.json">results.json</a>, <a href="results.csv">results.csv</a>, <a href="plots/">plots/</a>.</p>`;
  },
};

const provenanceSection: ReportSection = { id: 'provenance', html: ({ provenance }) => (provenance ? provenanceHtml(provenance) : '') };

const resultsSection: ReportSection = {
  id: 'results',
  html: ({ finished, paper, seeds, included }) => {
    const rows = tableRows(finished, paper, seeds, included);
    const perSeed = seeds > 1 ? `\n<details><summary>every seed's run</summary>\n${htmlTable(tableRows(finished, paper, seeds, included, true))}\n</details>` : '';
    const spread = seeds > 1 ? ` Figures are the mean over the ${seeds} seeds; "across seeds" gives the least and greatest.` : '';
    return `<section id="results">\n<h2>Results</h2>\n<p class="marks">Marked rows: <span style="background:#fde0dd">invalid</span> (a figure is not what it claims, e.g. no frame was shown so the SSIM is unknown), <span style="background:#fff3cd">degenerate</span> (the scheme failed: its delay is off the scenario's scale, or almost no frame was shown); each with its reason in the last column.${spread}</p>\n${htmlTable(rows)}${perSeed}\n</section>`;
  },
};

const chartsSection = (id: string, heading: string, pick: (c: ReportContext) => readonly HtmlChart[], note = ''): ReportSection => ({
  id,
  html: async (context) => {
    const charts = pick(context);
    if (charts.length === 0) return '';
    const sections = await Promise.all(charts.map((c, i) => chartSection(c, `${id}-${i}`)));
    return `<section id="${id}">\n<h2>${escapeHtml(heading)}</h2>\n${note}${sections.join('\n')}\n</section>`;
  },
});

const scenariosSection = chartsSection('scenarios', 'Each scenario: p95 signal delay against mean SSIM', (c) => c.scenarioCharts,
  "<p>As the paper's figures: better is up and to the right (the delay axis is reversed, log scale). Every scheme is on the chart: one whose delay is off the scale sits at the left edge with its value, one that showed no frame at the bottom edge with the reason.</p>\n");
const runsSection = chartsSection('runs', 'Each run over time', (c) => c.runCharts,
  '<p>Capacity against the video sent and delivered (a sender above the capacity floods the queue), the signal delay, the SSIM of the frames shown (a gap: no frame shown in the bin) and the frames skipped and lost.</p>\n');

const configsSection: ReportSection = {
  id: 'configs',
  html: ({ finished }) => `<section id="configs">\n<h2>Runs: configuration and the command that reruns each</h2>\n${finished.map(({ run }) => `<details id="config-${escapeHtml(fileId(run.id))}"><summary>${escapeHtml(run.id)} (hash ${run.hash})</summary>\n<pre class="command">${escapeHtml(run.command)}</pre>\n<pre class="config">${escapeHtml(JSON.stringify(run.key, null, 2))}</pre>\n</details>`).join('\n')}\n</section>`,
};

/** The paper's findings computed from the results (findings-output.ts), as findings.json has them. */
const findingsSection: ReportSection = {
  id: 'findings',
  html: ({ findings }) => `<section id="findings">\n${findingsHtml(findings)}\n</section>`,
};

/** The report's sections, in order: the findings after the results and before the pictures. */
export const REPORT_SECTIONS: readonly ReportSection[] = [summarySection, provenanceSection, resultsSection, findingsSection, scenariosSection, runsSection, configsSection];

/** The notes under a scenario's picture: which points are not at their own place, and why. */
function scenarioNotes(chartPoints: ReturnType<typeof layoutScenario>): string {
  const moved = chartPoints.points.filter((p) => p.place !== 'plotted');
  if (moved.length === 0) return '';
  return `<ul class="marks">${moved.map((p) => `<li>${escapeHtml(p.kind === 'paper' ? `${p.label} (paper)` : p.label)}: ${p.place === 'off-scale' ? `p95 delay ${fmt(p.p95DelayMs, 0)} ms, off the scale (drawn at the left edge)` : `no frame shown, so no SSIM (drawn at the bottom edge; p95 delay ${fmt(p.p95DelayMs, 0)} ms)`}</li>`).join('')}</ul>\n`;
}

export interface ReportOptions {
  readonly included?: readonly IncludedRun[];
  readonly provenance?: Provenance;
}

export async function writeReport(dir: string, finished: readonly Finished[], paper: PaperResults, seeds: number, title: string, options: ReportOptions = {}): Promise<ReportFiles> {
  const included = options.included ?? [];
  const plotsDir = join(dir, 'plots');
  makeResultsDirectory(plotsDir, '--out');
  const json = join(dir, 'results.json');
  const csv = join(dir, 'results.csv');
  writeResultsFile(json, resultsJson(finished));
  writeResultsFile(csv, resultsCsv(finished, paper));
  const findings = findingsReport(finished, paper, included);
  const findingsFile = join(dir, 'findings.json');
  writeResultsFile(findingsFile, jsonText(findings));

  const plots: string[] = [];
  const scenarioCharts: (HtmlChart & { notes: string })[] = [];
  for (const { scenario, label } of findings.traces) {
    const points = scenarioPoints(scenario, finished, paper, included);
    const spec = scenarioSpec(`${scenario}: ${label}`, points);
    scenarioCharts.push({ title: `${scenario}: p95 signal delay against SSIM`, spec, svg: await renderSvg(spec), notes: scenarioNotes(layoutScenario(points)) });
    plots.push(join(plotsDir, `scenario-${scenario}.svg`));
  }
  const runCharts: HtmlChart[] = [];
  for (const { run, stored } of finished) {
    const w = stored.result.window as { fromMs: number; toMs: number } | undefined;
    const spec = seriesSpec(run.id, stored.series, {
      ...(w ? { window: { fromS: w.fromMs / 1000, toS: w.toMs / 1000 } } : {}),
      offPeriods: (stored.linkOffMs ?? []).map(([from, to]) => ({ fromS: from / 1000, toS: to / 1000 })),
    });
    runCharts.push({ title: `run ${run.id}`, spec, svg: await renderSvg(spec) });
    plots.push(join(plotsDir, `run-${fileId(run.id)}.svg`));
  }
  [...scenarioCharts, ...runCharts].forEach((c, i) => writeResultsFile(plots[i]!, c.svg!));

  // A scenario's notes go under its heading (the chart's caption).
  const withNotes: HtmlChart[] = scenarioCharts.map(({ notes, ...c }) => ({ ...c, caption: notes }));
  const context: ReportContext = { dir, finished, paper, seeds, included, provenance: options.provenance, scenarioCharts: withNotes, runCharts, findings };
  const body = (await Promise.all(REPORT_SECTIONS.map((s) => s.html(context)))).filter((h) => h !== '').join('\n');
  const report = join(dir, 'report.html');
  writeResultsFile(report, renderPage(title, body));
  return { json, csv, findings: findingsFile, findingsReport: findings, report, plots };
}
