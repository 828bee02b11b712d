// The test cases of RFC 8867 section 5 (5.1 to 5.8) as plain data, with the
// parameters the RFC gives them, their variants the two implementations of
// the cases run (5.1b, 5.6b, 5.6c, 5.7-libwebrtc), and one recorded trace as
// capacity (cellular-trace).
//
// Common to every case (RFC 8867 section 4 and each case's table): one-way
// propagation delay 50 ms (5.5: per flow; 5.1b: 100 ms), a bottleneck queue
// of 300 ms (5.6b: 1000 ms, 5.6c: 20 ms), media flows in the forward
// direction unless the case says otherwise. Where the RFC leaves the reverse
// path uncongested, it is a constant link at the forward path's highest
// capacity (only feedback crosses it). Start and stop times are seconds in
// the RFC, ms here.
//
// The queue is bounded in time, as both implementations bound it: a packet
// that would wait longer than `queueMs` is dropped on arrival (the link knows
// its capacity schedule, so the wait is exact), so that no packet waits more
// than the case's 300 ms even where the capacity falls. ns-3 rmcat gets the
// same bound from a fixed-rate link (4 Mibit/s) with a 300 ms drop-tail
// queue, the capacity varied by non-adaptive UDP cross traffic; libwebrtc's
// bwe_test from a choke filter with a 300 ms maximum delay. A byte limit of
// `queueMs` at the direction's highest capacity (a trace's mean rate) also
// applies, as before.
//
// Sources: cisco/ns3-rmcat (test/rmcat-wired-test-suite.cc,
// rmcat-wired-test-case.cc) and libwebrtc's
// modules/remote_bitrate_estimator/test/bwe_test.cc; the handoff's table
// lists each parameter beside theirs and each remaining difference.

export type CaseId = '5.1' | '5.1b' | '5.2' | '5.3' | '5.4' | '5.5' | '5.6' | '5.6b' | '5.6c' | '5.7' | '5.7-libwebrtc' | '5.8' | 'cellular-trace';

/** Old case names still accepted, and the case each now names. */
export const CASE_ALIASES: ReadonlyMap<string, CaseId> = new Map([['8869-cellular', 'cellular-trace']]);

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
 * A short TCP flow (RFC 8867 5.7): ON periods of `connectionsPerBurst`
 * downloads at once, each of a size drawn uniformly in [min, max] bytes,
 * separated by exponentially distributed idle periods; at most `maxBursts`
 * ON periods (default: no limit).
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
  readonly maxBursts?: number;
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
  /** The bottleneck queue as time: the longest a packet may wait, ms (see above). */
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
const KIB = 1024;
const case51 = { schedule: [{ atMs: 0, rateMbps: 1 }, { atMs: 40_000, rateMbps: 2.5 }, { atMs: 60_000, rateMbps: 0.6 }, { atMs: 80_000, rateMbps: 1 }] };
const longTcp = { kind: 'tcp-long', direction: 'forward', delayMs: DELAY, startMs: 0 } as const;
const case56 = (id: CaseId, queueMs: number, title: string, source: string): Rfc8867Case => ({
  id, title, source, durationMs: 120_000, forward: constant(2), backward: constant(2),
  queueMs, flows: [media(5_000), longTcp], checks: ['mediaShare', 'lossRate'],
});
/** 10 short TCP flows: 2 begin ON, 8 with an idle period; idle periods exponential, mean 10 s. */
const shortFlows = (download: Pick<ShortTcpSpec, 'minFileBytes' | 'maxFileBytes' | 'connectionsPerBurst' | 'maxBursts'>): ShortTcpSpec[] =>
  Array.from({ length: 10 }, (_, i): ShortTcpSpec => ({
    kind: 'tcp-short', direction: 'forward', delayMs: DELAY, startMs: 0, startsOn: i < 2, meanIdleMs: 10_000, ...download,
  }));

