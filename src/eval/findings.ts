// The Salsify paper's findings (NSDI 2018, section 5), each as a statement
// checked on two tables of figures: the paper's (its results CSV, and two
// figures of its per-frame analysis) and ours (an eval's results). Each
// finding gives the paper's figures, ours, and a verdict: "holds" when our
// figures go the way the statement says in every scenario where we have
// them, "does not hold" when any goes the other way, "not tested" when we
// ran none of them. Pure: figures in, findings out (findings-output.ts
// builds the tables from an eval and writes findings.json and the report's
// section).

import { standInScenarios, type ScenarioTrace } from './scenario-traces.ts';

export type Verdict = 'holds' | 'does not hold' | 'not tested';

/** One scheme's figures in one scenario (ours: the mean over seeds). */
export interface Figures {
  readonly delayMeanMs: number;
  readonly delayP5Ms: number;
  readonly delayP95Ms: number;
  readonly ssimDb: number;
  /** From a run's frames (late-frames.ts): absent for the paper's CSV rows and runs stored without it. */
  readonly framesOver1s?: number;
  readonly framesOver1sShown?: number;
  readonly longestUnshownMs?: number;
}

/** Figures by "scenario/scheme" (our scheme names; 'webrtc' for a real WebRTC call). */
export type FigureTable = ReadonlyMap<string, Figures>;

export interface Finding {
  readonly id: string;
  readonly statement: string;
  /** The paper's figures the statement rests on. */
  readonly paper: string;
  /** Ours, for the same comparisons. */
  readonly ours: string;
  readonly verdict: Verdict;
}

/** From the paper's per-frame analysis (excamera/salsify-results, Verizon-LTE-driving runs; ../shared/reference/README.md), not its CSV. */
export const PAPER_CONVENTIONAL_LATE_SHARE = 0.29;
export const PAPER_TARGETSIZE_LONGEST_STALL_MS = 7300;

/** Scenarios in which the paper's figures are compared (the rows of its CSV for our schemes). */
export const PAPER_SCENARIOS = ['att-lte', 'verizon-lte', 'tmobile-umts', 'on-off', 'wifi', 'buffer-64', 'buffer-256', 'buffer-1024'] as const;

const key = (scenario: string, scheme: string) => `${scenario}/${scheme}`;
const ms = (x: number) => (Number.isFinite(x) ? `${Math.round(x)}` : '-');
const db = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '-');
const pct = (x: number) => (Number.isFinite(x) ? `${Math.round(100 * x)} %` : '-');

/** How our figures name a scenario: with the stand-in trace it ran, where it ran one ("verizon-lte (stand-in Verizon-LTE-short)"). */
type ScenarioName = (scenario: string) => string;
function scenarioNamer(traces: readonly ScenarioTrace[]): ScenarioName {
  const standIns = new Map(traces.filter((t) => t.standInFor !== undefined).map((t) => [t.scenario, t.trace]));
  return (scenario) => (standIns.has(scenario) ? `${scenario} (stand-in ${standIns.get(scenario)})` : scenario);
}

interface Pair {
  readonly scenario: string;
  readonly a: Figures;
  readonly b: Figures;
}

/** The scenarios where a table has both schemes' figures. */
function pairs(table: FigureTable, a: string, b: string, scenarios: readonly string[]): Pair[] {
  const out: Pair[] = [];
  for (const scenario of scenarios) {
    const fa = table.get(key(scenario, a));
    const fb = table.get(key(scenario, b));
    if (fa && fb) out.push({ scenario, a: fa, b: fb });
  }
  return out;
}

/**
 * A finding that compares scheme `a` with `b` scenario by scenario: `test`
 * says whether a pair goes the statement's way (given the paper's pair of the
 * same scenario, for statements about a direction), `show` prints a pair. Our
 * scenarios are those where the paper has the pair too.
 */
function pairwise(
  id: string, statement: string, paper: FigureTable, ours: FigureTable, a: string, b: string, scenarios: readonly string[],
  test: (pair: Pair, paperPair: Pair) => boolean, show: (pair: Pair) => string, name: ScenarioName = (x) => x,
): Finding {
  const theirs = pairs(paper, a, b, scenarios);
  const mine = pairs(ours, a, b, theirs.map((p) => p.scenario));
  const failed = mine.filter((p) => !test(p, theirs.find((t) => t.scenario === p.scenario)!));
  const verdict: Verdict = mine.length === 0 ? 'not tested' : failed.length === 0 ? 'holds' : 'does not hold';
  const list = (ps: readonly Pair[], named: ScenarioName) => ps.map((p) => `${named(p.scenario)}: ${show(p)}`).join('; ');
  const note = failed.length > 0 ? ` (${mine.length - failed.length} of ${mine.length} scenarios; not in ${failed.map((p) => p.scenario).join(', ')})` : '';
  return { id, statement, paper: list(theirs, (x) => x), ours: mine.length === 0 ? 'not run' : list(mine, name) + note, verdict };
}

