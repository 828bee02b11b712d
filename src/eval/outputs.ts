// What an eval writes from the store (pure text builders; the command writes
// them): results.json (every stored run, in the run list's order),
// results.csv (one row per run: its config, summary, counters and the
// paper's figures for that scenario and system), and the table printed with
// the paper's row under each of ours.
import { csvLine, SUMMARY_COLUMNS, type Cell } from '../results/csv.ts';
import { jsonText } from '../results/json.ts';
import type { Summary } from '../results/summary.ts';
import { formatResultsTable, type RowMark, type TableOptions, type TableRow } from '../results/table.ts';
import { offScaleLimit } from '../plots/scenario-layout.ts';
import { runMarks } from './run-marks.ts';
import { validityMarks } from '../results/marks.ts';
import { scenarioPoints } from './scenario-points.ts';
import { groupBySchemes, meanSummary, seedSpread } from './seed-spread.ts';
import { schemeRowLabel } from '../salsify/schemes/registry.ts';
import type { IncludedRun } from './include.ts';
import { otherTrafficText } from '../salsify/other-traffic.ts';
import type { PaperResults, PaperRow } from './paper-reference.ts';
import type { Finished } from './finished.ts';

export type { Finished } from './finished.ts';

export function resultsJson(finished: readonly Finished[]): string {
  return jsonText(finished.map((f) => f.stored));
}

/** Nested objects as flat `a.b.c` keys, in their own order. */
function flatten(value: unknown, prefix: string, out: [string, Cell][]): [string, Cell][] {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else if (Array.isArray(value)) {
    out.push([prefix, value.join(' ')]);
  } else {
    out.push([prefix, value === null ? undefined : (value as Cell)]);
  }
  return out;
}

const CONFIG_COLUMNS = [
  'scenario', 'scheme', 'seed', 'codec', 'encode_timing', 'video', 'duration_s', 'measure_from_s', 'measure_for_s',
  'downlink', 'uplink', 'queue', 'queue_args', 'delay_ms', 'downlink_loss', 'downlink_loss_at', 'downlink_onoff', 'mtu', 'overhead_bytes',
  'downlink_other_traffic',
] as const;
const PAPER_COLUMNS = ['paper_system', 'paper_delay_mean_ms', 'paper_delay_p5_ms', 'paper_delay_p95_ms', 'paper_ssim_mean_db', 'paper_ssim_p5_db', 'paper_ssim_p95_db'] as const;

function summaryCells(s: Summary): Cell[] {
  return [
    s.signalDelayMs.mean, s.signalDelayMs.p5, s.signalDelayMs.p95, s.ssimDb.mean, s.ssimDb.p5, s.ssimDb.p95,
    s.framesCaptured, s.framesSent, s.framesShown, s.framesNeverShown, s.framesLost, s.framesSkipped, s.framesSuperseded,
    s.framesNotCaughtUp, s.bytesSent, s.linkUtilization,
  ].map((v) => (v === null ? undefined : v));
}

export function resultsCsv(finished: readonly Finished[], paper: PaperResults): string {
  if (finished.length === 0) return '';
  const counterNames = flatten(finished[0]!.stored.result.counters, '', []).map(([k]) => `counters.${k}`);
  const head = ['index', 'id', 'hash', ...CONFIG_COLUMNS, ...SUMMARY_COLUMNS.slice(1), ...counterNames, ...PAPER_COLUMNS];
  const lines = [head.join(',')];
  for (const { run, stored } of finished) {
    const c = run.config;
    const onOff = c.downlinkOnOff ? `${c.downlinkOnOff.meanOnMs},${c.downlinkOnOff.meanOffMs}` : undefined;
    const other = c.downlinkOtherTraffic ? otherTrafficText(c.downlinkOtherTraffic) : undefined;
    const link = (l: typeof c.downlink) => (typeof l === 'string' ? l : `const:${l.constantMbps}`);
    const counters = new Map(flatten(stored.result.counters, '', []));
    const p = paper.forScheme(run.scenario, run.scheme);
    lines.push(csvLine([
      run.index, run.id, run.hash,
      run.scenario, run.scheme, run.seed, c.codec, c.encodeTiming ?? 'libvpx', c.video, c.durationS, c.measureFromS, c.measureForS,
      link(c.downlink), link(c.uplink), c.queue, c.queueArgs, c.delayMs, c.downlinkLoss, c.downlinkLossAt, onOff, c.mtu, c.overheadBytes, other,
      ...summaryCells(stored.result.summary),
      ...counterNames.map((k) => counters.get(k.slice('counters.'.length))),
      p?.system, p?.delayMeanMs, p?.delayP5Ms, p?.delayP95Ms, p?.ssimMeanDb, p?.ssimP5Db, p?.ssimP95Db,
    ]));
  }
  return lines.join('\n') + '\n';
}

