// Results of `salsify webrtc` calls added to an eval's table and plots
// (`--include DIR`): DIR/summary.json, the results pipeline's JSON that the
// WebRTC bench writes (src/webrtc/bench.ts: label "webrtc (Chromium N)" or "webrtc (Firefox N)",
// config with the video's trace, summary). Its scenario is the preset whose
// downlink trace has the same file name as the call's video trace.
import { basename, join } from 'node:path';
import { readFileSync } from 'node:fs';
import { toolkitError, unreadableFile } from '../common/errors.ts';
import type { Summary } from '../results/summary.ts';
import { PRESET_NAMES, simPresetOn, VERIZON_STAND_IN, VERIZON_TRACE } from '../salsify/presets.ts';

export interface IncludedRun {
  readonly label: string;
  /** The preset the call's trace belongs to, or null. */
  readonly scenario: string | null;
  readonly summary: Summary;
  readonly source: string;
  /** The call's real-time verdict (summary.json's validity), when it recorded one. */
  readonly validity?: { readonly verdict: 'valid' | 'invalid'; readonly reasons: string[] };
}

/** What differs between an included call and the simulator's runs beside it, said under the table and in the report. */
export const INCLUDED_CALLS_DIFFER =
  "the WebRTC calls ran for their own --duration over linkshell, which carries only the call: not the presets' 702 s window, nor their other traffic on the downlink";

/** The preset whose downlink trace is called `trace` (by file name; Verizon-LTE-driving or its stand-in for verizon-lte), or null. */
export function scenarioOfTrace(trace: string): string | null {
  const name = basename(trace);
  const runs = (p: string) => [VERIZON_TRACE, VERIZON_STAND_IN].some((v) => basename(simPresetOn(p, v).config.downlink) === name);
  return PRESET_NAMES.find(runs) ?? null;
}

const nullToNaN = (x: unknown) => (x === null ? NaN : x);

export function readIncluded(dir: string): IncludedRun {
  const path = join(dir, 'summary.json');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw unreadableFile(path, error);
  }
  const bad = (what: string) => toolkitError('ERR_BAD_INPUT', `${path}: ${what} (expected the summary.json of a salsify webrtc run)`);
  let json: { label?: unknown; config?: { videoTrace?: unknown }; summary?: Record<string, unknown>; validity?: { verdict?: unknown; reasons?: unknown } };
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw bad(`not JSON: ${(error as Error).message}`);
  }
  if (typeof json.label !== 'string' || !json.label.startsWith('webrtc')) throw bad(`field "label" must be "webrtc (...)", got ${JSON.stringify(json.label)}`);
  const trace = json.config?.videoTrace;
  if (typeof trace !== 'string') throw bad(`field "config.videoTrace" must be a trace path, got ${JSON.stringify(trace)}`);
  const s = json.summary;
  if (!s || typeof s !== 'object') throw bad('no "summary" object');
  for (const field of ['signalDelayMs', 'ssimDb'] as const) {
    const d = s[field] as Record<string, unknown> | undefined;
    for (const k of ['mean', 'p5', 'p95']) {
      const v = d?.[k];
      if (!(typeof v === 'number' || v === null)) throw bad(`field "summary.${field}.${k}" must be a number or null, got ${JSON.stringify(v)}`);
    }
  }
  const dist = (d: unknown) => {
    const o = d as Record<string, unknown>;
    return { mean: nullToNaN(o.mean) as number, p5: nullToNaN(o.p5) as number, p95: nullToNaN(o.p95) as number };
  };
  const count = (k: string) => (typeof s[k] === 'number' ? (s[k] as number) : NaN);
  const summary: Summary = {
    signalDelayMs: dist(s.signalDelayMs), ssimDb: dist(s.ssimDb),
    framesCaptured: count('framesCaptured'), framesSent: count('framesSent'), framesShown: count('framesShown'),
    framesNeverShown: count('framesNeverShown'), framesLost: count('framesLost'), framesSkipped: count('framesSkipped'),
    framesSuperseded: count('framesSuperseded'), framesNotCaughtUp: count('framesNotCaughtUp'), bytesSent: count('bytesSent'),
    linkUtilization: count('linkUtilization'),
  };
  const v = json.validity;
  if (v !== undefined && !((v.verdict === 'valid' || v.verdict === 'invalid') && Array.isArray(v.reasons) && v.reasons.every((r) => typeof r === 'string'))) {
    throw bad(`field "validity" must be { verdict: "valid" | "invalid", reasons: [strings] }, got ${JSON.stringify(v)}`);
  }
  const validity = v === undefined ? undefined : { verdict: v.verdict as 'valid' | 'invalid', reasons: v.reasons as string[] };
  return { label: json.label, scenario: scenarioOfTrace(trace), summary, source: path, ...(validity ? { validity } : {}) };
}