const within = (x: number, reference: number, share: number) => Math.abs(x - reference) <= share * Math.abs(reference);

/** Every finding, in the paper's order; `traces` (scenario-traces.ts) says where ours ran a stand-in for the paper's trace. */
export function evaluateFindings(paper: FigureTable, ours: FigureTable, traces: readonly ScenarioTrace[] = []): Finding[] {
  const all = PAPER_SCENARIOS;
  const name = scenarioNamer(traces);
  const verizon = ['verizon-lte'];
  const delays = (p: Pair) => `mean ${ms(p.a.delayMeanMs)} vs ${ms(p.b.delayMeanMs)}, p5 ${ms(p.a.delayP5Ms)} vs ${ms(p.b.delayP5Ms)}`;
  const p95s = (p: Pair) => `p95 ${ms(p.a.delayP95Ms)} vs ${ms(p.b.delayP95Ms)}`;
  const ssims = (p: Pair) => `SSIM ${db(p.a.ssimDb)} vs ${db(p.b.ssimDb)} dB`;
  return [
    pairwise('s2-lower-delay', 'Salsify-2 has lower mean and p5 signal delay than Salsify-1 (Salsify-2 vs Salsify-1, ms)',
      paper, ours, 'salsify-2', 'salsify-1', all,
      (p) => p.a.delayMeanMs < p.b.delayMeanMs && p.a.delayP5Ms < p.b.delayP5Ms, delays, name),
    pairwise('s2-p95-direction', "Salsify-2's p95 delay is above Salsify-1's where the paper's is (verizon, tmobile, buffer-256, buffer-1024) and below it elsewhere",
      paper, ours, 'salsify-2', 'salsify-1', all,
      (p, t) => (p.a.delayP95Ms > p.b.delayP95Ms) === (t.a.delayP95Ms > t.b.delayP95Ms), p95s, name),
    pairwise('s1-s2-same-ssim', 'Salsify-1 and Salsify-2 have the same SSIM (within 0.5 dB)',
      paper, ours, 'salsify-2', 'salsify-1', all,
      (p) => Math.abs(p.a.ssimDb - p.b.ssimDb) <= 0.5, ssims, name),
    pairwise('s4-close-to-s2', "Salsify-4 is close to Salsify-2: mean and p95 delay within a quarter of Salsify-2's, SSIM within 0.5 dB",
      paper, ours, 'salsify-4', 'salsify-2', all,
      (p) => within(p.a.delayMeanMs, p.b.delayMeanMs, 0.25) && within(p.a.delayP95Ms, p.b.delayP95Ms, 0.25) && Math.abs(p.a.ssimDb - p.b.ssimDb) <= 0.5,
      (p) => `mean ${ms(p.a.delayMeanMs)} vs ${ms(p.b.delayMeanMs)}, ${p95s(p)}, ${ssims(p)}`, name),
    pairwise('conventional-worse', 'Salsify-conventional-1s has higher mean and p95 delay and lower SSIM than Salsify-1',
      paper, ours, 'conventional-1s', 'salsify-1', verizon,
      (p) => p.a.delayMeanMs > p.b.delayMeanMs && p.a.delayP95Ms > p.b.delayP95Ms && p.a.ssimDb < p.b.ssimDb,
      (p) => `mean ${ms(p.a.delayMeanMs)} vs ${ms(p.b.delayMeanMs)}, ${p95s(p)}, ${ssims(p)}`, name),
    conventionalShowsLate(ours, name),
    pairwise('nograce', 'Salsify-nograce has lower mean delay than Salsify-1 at far lower SSIM (more than 3 dB lower)',
      paper, ours, 'salsify-nograce', 'salsify-1', verizon,
      (p) => p.a.delayMeanMs < p.b.delayMeanMs && p.a.ssimDb < p.b.ssimDb - 3,
      (p) => `mean ${ms(p.a.delayMeanMs)} vs ${ms(p.b.delayMeanMs)}, ${ssims(p)}`, name),
    pairwise('targetsize', "Salsify-targetsize has a mean delay about Salsify-1's (within a quarter), a higher p95 and a lower SSIM",
      paper, ours, 'salsify-targetsize', 'salsify-1', verizon,
      (p) => within(p.a.delayMeanMs, p.b.delayMeanMs, 0.25) && p.a.delayP95Ms > p.b.delayP95Ms && p.a.ssimDb < p.b.ssimDb,
      (p) => `mean ${ms(p.a.delayMeanMs)} vs ${ms(p.b.delayMeanMs)}, ${p95s(p)}, ${ssims(p)}`, name),
    targetsizeRecovers(ours, name),
    bufferSweep(paper, ours, 'buffer', verizonSweepTrace(traces)),
    bufferSweep(paper, ours, 'att-lte', 'ATT-LTE-driving'),
    bufferSweep(paper, ours, 'tmobile-umts', 'TMobile-UMTS-driving'),
    pairwise('wifi-onoff-orderings', 'On the wifi (4.8 % loss) and on-off links Salsify-2 has lower mean, p5 and p95 delay than Salsify-1',
      paper, ours, 'salsify-2', 'salsify-1', ['on-off', 'wifi'],
      (p) => p.a.delayMeanMs < p.b.delayMeanMs && p.a.delayP5Ms < p.b.delayP5Ms && p.a.delayP95Ms < p.b.delayP95Ms,
      (p) => `${delays(p)}, ${p95s(p)}`, name),
    pairwise('salsify-vs-webrtc', "Salsify-1 against WebRTC: p95 delay and SSIM each on the paper's side (measured: a real WebRTC call included with --include)",
      paper, ours, 'salsify-1', 'webrtc', all,
      (p, t) => (p.a.delayP95Ms < p.b.delayP95Ms) === (t.a.delayP95Ms < t.b.delayP95Ms) && (p.a.ssimDb > p.b.ssimDb) === (t.a.ssimDb > t.b.ssimDb),
      (p) => `${p95s(p)}, ${ssims(p)}`, name),
  ];
}

