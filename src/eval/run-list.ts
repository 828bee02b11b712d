// The run list of an evaluation: every scenario (a preset of presets.ts) x
// scheme (the registry's, and the simulator-only oracles) x seed, each a
// complete simulator config (sim-runner.ts), in one fixed order. The order,
// the configs and so the results are the same whatever runs them (a local
// pool of any size, a Slurm array).
import { PRESET_NAMES, simPreset } from '../salsify/presets.ts';
import { SIM_SCHEME_NAMES } from '../salsify/schemes/registry.ts';
import { resolveSimConfig, type SalsifySimConfig } from '../salsify/sim-runner.ts';
import type { EncodeTimingModel } from '../salsify/timing-model.ts';
import { otherTrafficText, type OtherTraffic } from '../salsify/other-traffic.ts';
import { configHash, runKey, type RunKey } from './config-hash.ts';

export interface EvalPlan {
  /** Preset names, in the order given. */
  readonly scenarios: readonly string[];
  /** Scheme names (registry or simulator-only), in the order given. */
  readonly schemes: readonly string[];
  /** Seeds 1..seeds. */
  readonly seeds: number;
  readonly codec: SalsifySimConfig['codec'];
  /** Unset: the simulator's default (libvpx). */
  readonly encodeTiming?: EncodeTimingModel;
  /** Unset: each preset's own window start (62 s into the trace); else its window starts here. */
  readonly measureFromS?: number;
  /** Unset: each preset's own window; else its window is this long (the simulator then ends the capture a drain after it, sim-runner.ts). */
  readonly measureForS?: number;
  /** "synthetic" (default) or a clip path. */
  readonly video: string;
  /** Unset: each preset's other traffic on the downlink (presets.ts); null: none; else this. */
  readonly downlinkOtherTraffic?: OtherTraffic | null;
  /** Unset: every scenario x scheme; else only these "scenario/scheme" pairs of them (--paper-rows: the paper's rows). */
  readonly pairs?: readonly string[];
}

export interface EvalRun {
  /** Position in the run list (the Slurm array index). */
  readonly index: number;
  /** "scenario/scheme/seed": unique within the list, safe in file names once '/' becomes '_'. */
  readonly id: string;
  readonly scenario: string;
  readonly scheme: string;
  readonly seed: number;
  readonly config: SalsifySimConfig;
  /** Seconds of video the run captures (for progress): to a drain after the window's end, at most durationS. */
  readonly videoS: number;
  /** Everything the result depends on (config, input files' digests, version): what the hash covers. */
  readonly key: RunKey;
  readonly hash: string;
  /** The `salsify sim` command line that reruns this one run alone (same config, same summary). */
  readonly command: string;
}

/** Every scenario (`all`: every preset) and scheme (`all`: every name `salsify sim` runs) for the list. */
export const ALL_SCENARIOS = PRESET_NAMES;
export const ALL_SCHEMES = SIM_SCHEME_NAMES;

/** The config of one run: the preset's, with the plan's codec, timing, video, seed and window. */
export function runConfig(plan: EvalPlan, scenario: string, scheme: string, seed: number): SalsifySimConfig {
  simPreset(scenario);
  const shortened = {
    ...(plan.measureFromS === undefined ? {} : { measureFromS: plan.measureFromS }),
    ...(plan.measureForS === undefined ? {} : { measureForS: plan.measureForS }),
  };
  return resolveSimConfig({
    preset: scenario,
    scheme: scheme as SalsifySimConfig['scheme'],
    seed,
    codec: plan.codec,
    video: plan.video,
    ...(plan.encodeTiming === undefined ? {} : { encodeTiming: plan.encodeTiming }),
    ...(plan.downlinkOtherTraffic === undefined ? {} : { downlinkOtherTraffic: plan.downlinkOtherTraffic }),
    ...shortened,
  });
}

/** The `salsify sim` command that runs `config` alone. */
export function rerunCommand(config: SalsifySimConfig, plan: EvalPlan): string {
  const parts = ['node bin/salsify.js sim', `--preset ${config.preset}`, `--scheme ${config.scheme}`, `--seed ${config.seed}`, `--codec ${config.codec}`];
  if (config.video !== 'synthetic') parts.push(`--video ${shellWord(config.video)}`);
  if (plan.encodeTiming !== undefined) parts.push(`--encode-timing ${plan.encodeTiming}`);
  if (plan.measureFromS !== undefined) parts.push(`--measure-from ${config.measureFromS}`);
  if (plan.measureForS !== undefined) parts.push(`--measure-for ${config.measureForS}`);
  if (plan.downlinkOtherTraffic !== undefined) parts.push(`--downlink-other-traffic ${otherTrafficText(plan.downlinkOtherTraffic)}`);
  return parts.join(' ');
}

export function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Seconds of video a run captures: durationS, or a drain after its window's end when that comes sooner (as sim-runner's simCaptureEnd). */
export function capturedVideoS(c: SalsifySimConfig): number {
  if (c.measureForS === undefined) return c.durationS;
  return Math.min(c.durationS, (c.measureFromS ?? 0) + c.measureForS + c.drainMs / 1000);
}

/** The run list: scenarios, then schemes (those of plan.pairs, where given), then seeds (the innermost), each run keyed and hashed. */
export function buildRunList(plan: EvalPlan): EvalRun[] {
  const runs: EvalRun[] = [];
  for (const scenario of plan.scenarios) {
    for (const scheme of plan.schemes) {
      if (plan.pairs !== undefined && !plan.pairs.includes(`${scenario}/${scheme}`)) continue;
      for (let seed = 1; seed <= plan.seeds; seed++) {
        const config = runConfig(plan, scenario, scheme, seed);
        const key = runKey(config);
        runs.push({
          index: runs.length, id: `${scenario}/${scheme}/${seed}`, scenario, scheme, seed,
          config, videoS: capturedVideoS(config), key, hash: configHash(key), command: rerunCommand(config, plan),
        });
      }
    }
  }
  return runs;
}
