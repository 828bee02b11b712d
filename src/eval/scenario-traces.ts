// Which trace each scenario of an eval ran (pure): read from the stored runs'
// configs, not from the presets as they resolve now, so that the findings and
// the report describe the runs even when the trace lookup has changed since
// (presets.ts: the Verizon presets run Verizon-LTE-driving when it is found,
// else the stand-in Verizon-LTE-short).
import { basename } from 'node:path';
import { simPresetOn, VERIZON_STAND_IN, VERIZON_TRACE } from '../salsify/presets.ts';
import type { Finished } from './finished.ts';

export interface ScenarioTrace {
  readonly scenario: string;
  /** The downlink trace its runs ran (the file name without ".down"); several joined by " and " if its runs differ. */
  readonly trace: string;
  /** The paper's trace, when ours was a stand-in for it. */
  readonly standInFor?: string;
  /** The preset's label for the trace that ran. */
  readonly label: string;
}

/** A downlink as a trace name: "Verizon-LTE-driving" for ".../Verizon-LTE-driving.down"; a constant rate as "const:N". */
function traceName(downlink: Finished['run']['config']['downlink']): string {
  if (typeof downlink !== 'string') return `const:${downlink.constantMbps}`;
  return basename(downlink).replace(/\.down$/, '');
}

/** The preset's label and stand-in on the trace that ran (the Verizon presets name theirs; the others' is fixed). */
function describe(scenario: string, trace: string): Pick<ScenarioTrace, 'label' | 'standInFor'> {
  const verizon = trace === VERIZON_TRACE || trace === VERIZON_STAND_IN ? trace : VERIZON_STAND_IN;
  const preset = simPresetOn(scenario, verizon);
  if (preset.trace !== trace) return { label: `${preset.label}, run on ${trace}` };
  return { label: preset.label, ...(preset.standInFor ? { standInFor: preset.standInFor } : {}) };
}

/** Each scenario of the finished runs, in their order, with the trace it ran. */
export function scenarioTraces(finished: readonly Finished[]): ScenarioTrace[] {
  const byScenario = new Map<string, Set<string>>();
  for (const { run } of finished) {
    const set = byScenario.get(run.scenario) ?? new Set<string>();
    set.add(traceName(run.config.downlink));
    byScenario.set(run.scenario, set);
  }
  return [...byScenario].map(([scenario, traces]) => {
    const trace = [...traces].join(' and ');
    return { scenario, trace, ...(traces.size === 1 ? describe(scenario, trace) : { label: `${scenario}, run on ${trace}` }) };
  });
}

/** The scenarios whose runs ran a stand-in for the paper's trace. */
export function standInScenarios(traces: readonly ScenarioTrace[]): Set<string> {
  return new Set(traces.filter((t) => t.standInFor !== undefined).map((t) => t.scenario));
}
