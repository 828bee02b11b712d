// Runs one RFC 8867 case (cases.ts) for one controller in the simulator and
// returns RFC 8868's metrics and the pass/fail of each check: the library
// call a controller's own unit test makes, and what `ccbench rfc8867` runs.
// Deterministic: the same case, controller and seed give the same result.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FlowFactory } from '../flow.ts';
import { runBottleneck, type BottleneckResult, type FlowDirection, type FlowSpec } from '../sim/bottleneck.ts';
import { FlowRecorder, teeSinks } from '../metrics/flow-records.ts';
import { computeCaseMetrics, type CaseMetrics, type MetricOptions } from '../metrics/rfc8868.ts';
import { capacityScheduleTrace } from '../../link-emu/trace-generators.ts';
import { openTrace } from '../../link-emu/trace-files.ts';
import { traceMeanRateMbps, type Trace } from '../../link-emu/trace.ts';
import { DEFAULT_MTU } from '../../link-emu/link.ts';
import { rfc8867Case, type CaseDirection, type CaseFlowSpec, type Rfc8867Case } from './cases.ts';
import { resolveController, type ControllerInput } from './resolve-controller.ts';
import { judgeCase, thresholdsFor, type CheckResult, type ThresholdOverrides, type Thresholds } from './thresholds.ts';
import { FlowLogs } from '../sim/flow-logs.ts';
import { tcpBulkFlow, tcpShortFlows } from '../../tcp/index.ts';

/** Cross traffic (5.6, 5.7): the TCP flows, built from src/tcp when it is there. */
export type CrossTrafficFactory = (spec: Exclude<CaseFlowSpec, { kind: 'media' }>, index: number) => FlowFactory;

export interface RunCaseOptions {
  /** Seed of every random draw (default 1). */
  readonly seed?: number;
  /** Threshold overrides (thresholds.ts; default: the documented defaults). */
  readonly thresholds?: ThresholdOverrides;
  readonly metrics?: MetricOptions;
  /** The TCP flows of 5.6 and 5.7 (default: src/tcp's NewReno). */
  readonly crossTraffic?: CrossTrafficFactory;
  /** Keep the mm-link log of each direction and of each flow (flow-logs.ts) in the result. */
  readonly logs?: boolean;
  /** Simulated time instead of the case's (for quick tests), ms. */
  readonly durationMs?: number;
}

export interface CaseResult {
  readonly caseId: string;
  readonly title: string;
  readonly source: string;
  readonly controller: string;
  readonly seed: number;
  readonly durationMs: number;
  /** Capacity schedules as the case gives them (or the trace's name). */
  readonly links: Record<FlowDirection, CaseDirection & { readonly queue: string; readonly queueArgs: string; readonly maxWaitMs: number }>;
  readonly metrics: CaseMetrics;
  readonly thresholds: Thresholds;
  readonly checks: readonly CheckResult[];
  readonly pass: boolean;
  /** Simulator events run (a measure of the work). */
  readonly eventsRun: number;
  /** mm-link logs: per direction, and per flow and direction (only with options.logs). */
  readonly logs?: ReadonlyMap<string, string>;
}

const MTU = DEFAULT_MTU;
/** The trace runs on a little past the case's end, so that it never wraps within the run. */
const TRACE_MARGIN_MS = 1000;
const SHARED_TRACES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'shared', 'traces');

function directionTrace(d: CaseDirection, durationMs: number): Trace {
  if (d.schedule) {
    // A shortened run (options.durationMs) keeps the steps that fall within it.
    const steps = d.schedule.filter((s) => s.atMs < durationMs);
    return capacityScheduleTrace({ steps, durationMs: durationMs + TRACE_MARGIN_MS, bytesPerOpportunity: MTU });
  }
  try {
    return openTrace(d.trace!);
  } catch (error) {
    // The recorded traces live beside the repository (../shared/traces).
    try {
      return openTrace(d.trace!, { cwd: SHARED_TRACES });
    } catch {
      throw error;
    }
  }
}

/** Bytes of a drop-tail queue of `queueMs` at the direction's highest capacity (a trace's mean rate). */
function queueBytes(d: CaseDirection, trace: Trace, queueMs: number): number {
  const peakMbps = d.schedule ? Math.max(...d.schedule.map((s) => s.rateMbps)) : traceMeanRateMbps(trace, MTU);
  return Math.max(MTU, Math.ceil((queueMs * peakMbps * 1e6) / 8000));
}