/** conventional-1s queued and showed late: the share of its >1 s frames that were shown (the paper's analysis: 29 %), ours within a quarter of it. */
function conventionalShowsLate(ours: FigureTable, name: ScenarioName): Finding {
  const statement = 'Salsify-conventional-1s queues and shows late: of its frames with more than 1 s of signal delay, the share shown (not lost) is within a quarter of the paper\'s';
  const paper = `verizon-lte: ${pct(PAPER_CONVENTIONAL_LATE_SHARE)} (per-frame analysis)`;
  const f = ours.get(key('verizon-lte', 'conventional-1s'));
  if (f?.framesOver1s === undefined || f.framesOver1sShown === undefined) return { id: 'conventional-shows-late', statement, paper, ours: 'not run', verdict: 'not tested' };
  const share = f.framesOver1s === 0 ? NaN : f.framesOver1sShown / f.framesOver1s;
  const holds = Number.isFinite(share) && within(share, PAPER_CONVENTIONAL_LATE_SHARE, 0.25);
  return {
    id: 'conventional-shows-late', statement, paper,
    ours: `${name('verizon-lte')}: ${pct(share)} (${f.framesOver1sShown} of ${f.framesOver1s} frames)`, verdict: holds ? 'holds' : 'does not hold',
  };
}

/** targetsize stalled and always recovered: its longest run of unshown frames (paper 7.3 s) at most twice the paper's. */
function targetsizeRecovers(ours: FigureTable, name: ScenarioName): Finding {
  const statement = "Salsify-targetsize stalls for seconds and recovers: its longest run of frames not shown is at most twice the paper's";
  const paper = `verizon-lte: ${(PAPER_TARGETSIZE_LONGEST_STALL_MS / 1000).toFixed(1)} s (per-frame analysis)`;
  const f = ours.get(key('verizon-lte', 'salsify-targetsize'));
  if (f?.longestUnshownMs === undefined) return { id: 'targetsize-recovers', statement, paper, ours: 'not run', verdict: 'not tested' };
  return {
    id: 'targetsize-recovers', statement, paper, ours: `${name('verizon-lte')}: ${(f.longestUnshownMs / 1000).toFixed(1)} s`,
    verdict: f.longestUnshownMs <= 2 * PAPER_TARGETSIZE_LONGEST_STALL_MS ? 'holds' : 'does not hold',
  };
}

