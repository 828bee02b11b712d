// The eval's files built from the store: results.json, results.csv, the SVG
// plots (DIR/plots/) and report.html (every plot, the tables, each run's
// configuration and the command that reruns it). Rendering and writing only:
// the figures come from outputs.ts and the specifications from
// src/plots/eval-plots.ts.
import { join } from 'node:path';
import { scenarioSpec, seriesSpec, type ScenarioPoint } from '../plots/eval-plots.ts';
import { escapeHtml, renderHtml, renderSvg, type HtmlChart } from '../plots/render.ts';
import type { TableRow } from '../results/table.ts';
import { makeResultsDirectory, writeResultsFile } from '../results/writer.ts';
import { simPreset } from '../salsify/presets.ts';
import { writeFindings } from './findings-output.ts';
import { resultsCsv, resultsJson, tableRows, type Finished } from './outputs.ts';
import type { IncludedRun } from './include.ts';
import type { PaperResults } from './paper-reference.ts';
import { PAPER_SYSTEM } from './paper-reference.ts';

export interface ReportFiles {
  readonly json: string;
  readonly csv: string;
  readonly report: string;
  readonly plots: readonly string[];
}

/** A run's id as a file name: "att-lte/salsify-1/1" -> "att-lte_salsify-1_1". */
export function fileId(id: string): string {
  return id.replace(/\//g, '_');
}

/** The points of a scenario's picture: each of our schemes (mean over seeds), the paper's rows for the same systems, the oracle. */
export function scenarioPoints(scenario: string, finished: readonly Finished[], paper: PaperResults, included: readonly IncludedRun[] = []): ScenarioPoint[] {
  const ours = finished.filter((f) => f.run.scenario === scenario);
  const schemes = [...new Set(ours.map((f) => f.run.scheme))];
  const points: ScenarioPoint[] = [];
  for (const scheme of schemes) {
    const runs = ours.filter((f) => f.run.scheme === scheme).map((f) => f.stored.result.summary);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    points.push({
      label: scheme, kind: scheme === 'oracle' ? 'oracle' : 'ours',
      p95DelayMs: mean(runs.map((s) => s.signalDelayMs.p95)), ssimDb: mean(runs.map((s) => s.ssimDb.mean ?? NaN)),
    });
  }
  const systems = new Set(schemes.map((s) => PAPER_SYSTEM[s]).filter((s) => s !== undefined));
  for (const row of paper.forScenario(scenario)) {
    if (!systems.has(row.system)) continue;
    const scheme = schemes.find((s) => PAPER_SYSTEM[s] === row.system)!;
    points.push({ label: scheme, kind: 'paper', p95DelayMs: row.delayP95Ms, ssimDb: row.ssimMeanDb });
  }
  const calls = included.filter((i) => i.scenario === scenario);
  for (const call of calls) points.push({ label: call.label, kind: 'ours', p95DelayMs: call.summary.signalDelayMs.p95, ssimDb: call.summary.ssimDb.mean });
  const webrtc = calls.length > 0 ? paper.forScheme(scenario, 'webrtc-like') : undefined;
  if (webrtc && !systems.has(webrtc.system)) points.push({ label: calls[0]!.label, kind: 'paper', p95DelayMs: webrtc.delayP95Ms, ssimDb: webrtc.ssimMeanDb });
  return points;
}

function htmlTable(rows: readonly TableRow[]): string {
  const f = (x: number | null | undefined, d = 1) => (x === null || x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(d));
  const head = ['run', 'delay mean', 'p5', 'p95 (ms)', 'SSIM mean', 'p5', 'p95 (dB)', 'shown', 'lost', 'skipped', 'superseded', 'link use'];
  const body = rows.map(({ label, summary: s }) => [
    label, f(s.signalDelayMs.mean), f(s.signalDelayMs.p5), f(s.signalDelayMs.p95), f(s.ssimDb.mean, 2), f(s.ssimDb.p5, 2), f(s.ssimDb.p95, 2),
    f(s.framesShown, 0), f(s.framesLost, 0), f(s.framesSkipped, 0), f(s.framesSuperseded, 0), Number.isFinite(s.linkUtilization) ? `${f(100 * s.linkUtilization)} %` : '-',
  ]);
  const cells = (r: string[], tag: string) => `<tr>${r.map((c) => `<${tag}>${escapeHtml(c)}</${tag}>`).join('')}</tr>`;
  return `<table class="results">\n<thead>${cells(head, 'th')}</thead>\n<tbody>\n${body.map((r) => cells(r, 'td')).join('\n')}\n</tbody>\n</table>`;
}

export async function writeReport(dir: string, finished: readonly Finished[], paper: PaperResults, seeds: number, title: string, included: readonly IncludedRun[] = []): Promise<ReportFiles> {
  const plotsDir = join(dir, 'plots');
  makeResultsDirectory(plotsDir, '--out');
  const json = join(dir, 'results.json');
  const csv = join(dir, 'results.csv');
  writeResultsFile(json, resultsJson(finished));
  writeResultsFile(csv, resultsCsv(finished, paper));

  const charts: HtmlChart[] = [];
  const plots: string[] = [];
  const scenarios = [...new Set(finished.map((f) => f.run.scenario))];
  for (const scenario of scenarios) {
    const spec = scenarioSpec(`${scenario}: ${simPreset(scenario).label}`, scenarioPoints(scenario, finished, paper, included));
    charts.push({ title: `${scenario}: p95 signal delay against SSIM`, spec, svg: await renderSvg(spec) });
    plots.push(join(plotsDir, `scenario-${scenario}.svg`));
  }
  for (const { run, stored } of finished) {
    const w = stored.result.window as { fromMs: number; toMs: number } | undefined;
    const spec = seriesSpec(`${run.id}`, stored.series, w ? { fromS: w.fromMs / 1000, toS: w.toMs / 1000 } : undefined);
    charts.push({ title: `run ${run.id}`, spec, svg: await renderSvg(spec) });
    plots.push(join(plotsDir, `run-${fileId(run.id)}.svg`));
  }
  charts.forEach((c, i) => writeResultsFile(plots[i]!, c.svg!));

  const configs = finished.map(({ run }) => `<details id="config-${escapeHtml(fileId(run.id))}"><summary>${escapeHtml(run.id)} (hash ${run.hash})</summary>\n<pre class="command">${escapeHtml(run.command)}</pre>\n<pre class="config">${escapeHtml(JSON.stringify(run.key, null, 2))}</pre>\n</details>`);
  const preamble = [
    `<p>${finished.length} runs${included.length ? `, and ${included.length} WebRTC call${included.length > 1 ? 's' : ''} included (${included.map((i) => escapeHtml(i.source)).join(', ')})` : ''}. Rows marked "(paper)" are the published figures (${escapeHtml(paper.source ?? 'reference file not found')}). Files: <a href="results.json">results.json</a>, <a href="results.csv">results.csv</a>, <a href="plots/">plots/</a>.</p>`,
    '<h2>Results</h2>',
    htmlTable(tableRows(finished, paper, seeds, included)),
    writeFindings(dir, finished, paper, included),
    '<h2>Runs: configuration and the command that reruns each</h2>',
    configs.join('\n'),
    '<h2>Plots</h2>',
  ].join('\n');
  const report = join(dir, 'report.html');
  writeResultsFile(report, await renderHtml(title, charts, preamble));
  return { json, csv, report, plots };
}