/** TCP's congestion control in the cross traffic (default NewReno, as the ns-3 rmcat suite runs it). */
export type CrossTrafficCc = 'newreno' | 'cubic';

/** The TCP flows of 5.6 and 5.7 from the TCP models (src/tcp). */
export async function tcpCrossTraffic(cc: CrossTrafficCc = 'newreno'): Promise<CrossTrafficFactory> {
  return (spec) => {
    if (spec.kind === 'tcp-long') return tcpBulkFlow({ cc });
    return tcpShortFlows({
      cc, startOn: spec.startsOn, meanIdleMs: spec.meanIdleMs, minBytes: spec.minFileBytes, maxBytes: spec.maxFileBytes, connectionsPerBurst: spec.connectionsPerBurst,
      ...(spec.maxBursts !== undefined ? { maxBursts: spec.maxBursts } : {}),
    });
  };
}

/** Runs `caseId` for `controller` (a name, a path, a rate controller module or a FlowFactory). */
export async function runRfc8867Case(caseId: string, controller: ControllerInput, options: RunCaseOptions = {}): Promise<CaseResult> {
  const c = rfc8867Case(caseId);
  const resolved = await resolveController(controller);
  try {
    return await runResolved(c, resolved.factory, options);
  } finally {
    await resolved.close();
  }
}

export async function runResolved(c: Rfc8867Case, factory: FlowFactory, options: RunCaseOptions = {}): Promise<CaseResult> {
  const seed = options.seed ?? 1;
  const durationMs = options.durationMs ?? c.durationMs;
  const needsTcp = c.flows.some((f) => f.kind !== 'media');
  const cross = needsTcp ? options.crossTraffic ?? (await tcpCrossTraffic()) : undefined;
  const traces = { forward: directionTrace(c.forward, durationMs), backward: directionTrace(c.backward, durationMs) };
  const links = {} as CaseResult['links'];
  for (const d of ['forward', 'backward'] as const) {
    const queueArgs = `bytes=${queueBytes(c[d], traces[d], c.queueMs)}`;
    links[d] = { ...c[d], queue: 'droptail', queueArgs, maxWaitMs: c.queueMs };
  }
  let crossIndex = 0;
  const flows: FlowSpec[] = c.flows.map((f) => {
    const factoryOf = f.kind === 'media' ? factory : cross!(f, crossIndex++);
    return {
      factory: factoryOf, direction: f.direction, delayMs: f.delayMs, startMs: f.startMs,
      stopMs: 'stopMs' in f ? f.stopMs : undefined, pauses: f.kind === 'media' ? f.pauses : undefined,
    };
  });
  const records = new FlowRecorder();
  const logs = options.logs ? new FlowLogs(c.id, flows.length, { forward: links.forward, backward: links.backward }, traces) : undefined;
  const run: BottleneckResult = await runBottleneck({
    forward: { trace: traces.forward, queue: 'droptail', queueArgs: links.forward.queueArgs, maxWaitMs: c.queueMs, mtu: MTU },
    backward: { trace: traces.backward, queue: 'droptail', queueArgs: links.backward.queueArgs, maxWaitMs: c.queueMs, mtu: MTU },
    flows, durationMs, seed,
    packets: logs ? teeSinks(records, logs) : records,
    linkEvents: logs?.linkSinks(),
  });
  const isMedia = (flowId: number) => c.flows[flowId]!.kind === 'media';
  const changes = (d: CaseDirection) => (d.schedule ?? []).filter((s) => s.atMs < durationMs);
  const metrics = computeCaseMetrics({
    run, records,
    links: {
      forward: { trace: traces.forward, mtu: MTU, changes: changes(c.forward) },
      backward: { trace: traces.backward, mtu: MTU, changes: changes(c.backward) },
    },
    measured: (f) => isMedia(f.flowId),
  }, options.metrics);
  const thresholds = thresholdsFor(c.id, options.thresholds);
  const checks = judgeCase(c, metrics, isMedia, thresholds);
  return {
    caseId: c.id, title: c.title, source: c.source, controller: factory.name, seed, durationMs, links,
    metrics, thresholds, checks, pass: checks.every((x) => x.pass), eventsRun: run.eventsRun,
    ...(logs ? { logs: logs.finish(durationMs) } : {}),
  };
}
