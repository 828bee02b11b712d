// Pass or fail of a case: its checks (cases.ts) against thresholds. The
// defaults below are documented (README, `ccbench rfc8867 --help`) and the
// user overrides any of them with a JSON file (`--thresholds FILE`):
//   { "utilisationMin": 0.5, "5.4": { "fairnessMin": 0.9 } }
// top-level keys apply to every case, a case id's object to that case only.
import { readFileSync } from 'node:fs';
import { toolkitError, unreadableFile } from '../../common/errors.ts';
import type { CaseMetrics } from '../metrics/rfc8868.ts';
import { CASE_ALIASES, CASE_IDS, type CheckName, type Rfc8867Case } from './cases.ts';

export interface Thresholds {
  /** The media flows' delivered bits / the capacity of their direction, over the run (the cases that measure it). */
  readonly utilisationMin: number;
  /** p95 of every media flow's queueing delay, ms. */
  readonly queueingDelayP95MaxMs: number;
  /** Every media flow's loss rate at the bottleneck. */
  readonly lossRateMax: number;
  /** Jain's index among the media flows. */
  readonly fairnessMin: number;
  /** Every capacity change (and the start): converged within this many ms. */
  readonly convergenceMaxMs: number;
  /** Against TCP: the media flows' share of the link (their delivered bits / capacity while they run). */
  readonly mediaShareMin: number;
}

export const DEFAULT_THRESHOLDS: Thresholds = {
  utilisationMin: 0.6,
  queueingDelayP95MaxMs: 150,
  lossRateMax: 0.05,
  fairnessMin: 0.8,
  convergenceMaxMs: 15_000,
  mediaShareMin: 0.1,
};

const KEYS = Object.keys(DEFAULT_THRESHOLDS) as (keyof Thresholds)[];

export type ThresholdOverrides = Partial<Thresholds> & { readonly [caseId: string]: unknown };

/** The thresholds of one case: the defaults, under the file's top-level values, under its case's. */
export function thresholdsFor(caseId: string, overrides: ThresholdOverrides = {}): Thresholds {
  const top = Object.fromEntries(KEYS.filter((k) => overrides[k] !== undefined).map((k) => [k, overrides[k]]));
  const aliases = [...CASE_ALIASES].filter(([, id]) => id === caseId).map(([old]) => (overrides[old] ?? {}) as Partial<Thresholds>);
  const own = Object.assign({}, ...aliases, overrides[caseId] ?? {}) as Partial<Thresholds>;
  return { ...DEFAULT_THRESHOLDS, ...top, ...own };
}

/** Checks a thresholds object (from a file named `source`): unknown keys and bad values are one line naming them. */
export function validateThresholds(value: unknown, source: string): ThresholdOverrides {
  const fail = (what: string) => toolkitError('ERR_BAD_INPUT', `${source}: ${what}`);
  const checkValues = (obj: Record<string, unknown>, where: string) => {
    for (const [key, v] of Object.entries(obj)) {
      if (!(KEYS as string[]).includes(key)) throw fail(`${where}unknown threshold ${JSON.stringify(key)} (known: ${KEYS.join(', ')})`);
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw fail(`${where}${key} must be a finite number >= 0, got ${JSON.stringify(v)}`);
    }
  };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw fail('thresholds must be a JSON object');
  const obj = value as Record<string, unknown>;
  const top: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(obj)) {
    if ((CASE_IDS as readonly string[]).includes(key) || CASE_ALIASES.has(key)) {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) throw fail(`case ${key} must map to an object of thresholds, got ${JSON.stringify(v)}`);
      checkValues(v as Record<string, unknown>, `case ${key}: `);
    } else top[key] = v;
  }
  checkValues(top, '');
  return obj as ThresholdOverrides;
}

export function readThresholdsFile(path: string): ThresholdOverrides {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw unreadableFile(path, error);
  }
  return parseThresholds(text, path);
}

/** Thresholds from JSON text; `path` names where it came from in errors. */
export function parseThresholds(text: string, path: string): ThresholdOverrides {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw toolkitError('ERR_BAD_INPUT', `${path}: not JSON: ${(error as Error).message}`);
  }
  return validateThresholds(parsed, path);
}

export interface CheckResult {
  readonly check: CheckName;
  readonly value: number | null;
  readonly threshold: number;
  readonly pass: boolean;
  /** What was compared, in words ("min over flows", ...). */
  readonly detail: string;
}

/** Each of the case's checks on its metrics (only the controller's media flows are judged). */
export function judgeCase(c: Rfc8867Case, metrics: CaseMetrics, isMedia: (flowId: number) => boolean, t: Thresholds): CheckResult[] {
  const media = metrics.flows.filter((f) => isMedia(f.flowId));
  const results: CheckResult[] = [];
  const atLeast = (check: CheckName, value: number | null, threshold: number, detail: string) =>
    results.push({ check, value, threshold, pass: value !== null && value >= threshold, detail });
  const atMost = (check: CheckName, value: number | null, threshold: number, detail: string) =>
    results.push({ check, value, threshold, pass: value !== null && value <= threshold, detail });
  for (const check of c.checks) {
    switch (check) {
      case 'utilisation': {
        // Per direction that carries media: the media's bits over that direction's capacity; the worst direction counts.
        const dirs = [...new Set(media.map((f) => f.direction))];
        const per = dirs.map((d) => {
          const bits = media.filter((f) => f.direction === d).reduce((a, f) => a + f.bitsDelivered, 0);
          return bits / metrics.directions[d].capacityBits;
        });
        atLeast(check, per.length ? round4(Math.min(...per)) : null, t.utilisationMin, 'media bits / capacity, lowest direction');
        break;
      }
      case 'mediaShare': {
        const shares = media.map((f) => f.utilisation);
        atLeast(check, shares.length ? round4(shares.reduce((a, b) => a + b, 0)) : null, t.mediaShareMin, 'media flows\' share of the capacity while active');
        break;
      }
      case 'queueingDelayP95': {
        const p95 = media.map((f) => f.queueingDelayMs.p95);
        atMost(check, p95.some((p) => p === null) ? null : Math.max(...(p95 as number[])), t.queueingDelayP95MaxMs, 'p95 queueing delay, worst media flow');
        break;
      }
      case 'lossRate':
        atMost(check, media.length ? Math.max(...media.map((f) => f.lossRate)) : null, t.lossRateMax, 'loss at the bottleneck, worst media flow');
        break;
      case 'fairness': {
        const mediaIds = new Set(media.map((f) => f.flowId));
        const groups = metrics.fairness.filter((g) => g.flows.every((id) => mediaIds.has(id)));
        const worst = groups.length && groups.every((g) => g.jainIndex !== null) ? Math.min(...groups.map((g) => g.jainIndex!)) : null;
        atLeast(check, worst, t.fairnessMin, 'Jain\'s index among the media flows');
        break;
      }
      case 'convergence': {
        const times = metrics.convergence.map((c) => c.convergenceMs);
        atMost(check, times.length && times.every((x) => x !== null) ? Math.max(...(times as number[])) : null, t.convergenceMaxMs, 'slowest convergence after the start and each capacity change (null: one never converged)');
        break;
      }
    }
  }
  return results;
}

const round4 = (x: number) => Math.round(x * 1e4) / 1e4;