/** The paper's row as a summary whose counts are unknown (the table prints them as '-'). */
function paperSummary(p: PaperRow): Summary {
  return {
    signalDelayMs: { mean: p.delayMeanMs, p5: p.delayP5Ms, p95: p.delayP95Ms },
    ssimDb: { mean: p.ssimMeanDb, p5: p.ssimP5Db, p95: p.ssimP95Db },
    framesCaptured: NaN, framesSent: NaN, framesShown: NaN, framesNeverShown: NaN, framesLost: NaN,
    framesSkipped: NaN, framesSuperseded: NaN, framesNotCaughtUp: NaN, bytesSent: NaN, linkUtilization: NaN,
  };
}

/** Our runs (by default, with more than one seed: one row per scenario and scheme, the mean over seeds with their spread; `perSeed`: every run), each followed by the paper's row for the same scenario and system when it has one; then the included WebRTC calls, each with the paper's WebRTC row. Every row carries its marks (run-marks.ts). */
export function tableRows(finished: readonly Finished[], paper: PaperResults, seeds: number, included: readonly IncludedRun[] = [], perSeed = false): TableRow[] {
  const rows: TableRow[] = [];
  const limits = offScaleLimits(finished, paper, included);
  const marks = (scenario: string, s: Summary) => runMarks(s, limits.get(scenario) ?? Infinity);
  const paperRow = (scenario: string, scheme: string) => {
    const p = paper.forScheme(scenario, scheme);
    if (p) rows.push({ label: `${scenario} ${p.system} (paper)`, summary: paperSummary(p) });
  };
  if (seeds > 1 && !perSeed) {
    for (const { scenario, scheme, runs } of groupBySchemes(finished)) {
      const summaries = runs.map((f) => f.stored.result.summary);
      const summary = meanSummary(summaries);
      rows.push({ label: `${scenario} ${schemeRowLabel(scheme)}`, summary, spread: seedSpread(summaries), marks: seedMarks(runs.map((f) => ({ seed: f.run.seed, marks: marks(scenario, f.stored.result.summary) }))) });
      paperRow(scenario, scheme);
    }
  } else {
    for (const { run, stored } of finished) {
      rows.push({ label: `${run.scenario} ${schemeRowLabel(run.scheme)}${seeds > 1 ? ` seed ${run.seed}` : ''}`, summary: stored.result.summary, marks: marks(run.scenario, stored.result.summary) });
      if (run.seed === seeds) paperRow(run.scenario, run.scheme);
    }
  }
  for (const inc of included) {
    rows.push({ label: `${inc.scenario ?? '(no scenario)'} ${inc.label}`, summary: inc.summary, marks: [...marks(inc.scenario ?? '', inc.summary), ...validityMarks(inc.validity)] });
    const p = inc.scenario === null ? undefined : paper.forScheme(inc.scenario, 'webrtc-like');
    if (p) rows.push({ label: `${inc.scenario} ${p.system} (paper)`, summary: paperSummary(p) });
  }
  return rows;
}

/** The marks of a scheme's seeds as one list: each text once, with the seeds it holds for ("every seed" when all). */
export function seedMarks(seeds: readonly { seed: number; marks: readonly RowMark[] }[]): RowMark[] {
  const byText = new Map<string, { mark: RowMark; seeds: number[] }>();
  for (const { seed, marks } of seeds) {
    for (const m of marks) {
      const key = `${m.kind}\u0000${m.text}`;
      const entry = byText.get(key) ?? { mark: m, seeds: [] };
      entry.seeds.push(seed);
      byText.set(key, entry);
    }
  }
  const which = (list: number[]) => (list.length === seeds.length ? 'every seed' : `seed${list.length > 1 ? 's' : ''} ${list.join(', ')}`);
  return [...byText.values()].map(({ mark, seeds: list }) => ({ kind: mark.kind, text: `${which(list)}: ${mark.text}` }));
}

/** Per scenario, the p95 delay beyond which a run is drawn off its picture's scale (scenario-layout.ts): the same points the picture has. */
export function offScaleLimits(finished: readonly Finished[], paper: PaperResults, included: readonly IncludedRun[] = []): Map<string, number> {
  const limits = new Map<string, number>();
  for (const scenario of new Set(finished.map((f) => f.run.scenario))) {
    limits.set(scenario, offScaleLimit(scenarioPoints(scenario, finished, paper, included)));
  }
  return limits;
}

export function resultsTable(finished: readonly Finished[], paper: PaperResults, seeds: number, included: readonly IncludedRun[] = [], options: TableOptions = {}): string {
  return formatResultsTable(tableRows(finished, paper, seeds, included, options.wide), options);
}
