// A summary of the getStats() snapshots both pages took every 500 ms (kept
// raw in JSONL by the call): a time series of the send and receive bitrates,
// Chromium's target and available bitrates, RTT, quality-limitation reason,
// resolution and jitter-buffer delay, and the totals at the end of the call
// (packets lost, NACKs, retransmitted bytes, PLIs, frames encoded, decoded
// and dropped, freezes, mean jitter-buffer delay, quality-limitation time).
// A field the browser never reported stays missing (null in summary.json)
// and is named in `notReported`: Firefox, for one, reports no target or
// available bitrate, quality-limitation reason or codec implementation.
import type { StatsSnapshot } from './call.ts';

type Stat = Record<string, unknown>;

function find(snapshot: StatsSnapshot, type: string, where: (s: Stat) => boolean = () => true): Stat | undefined {
  return snapshot.report.find((s) => s.type === type && (s.kind === undefined || s.kind === 'video') && where(s));
}

function num(s: Stat | undefined, field: string): number | undefined {
  const v = s?.[field];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function selectedPair(snapshot: StatsSnapshot): Stat | undefined {
  const transport = find(snapshot, 'transport');
  const id = transport?.selectedCandidatePairId;
  return snapshot.report.find((s) => s.type === 'candidate-pair' && (id !== undefined ? s.id === id : s.nominated === true && s.state === 'succeeded'));
}

export interface StatsPoint {
  /** Seconds since the first snapshot of the sender. */
  readonly t: number;
  /** RTP bytes (payload, padding and headers) sent over the interval before this point, Mbit/s. */
  readonly sendMbps?: number;
  readonly receiveMbps?: number;
  readonly targetMbps?: number;
  readonly availableMbps?: number;
  readonly rttMs?: number;
  readonly qualityLimitation?: string;
  readonly sentResolution?: string;
  /** Mean jitter-buffer delay of the frames emitted over the interval, and the jitter buffer's target, ms. */
  readonly jitterBufferMs?: number;
  readonly jitterBufferTargetMs?: number;
}

export interface StatsTotals {
  readonly bytesSent?: number;
  readonly retransmittedBytesSent?: number;
  readonly packetsSent?: number;
  readonly packetsLost?: number;
  readonly nackCount?: number;
  readonly pliCount?: number;
  readonly firCount?: number;
  readonly framesEncoded?: number;
  readonly keyFramesEncoded?: number;
  readonly framesSent?: number;
  readonly framesReceived?: number;
  readonly framesDecoded?: number;
  readonly framesDropped?: number;
  readonly freezeCount?: number;
  readonly totalFreezesDurationS?: number;
  readonly meanJitterBufferMs?: number;
  readonly qualityLimitationDurationsS?: Record<string, number>;
  readonly encoderImplementation?: string;
  readonly decoderImplementation?: string;
}

export interface StatsSummary {
  readonly totals: StatsTotals;
  readonly series: StatsPoint[];
  /** The sent resolution over time: each change, with its time (s). */
  readonly resolutions: { t: number; resolution: string }[];
  /** The totals and series fields no snapshot gave (the browser does not report them), sorted. */
  readonly notReported: string[];
}

const SERIES_FIELDS = ['sendMbps', 'receiveMbps', 'targetMbps', 'availableMbps', 'rttMs', 'qualityLimitation', 'sentResolution', 'jitterBufferMs', 'jitterBufferTargetMs'] as const satisfies readonly (keyof StatsPoint)[];

/** The totals with every field present: null where the browser reported nothing (for summary.json, where a missing field would vanish). */
export function totalsWithNulls(totals: StatsTotals): Record<string, unknown> {
  return Object.fromEntries(Object.entries(totals).map(([k, v]) => [k, v ?? null]));
}

function fieldsNotReported(totals: StatsTotals, series: readonly StatsPoint[]): string[] {
  const totalsMissing = Object.entries(totals).filter(([, v]) => v === undefined).map(([k]) => `totals.${k}`);
  const seriesMissing = SERIES_FIELDS.filter((k) => series.every((p) => p[k] === undefined)).map((k) => `series.${k}`);
  return [...totalsMissing, ...seriesMissing].sort();
}

function rtpBytes(s: Stat | undefined, prefix: 'Sent' | 'Received'): number | undefined {
  const payload = num(s, `bytes${prefix}`);
  if (payload === undefined) return undefined;
  return payload + (num(s, `headerBytes${prefix}`) ?? 0);
}

export function summarizeStats(sender: readonly StatsSnapshot[], receiver: readonly StatsSnapshot[]): StatsSummary {
  const t0 = sender[0]?.t ?? 0;
  const series: StatsPoint[] = [];
  const resolutions: { t: number; resolution: string }[] = [];
  const rates = (list: readonly StatsSnapshot[], type: string, prefix: 'Sent' | 'Received') => {
    const out = new Map<number, number>();
    for (let i = 1; i < list.length; i++) {
      const a = rtpBytes(find(list[i - 1], type), prefix);
      const b = rtpBytes(find(list[i], type), prefix);
      const dt = list[i].t - list[i - 1].t;
      if (a !== undefined && b !== undefined && dt > 0) out.set(i, ((b - a) * 8) / dt / 1000);
    }
    return out;
  };
  const sendRates = rates(sender, 'outbound-rtp', 'Sent');
  const receiveRates = rates(receiver, 'inbound-rtp', 'Received');
  let lastResolution = '';
  for (let i = 0; i < sender.length; i++) {
    const out = find(sender[i], 'outbound-rtp');
    const pair = selectedPair(sender[i]);
    const remote = find(sender[i], 'remote-inbound-rtp');
    const width = num(out, 'frameWidth');
    const height = num(out, 'frameHeight');
    const resolution = width !== undefined && height !== undefined ? `${width}x${height}` : undefined;
    const t = (sender[i].t - t0) / 1000;
    if (resolution !== undefined && resolution !== lastResolution) {
      resolutions.push({ t, resolution });
      lastResolution = resolution;
    }
    const target = num(out, 'targetBitrate');
    const available = num(pair, 'availableOutgoingBitrate');
    const rtt = num(pair, 'currentRoundTripTime') ?? num(remote, 'roundTripTime');
    // The receiver's snapshot nearest in time (both pages sample every 500 ms).
    const r = receiver.length > 0 ? Math.min(receiver.length - 1, Math.max(0, i)) : -1;
    let jitterBufferMs: number | undefined;
    let jitterBufferTargetMs: number | undefined;
    if (r > 0) {
      const a = find(receiver[r - 1], 'inbound-rtp');
      const b = find(receiver[r], 'inbound-rtp');
      const delay = (num(b, 'jitterBufferDelay') ?? 0) - (num(a, 'jitterBufferDelay') ?? 0);
      const emitted = (num(b, 'jitterBufferEmittedCount') ?? 0) - (num(a, 'jitterBufferEmittedCount') ?? 0);
      if (emitted > 0) jitterBufferMs = (delay / emitted) * 1000;
      const target = (num(b, 'jitterBufferTargetDelay') ?? 0) - (num(a, 'jitterBufferTargetDelay') ?? 0);
      if (emitted > 0 && num(b, 'jitterBufferTargetDelay') !== undefined) jitterBufferTargetMs = (target / emitted) * 1000;
    }
    series.push({
      t,
      sendMbps: sendRates.get(i),
      receiveMbps: r >= 0 ? receiveRates.get(r) : undefined,
      targetMbps: target === undefined ? undefined : target / 1e6,
      availableMbps: available === undefined ? undefined : available / 1e6,
      rttMs: rtt === undefined ? undefined : rtt * 1000,
      qualityLimitation: typeof out?.qualityLimitationReason === 'string' ? out.qualityLimitationReason : undefined,
      sentResolution: resolution,
      jitterBufferMs,
      jitterBufferTargetMs,
    });
  }
  const lastOut = sender.length > 0 ? find(sender[sender.length - 1], 'outbound-rtp') : undefined;
  const lastRemote = sender.length > 0 ? find(sender[sender.length - 1], 'remote-inbound-rtp') : undefined;
  const lastIn = receiver.length > 0 ? find(receiver[receiver.length - 1], 'inbound-rtp') : undefined;
  const jbd = num(lastIn, 'jitterBufferDelay');
  const jbe = num(lastIn, 'jitterBufferEmittedCount');
  const durations = lastOut?.qualityLimitationDurations;
  const totals: StatsTotals = {
    bytesSent: rtpBytes(lastOut, 'Sent'),
    retransmittedBytesSent: num(lastOut, 'retransmittedBytesSent'),
    packetsSent: num(lastOut, 'packetsSent'),
    packetsLost: num(lastIn, 'packetsLost') ?? num(lastRemote, 'packetsLost'),
    nackCount: num(lastOut, 'nackCount'),
    pliCount: num(lastOut, 'pliCount'),
    firCount: num(lastOut, 'firCount'),
    framesEncoded: num(lastOut, 'framesEncoded'),
    keyFramesEncoded: num(lastOut, 'keyFramesEncoded'),
    framesSent: num(lastOut, 'framesSent'),
    framesReceived: num(lastIn, 'framesReceived'),
    framesDecoded: num(lastIn, 'framesDecoded'),
    framesDropped: num(lastIn, 'framesDropped'),
    freezeCount: num(lastIn, 'freezeCount'),
    totalFreezesDurationS: num(lastIn, 'totalFreezesDuration'),
    meanJitterBufferMs: jbd !== undefined && jbe ? (jbd / jbe) * 1000 : undefined,
    qualityLimitationDurationsS: durations && typeof durations === 'object' ? (durations as Record<string, number>) : undefined,
    encoderImplementation: typeof lastOut?.encoderImplementation === 'string' ? lastOut.encoderImplementation : undefined,
    decoderImplementation: typeof lastIn?.decoderImplementation === 'string' ? lastIn.decoderImplementation : undefined,
  };
  return { totals, series, resolutions, notReported: fieldsNotReported(totals, series) };
}

/** The longest run of consecutive intervals whose send rate exceeds `mbps`, in seconds. */
export function longestAbove(series: readonly StatsPoint[], mbps: number): number {
  let longest = 0;
  let runStart: number | undefined;
  let previousT = 0;
  for (const p of series) {
    if (p.sendMbps !== undefined && p.sendMbps > mbps) {
      runStart ??= previousT;
      longest = Math.max(longest, p.t - runStart);
    } else runStart = undefined;
    previousT = p.t;
  }
  return longest;
}

/**
 * RTP bytes (payload, padding and headers) the sender sent between two times of its page's clock:
 * its cumulative counter read at each time, interpolated linearly between the snapshots around it
 * (taken every 500 ms); before the first snapshot the first one's count, after the last the last's.
 * Undefined without a snapshot that reports it.
 */
export function bytesSentBetween(sender: readonly StatsSnapshot[], fromT: number, toT: number): number | undefined {
  const points = sender
    .map((s) => ({ t: s.t, bytes: rtpBytes(find(s, 'outbound-rtp'), 'Sent') }))
    .filter((p): p is { t: number; bytes: number } => p.bytes !== undefined);
  if (points.length === 0) return undefined;
  const at = (t: number): number => {
    if (t <= points[0]!.t) return points[0]!.bytes;
    for (let i = 1; i < points.length; i++) {
      const a = points[i - 1]!;
      const b = points[i]!;
      if (t <= b.t) return a.bytes + ((b.bytes - a.bytes) * (t - a.t)) / (b.t - a.t);
    }
    return points[points.length - 1]!.bytes;
  };
  return Math.max(0, at(toT) - at(fromT));
}