/** The trace of our Verizon buffer sweep as its statement names it: the paper's, or the stand-in ours ran. */
function verizonSweepTrace(traces: readonly ScenarioTrace[]): string {
  const standIn = traces.find((t) => t.scenario.startsWith('buffer-') && t.standInFor !== undefined);
  return standIn ? `Verizon; ours on the stand-in ${standIn.trace}` : 'Verizon-LTE-driving';
}

/**
 * The buffer sweep: Salsify-1's p95 is highest with 64 packets, by more than a
 * quarter over 256 and 1024 (paper, Verizon: 1211 / 684 / 849 ms). On the
 * Verizon trace or its stand-in (presets buffer-N) and, beyond the paper, on att-lte-N and
 * tmobile-umts-N, whose fades fill a 64-packet queue.
 */
function bufferSweep(paper: FigureTable, ours: FigureTable, prefix: string, trace: string): Finding {
  const sizes = [64, 256, 1024].map((n) => `${prefix}-${n}`);
  const statement = `Salsify-1's p95 delay is highest with a 64-packet drop-tail buffer, more than a quarter above its p95 at 256 and 1024 packets (${trace})`;
  const p95 = (t: FigureTable) => sizes.map((s) => t.get(key(s, 'salsify-1'))?.delayP95Ms);
  const show = (xs: (number | undefined)[]) => `p95 ${xs.map((x) => (x === undefined ? '-' : ms(x))).join(' / ')} ms at 64 / 256 / 1024 packets`;
  const mine = p95(ours);
  const [b64, b256, b1024] = mine;
  const verdict: Verdict = b64 === undefined || b256 === undefined || b1024 === undefined ? 'not tested'
    : b64 > 1.25 * b256 && b64 > 1.25 * b1024 ? 'holds' : 'does not hold';
  const paperSweep = p95(paper).every((x) => x !== undefined) ? show(p95(paper)) : `not run (its Verizon sweep: ${show(['buffer-64', 'buffer-256', 'buffer-1024'].map((s) => paper.get(key(s, 'salsify-1'))?.delayP95Ms))})`;
  return { id: prefix === 'buffer' ? 'buffer-sweep' : `buffer-sweep-${prefix}`, statement, paper: paperSweep, ours: verdict === 'not tested' ? 'not run' : show(mine), verdict };
}

/** How close our figures come to the paper's, row by row (the targets). */
export interface Agreement {
  /** Of the delay figures (mean, p5, p95) of the rows both tables have, those within a quarter of the paper's. */
  readonly delayWithinQuarter: number;
  readonly delayFigures: number;
  /** Of the rows both have (with a Salsify-1 row in the scenario on each side), those whose SSIM difference to Salsify-1 is within 1 dB of the paper's. */
  readonly ssimDiffWithin1Db: number;
  readonly ssimRows: number;
  /** The rows compared ("scenario/scheme"). */
  readonly rows: readonly string[];
  /** Those of them whose run ran a stand-in for the paper's trace. */
  readonly standInRows: readonly string[];
}

export function figureAgreement(paper: FigureTable, ours: FigureTable, traces: readonly ScenarioTrace[] = []): Agreement {
  const standIns = standInScenarios(traces);
  let delayWithinQuarter = 0;
  let delayFigures = 0;
  let ssimDiffWithin1Db = 0;
  let ssimRows = 0;
  const rows: string[] = [];
  for (const [k, theirs] of paper) {
    const mine = ours.get(k);
    if (!mine || k.endsWith('/webrtc')) continue;
    rows.push(k);
    for (const f of ['delayMeanMs', 'delayP5Ms', 'delayP95Ms'] as const) {
      delayFigures++;
      if (within(mine[f], theirs[f], 0.25)) delayWithinQuarter++;
    }
    const scenario = k.slice(0, k.indexOf('/'));
    const theirS1 = paper.get(key(scenario, 'salsify-1'));
    const myS1 = ours.get(key(scenario, 'salsify-1'));
    if (theirS1 && myS1) {
      ssimRows++;
      if (Math.abs((mine.ssimDb - myS1.ssimDb) - (theirs.ssimDb - theirS1.ssimDb)) <= 1) ssimDiffWithin1Db++;
    }
  }
  const standInRows = rows.filter((k) => standIns.has(k.slice(0, k.indexOf('/'))));
  return { delayWithinQuarter, delayFigures, ssimDiffWithin1Db, ssimRows, rows, standInRows };
}