const CASE_LIST: readonly Rfc8867Case[] = [
  {
    id: '5.1', title: 'Variable available capacity with a single flow', source: 'RFC 8867 5.1',
    durationMs: 100_000,
    forward: case51, backward: constant(2.5),
    queueMs: QUEUE, flows: [media()],
    checks: ['utilisation', 'queueingDelayP95', 'lossRate', 'convergence'],
  },
  {
    id: '5.1b', title: 'Variable available capacity with a single flow, 100 ms one-way delay', source: 'RFC 8867 5.1 with its 100 ms one-way delay (ns-3 rmcat tc51b)',
    durationMs: 100_000,
    forward: case51, backward: constant(2.5),
    queueMs: QUEUE, flows: [media(0, { delayMs: 100 })],
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
  case56('5.6', QUEUE, 'Media flow competing with a long TCP flow (300 ms queue)', 'RFC 8867 5.6'),
  case56('5.6b', 1000, 'Media flow competing with a long TCP flow (1000 ms queue)', 'RFC 8867 5.6 (its 1000 ms queue)'),
  case56('5.6c', 20, 'Media flow competing with a long TCP flow (20 ms queue)', 'RFC 8867 5.6 (its 20 ms queue)'),
  {
    id: '5.7', title: 'Media flows competing with short TCP flows', source: 'RFC 8867 5.7; one download of 30 to 50 KiB per ON period, as ns-3 rmcat runs it',
    durationMs: 300_000, forward: constant(2), backward: constant(2),
    queueMs: QUEUE,
    flows: [media(5_000), media(5_000), ...shortFlows({ minFileBytes: 30 * KIB, maxFileBytes: 50 * KIB, connectionsPerBurst: 1 })],
    checks: ['mediaShare', 'queueingDelayP95', 'lossRate', 'fairness'],
  },
  {
    id: '5.7-libwebrtc', title: 'Media flows competing with short TCP flows (libwebrtc\'s: one file of 100 to 1000 kB per flow)', source: 'RFC 8867 5.7 as libwebrtc\'s bwe_test runs it: each TCP flow one download of 100 to 1000 kB, 2 at 0 s, 8 after an exponential idle period (mean 10 s)',
    durationMs: 300_000, forward: constant(2), backward: constant(2),
    queueMs: QUEUE,
    flows: [media(5_000), media(5_000), ...shortFlows({ minFileBytes: 100_000, maxFileBytes: 1_000_000, connectionsPerBurst: 1, maxBursts: 1 })],
    checks: ['mediaShare', 'queueingDelayP95', 'lossRate', 'fairness'],
  },
  {
    id: '5.8', title: 'Media pause and resume', source: 'RFC 8867 5.8',
    durationMs: 120_000, forward: constant(3.5), backward: constant(3.5),
    queueMs: QUEUE, flows: [media(0), media(0, { pauses: [[40_000, 60_000]] }), media(0)],
    checks: ['utilisation', 'queueingDelayP95', 'lossRate', 'fairness'],
  },
  {
    id: 'cellular-trace', title: 'Capacity of a recorded cellular trace (Verizon LTE)', source: 'the recorded Verizon-LTE-short trace as capacity (not one of RFC 8869\'s cases, which need LTE and Wi-Fi MAC models); formerly named 8869-cellular',
    durationMs: 120_000, forward: { trace: 'Verizon-LTE-short.down' }, backward: { trace: 'Verizon-LTE-short.up' },
    queueMs: QUEUE, flows: [media()],
    checks: ['queueingDelayP95', 'lossRate'],
  },
];

export const RFC8867_CASES: ReadonlyMap<CaseId, Rfc8867Case> = new Map(CASE_LIST.map((c) => [c.id, c]));
export const CASE_IDS: readonly CaseId[] = CASE_LIST.map((c) => c.id);

export function rfc8867Case(id: string): Rfc8867Case {
  const found = RFC8867_CASES.get((CASE_ALIASES.get(id) ?? id) as CaseId);
  if (!found) throw new RangeError(`unknown RFC 8867 case ${JSON.stringify(id)} (one of ${CASE_IDS.join(', ')})`);
  return found;
}

/** The capacity changes after time 0 (what convergence is measured after). */
export function capacityChanges(direction: CaseDirection): Schedule {
  return (direction.schedule ?? []).slice(1);
}
