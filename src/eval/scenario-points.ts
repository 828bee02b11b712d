// The points of a scenario's picture (pure): each of our schemes (the mean
// over seeds, with the least and greatest seed), the paper's rows for the same
// systems, the included WebRTC calls with the paper's WebRTC row, the oracles.
// A scheme that showed no frame keeps its point (SSIM NaN): the picture draws
// it at the bottom edge with the reason.
import type { ScenarioPoint } from '../plots/scenario-layout.ts';
import type { IncludedRun } from './include.ts';
import type { Finished } from './finished.ts';
import { oracleRuleOf } from '../salsify/schemes/oracle.ts';
import { PAPER_SYSTEM, type PaperResults } from './paper-reference.ts';
import { groupBySchemes, meanSummary, seedSpread } from './seed-spread.ts';

export function scenarioPoints(scenario: string, finished: readonly Finished[], paper: PaperResults, included: readonly IncludedRun[] = []): ScenarioPoint[] {
  const groups = groupBySchemes(finished.filter((f) => f.run.scenario === scenario));
  const points: ScenarioPoint[] = [];
  for (const { scheme, runs } of groups) {
    const summaries = runs.map((f) => f.stored.result.summary);
    const mean = meanSummary(summaries);
    const spread = seedSpread(summaries);
    points.push({
      label: scheme, kind: oracleRuleOf(scheme) !== undefined ? 'oracle' : 'ours', runs: runs.length,
      p95DelayMs: mean.signalDelayMs.p95, ssimDb: mean.ssimDb.mean,
      ...(runs.length > 1 ? { spread: { p95DelayMs: spread.p95DelayMs, ssimDb: spread.ssimDb } } : {}),
    });
  }
  const schemes = groups.map((g) => g.scheme);
  const systems = new Set(schemes.map((s) => PAPER_SYSTEM[s]).filter((s) => s !== undefined));
  for (const row of paper.forScenario(scenario)) {
    if (!systems.has(row.system)) continue;
    const scheme = schemes.find((s) => PAPER_SYSTEM[s] === row.system)!;
    points.push({ label: scheme, kind: 'paper', p95DelayMs: row.delayP95Ms, ssimDb: row.ssimMeanDb });
  }
  const calls = included.filter((i) => i.scenario === scenario);
  for (const call of calls) points.push({ label: call.label, kind: 'ours', runs: 1, p95DelayMs: call.summary.signalDelayMs.p95, ssimDb: call.summary.ssimDb.mean ?? NaN });
  const webrtc = calls.length > 0 ? paper.forScheme(scenario, 'webrtc-like') : undefined;
  if (webrtc && !systems.has(webrtc.system)) points.push({ label: calls[0]!.label, kind: 'paper', p95DelayMs: webrtc.delayP95Ms, ssimDb: webrtc.ssimMeanDb });
  return points;
}
