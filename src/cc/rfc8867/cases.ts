// The test cases of RFC 8867 section 5 (5.1 to 5.8) as plain data, with the
// parameters the RFC gives them, and the one RFC 8869 (wireless) case the
// simulator can express: capacity that varies as a recorded cellular trace.
//
// Common to every case (RFC 8867 section 4 and each case's table): one-way
// propagation delay 50 ms (5.5: per flow), a drop-tail bottleneck queue of
// 300 ms (sized in bytes at the case's highest capacity; 5.6 also runs with
// 1000 ms, as case 5.6b), media flows in the forward direction unless the
// case says otherwise. Where the RFC leaves the reverse path uncongested, it
// is a constant link at the forward path's highest capacity (only feedback
// crosses it). Start and stop times are seconds in the RFC, ms here.
//
// Sources: the issue (13) states 5.1's parameters; the others follow RFC 8867
// as we read it and as the ns-3 rmcat module (an implementation of the
// draft the RFC came from) sets them; 5.7's downloads are RFC 8868 6.1's.

export type CaseId = '5.1' | '5.2' | '5.3' | '5.4' | '5.5' | '5.6' | '5.6b' | '5.7' | '5.8' | '8869-cellular';

/** A capacity schedule: rates (Mbit/s) from the times given (ms), the first at 0. */
export type Schedule = ReadonlyArray<{ readonly atMs: number; readonly rateMbps: number }>;

export interface CaseDirection {
  /** Piecewise-constant capacity (exact, capacityScheduleTrace)... */
  readonly schedule?: Schedule;
  /** ... or a recorded trace (a name or path resolved as linkshell does). */
  readonly trace?: string;
}

/** Flows of the controller under test. */
export interface MediaFlowSpec {
  readonly kind: 'media';
  readonly direction: 'forward' | 'backward';
  readonly delayMs: number;
  readonly startMs: number;
  readonly stopMs?: number;
  readonly pauses?: ReadonlyArray<readonly [number, number]>;
}

/** A long-lived bulk TCP transfer (cross traffic). */
export interface LongTcpSpec {
  readonly kind: 'tcp-long';
  readonly direction: 'forward' | 'backward';
  readonly delayMs: number;
  readonly startMs: number;
  readonly stopMs?: number;
}

/**
 * A short TCP flow (RFC 8867 5.7): bursts of `connectionsPerBurst` downloads
 * at once (RFC 8868 6.1: 30 connections of 30 to 50 KB), each of a size drawn
 * uniformly in [min, max] bytes, separated by exponentially distributed idle
 * periods.
 */
export interface ShortTcpSpec {
  readonly kind: 'tcp-short';
  readonly direction: 'forward' | 'backward';
  readonly delayMs: number;
  readonly startMs: number;
  /** Whether it begins with a transfer (on) or an idle period (off). */
  readonly startsOn: boolean;
  readonly meanIdleMs: number;
  readonly minFileBytes: number;
  readonly maxFileBytes: number;
  readonly connectionsPerBurst: number;
}

export type CaseFlowSpec = MediaFlowSpec | LongTcpSpec | ShortTcpSpec;

export interface Rfc8867Case {
  readonly id: CaseId;
  readonly title: string;
  /** Where its parameters come from. */
  readonly source: string;
  readonly durationMs: number;
  readonly forward: CaseDirection;
  readonly backward: CaseDirection;
  /** Drop-tail queue length as time at the highest capacity of its direction, ms. */
  readonly queueMs: number;
  readonly flows: readonly CaseFlowSpec[];
  /** Which metrics decide pass or fail (thresholds.ts has the values). */
  readonly checks: readonly CheckName[];
}

export type CheckName = 'utilisation' | 'queueingDelayP95' | 'lossRate' | 'fairness' | 'convergence' | 'mediaShare';

const DELAY = 50;
const QUEUE = 300;
const media = (startMs = 0, more: Partial<MediaFlowSpec> = {}): MediaFlowSpec => ({ kind: 'media', direction: 'forward', delayMs: DELAY, startMs, ...more });
const constant = (rateMbps: number): CaseDirection => ({ schedule: [{ atMs: 0, rateMbps }] });

