// The findings of an eval (findings.ts) as the tools give them: the figure
// tables built from the eval's stored runs and the paper's CSV, findings.json,
// the text table printed after the results, and the report's HTML section.
import { escapeHtml } from '../plots/render.ts';
import type { Summary } from '../results/summary.ts';
import { evaluateFindings, figureAgreement, type Agreement, type Figures, type FigureTable, type Finding } from './findings.ts';
import type { IncludedRun } from './include.ts';
import type { Finished } from './outputs.ts';
import { PAPER_SYSTEM, type PaperResults } from './paper-reference.ts';
import { scenarioTraces, type ScenarioTrace } from './scenario-traces.ts';

export interface FindingsReport {
  /** The trace each scenario's runs ran, and where it was a stand-in for the paper's. */
  readonly traces: readonly ScenarioTrace[];
  readonly findings: readonly Finding[];
  readonly agreement: Agreement;
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

function summaryFigures(s: Summary): Figures {
  return { delayMeanMs: s.signalDelayMs.mean, delayP5Ms: s.signalDelayMs.p5, delayP95Ms: s.signalDelayMs.p95, ssimDb: s.ssimDb.mean ?? NaN };
}

/** Our figures: each scenario and scheme's mean over its seeds (late-frame counts summed, the longest stall the longest), and each included WebRTC call as 'webrtc'. */
export function ourFigures(finished: readonly Finished[], included: readonly IncludedRun[] = []): FigureTable {
  const groups = new Map<string, Finished[]>();
  for (const f of finished) {
    const k = `${f.run.scenario}/${f.run.scheme}`;
    groups.set(k, [...(groups.get(k) ?? []), f]);
  }
  const table = new Map<string, Figures>();
  for (const [k, runs] of groups) {
    const figures = runs.map((r) => summaryFigures(r.stored.result.summary));
    const late = runs.map((r) => r.stored.lateFrames);
    const complete = late.every((l) => l !== undefined);
    table.set(k, {
      delayMeanMs: mean(figures.map((f) => f.delayMeanMs)), delayP5Ms: mean(figures.map((f) => f.delayP5Ms)),
      delayP95Ms: mean(figures.map((f) => f.delayP95Ms)), ssimDb: mean(figures.map((f) => f.ssimDb)),
      ...(complete ? {
        framesOver1s: late.reduce((n, l) => n + l!.framesOver1s, 0), framesOver1sShown: late.reduce((n, l) => n + l!.framesOver1sShown, 0),
        longestUnshownMs: Math.max(...late.map((l) => l!.longestUnshownMs)),
      } : {}),
    });
  }
  for (const call of included) if (call.scenario !== null) table.set(`${call.scenario}/webrtc`, summaryFigures(call.summary));
  return table;
}

/** The paper's figures under our scheme names ('webrtc' for its WebRTC rows). */
export function paperFigures(paper: PaperResults): FigureTable {
  const schemeOf = new Map(Object.entries(PAPER_SYSTEM).map(([scheme, system]) => [system, scheme === 'webrtc-like' ? 'webrtc' : scheme]));
  const table = new Map<string, Figures>();
  for (const r of paper.rows) {
    const scheme = schemeOf.get(r.system);
    if (scheme !== undefined) table.set(`${r.scenario}/${scheme}`, { delayMeanMs: r.delayMeanMs, delayP5Ms: r.delayP5Ms, delayP95Ms: r.delayP95Ms, ssimDb: r.ssimMeanDb });
  }
  return table;
}

export function findingsReport(finished: readonly Finished[], paper: PaperResults, included: readonly IncludedRun[] = []): FindingsReport {
  const theirs = paperFigures(paper);
  const ours = ourFigures(finished, included);
  const traces = scenarioTraces(finished);
  return { traces, findings: evaluateFindings(theirs, ours, traces), agreement: figureAgreement(theirs, ours, traces) };
}

function agreementLine(a: Agreement): string {
  const standIn = a.standInRows.length === 0 ? '' : ` (${a.standInRows.length} of the ${a.rows.length} rows ran a stand-in trace: ${a.standInRows.join(', ')})`;
  return `agreement with the paper's rows: ${a.delayWithinQuarter} of ${a.delayFigures} delay figures (mean, p5, p95) within a quarter; `
    + `${a.ssimDiffWithin1Db} of ${a.ssimRows} rows with an SSIM difference to Salsify-1 within 1 dB of the paper's${standIn}`;
}

/** Which trace each scenario ran: "verizon-lte Verizon-LTE-driving; buffer-64 Verizon-LTE-short (stand-in for Verizon-LTE-driving)". */
export function tracesLine(traces: readonly ScenarioTrace[]): string {
  return `traces run: ${traces.map((t) => `${t.scenario} ${t.trace}${t.standInFor ? ` (stand-in for ${t.standInFor})` : ''}`).join('; ')}`;
}

/** The findings as printed text: which traces ran, then one block per finding. */
export function findingsText(report: FindingsReport): string {
  const blocks = report.findings.map((f) => `[${f.verdict}] ${f.id}: ${f.statement}\n    paper: ${f.paper}\n    ours:  ${f.ours}`);
  const why = differsLine(report.findings);
  return `The paper's findings (${tracesLine(report.traces)}):\n${blocks.join('\n')}\n${why === '' ? '' : `${why}\n`}${agreementLine(report.agreement)}\n`;
}

/** Where the mechanism of each finding that does not hold is written down: a page and its list, an item per finding id. */
export const FINDINGS_EXPLAINED = { page: 'docs/paper-reproduction.md', section: 'Why each finding that does not hold differs' } as const;

/** The line naming the findings that do not hold and where each is explained ('' when none fails). */
function differsLine(findings: readonly Finding[]): string {
  const failing = findings.filter((f) => f.verdict === 'does not hold').map((f) => f.id);
  return failing.length === 0 ? '' : `why ours differs (${failing.join(', ')}): ${FINDINGS_EXPLAINED.page}, "${FINDINGS_EXPLAINED.section}", by id`;
}

/** The report's findings section. */
export function findingsHtml(report: FindingsReport): string {
  const why = differsLine(report.findings);
  const cls = (v: string) => v.replace(/ /g, '-');
  const rows = report.findings.map((f) => `<tr class="${cls(f.verdict)}" id="finding-${escapeHtml(f.id)}"><td><code>${escapeHtml(f.id)}</code> ${escapeHtml(f.statement)}</td><td>${escapeHtml(f.paper)}</td><td>${escapeHtml(f.ours)}</td><td>${escapeHtml(f.verdict)}</td></tr>`);
  return [
    '<h2>The paper\'s findings</h2>',
    '<p>Computed from these results (<a href="findings.json">findings.json</a>): "holds" when ours go the statement\'s way in every scenario we ran, "not tested" when we ran none.</p>',
    `<p class="traces">${escapeHtml(tracesLine(report.traces))}.</p>`,
    '<table class="findings">\n<thead><tr><th>finding</th><th>paper</th><th>ours</th><th>verdict</th></tr></thead>\n<tbody>',
    ...rows,
    '</tbody>\n</table>',
    ...(why === '' ? [] : [`<p>${escapeHtml(why)}.</p>`]),
    `<p>${escapeHtml(agreementLine(report.agreement))}.</p>`,
  ].join('\n');
}