const CASE_LIST: readonly Rfc8867Case[] = [
  {
    id: '5.1', title: 'Variable available capacity with a single flow', source: 'RFC 8867 5.1',
    durationMs: 100_000,
    forward: { schedule: [{ atMs: 0, rateMbps: 1 }, { atMs: 40_000, rateMbps: 2.5 }, { atMs: 60_000, rateMbps: 0.6 }, { atMs: 80_000, rateMbps: 1 }] },
    backward: constant(2.5),
    queueMs: QUEUE, flows: [media()],
    checks: ['utilisation', 'queueingDelayP95', 'lossRate', 'convergence'],
  },
  {
    id: '5.2', title: 'Variable available capacity with multiple flows', source: 'RFC 8867 5.2',
    durationMs: 125_000,
    forward: { schedule: [{ atMs: 0, rateMbps: 4 }, { atMs: 25_000, rateMbps: 2 }, { atMs: 50_000, rateMbps: 3.5 }, { atMs: 75_000, rateMbps: 1 }, { atMs: 100_000, rateMbps: 2 }] },
    backward: constant(4),
    queueMs: QUEUE, flows: [media(), media()],
    checks: ['utilisation', 'queueingDelayP95', 'lossRate', 'fairness', 'convergence'],
  },
  {
    id: '5.3', title: 'Congested feedback link with bi-directional media flows', source: 'RFC 8867 5.3',
    durationMs: 100_000,
    forward: { schedule: [{ atMs: 0, rateMbps: 2 }, { atMs: 20_000, rateMbps: 1 }, { atMs: 40_000, rateMbps: 0.5 }, { atMs: 60_000, rateMbps: 2 }] },
    backward: { schedule: [{ atMs: 0, rateMbps: 2 }, { atMs: 35_000, rateMbps: 0.8 }, { atMs: 70_000, rateMbps: 2 }] },
    queueMs: QUEUE, flows: [media(), media(0, { direction: 'backward' })],
    checks: ['utilisation', 'queueingDelayP95', 'lossRate', 'convergence'],
  },
  {
    id: '5.4', title: 'Competing media flows with the same congestion control algorithm', source: 'RFC 8867 5.4',
    durationMs: 120_000, forward: constant(3.5), backward: constant(3.5),
    queueMs: QUEUE, flows: [media(0), media(20_000), media(40_000)],
    checks: ['utilisation', 'queueingDelayP95', 'lossRate', 'fairness'],
  },
  {
    id: '5.5', title: 'Round trip time fairness', source: 'RFC 8867 5.5',
    durationMs: 300_000, forward: constant(4), backward: constant(4),
    queueMs: QUEUE,
    flows: [10, 25, 50, 100, 150].map((delayMs, i) => media(10_000 * i, { delayMs })),
    checks: ['utilisation', 'queueingDelayP95', 'lossRate', 'fairness'],
  },
  {
    id: '5.6', title: 'Media flow competing with a long TCP flow (300 ms queue)', source: 'RFC 8867 5.6',
    durationMs: 120_000, forward: constant(2), backward: constant(2),
    queueMs: QUEUE, flows: [media(5_000), { kind: 'tcp-long', direction: 'forward', delayMs: DELAY, startMs: 0 }],
    checks: ['mediaShare', 'lossRate'],
  },
  {
    id: '5.6b', title: 'Media flow competing with a long TCP flow (1000 ms queue)', source: 'RFC 8867 5.6 (its second queue size)',
    durationMs: 120_000, forward: constant(2), backward: constant(2),
    queueMs: 1000, flows: [media(5_000), { kind: 'tcp-long', direction: 'forward', delayMs: DELAY, startMs: 0 }],
    checks: ['mediaShare', 'lossRate'],
  },
  {
    id: '5.7', title: 'Media flows competing with short TCP flows', source: 'RFC 8867 5.7; the downloads of each burst as RFC 8868 6.1 gives them (30 connections of 30 to 50 KB)',
    durationMs: 300_000, forward: constant(2), backward: constant(2),
    queueMs: QUEUE,
    flows: [
      media(5_000), media(5_000),
      // 10 short TCP flows: 2 begin with a transfer, 8 with an idle period; idle periods exponential, mean 10 s.
      ...Array.from({ length: 10 }, (_, i): ShortTcpSpec => ({
        kind: 'tcp-short', direction: 'forward', delayMs: DELAY, startMs: 0, startsOn: i < 2, meanIdleMs: 10_000, minFileBytes: 30_000, maxFileBytes: 50_000, connectionsPerBurst: 30,
      })),
    ],
    checks: ['mediaShare', 'queueingDelayP95', 'lossRate', 'fairness'],
  },
  {
    id: '5.8', title: 'Media pause and resume', source: 'RFC 8867 5.8',
    durationMs: 120_000, forward: constant(3.5), backward: constant(3.5),
    queueMs: QUEUE, flows: [media(0), media(0, { pauses: [[40_000, 60_000]] }), media(0)],
    checks: ['utilisation', 'queueingDelayP95', 'lossRate', 'fairness'],
  },
  {
    id: '8869-cellular', title: 'Varying capacity of a cellular link (RFC 8869, as a recorded trace)', source: 'RFC 8869 4 (cellular), capacity from the recorded Verizon-LTE-short trace',
    durationMs: 120_000, forward: { trace: 'Verizon-LTE-short.down' }, backward: { trace: 'Verizon-LTE-short.up' },
    queueMs: QUEUE, flows: [media()],
    checks: ['queueingDelayP95', 'lossRate'],
  },
];

export const RFC8867_CASES: ReadonlyMap<CaseId, Rfc8867Case> = new Map(CASE_LIST.map((c) => [c.id, c]));
export const CASE_IDS: readonly CaseId[] = CASE_LIST.map((c) => c.id);

export function rfc8867Case(id: string): Rfc8867Case {
  const found = RFC8867_CASES.get(id as CaseId);
  if (!found) throw new RangeError(`unknown RFC 8867 case ${JSON.stringify(id)} (one of ${CASE_IDS.join(', ')})`);
  return found;
}

/** The capacity changes after time 0 (what convergence is measured after). */
export function capacityChanges(direction: CaseDirection): Schedule {
  return (direction.schedule ?? []).slice(1);
}
