// Re-runs a recorded offered load through an emulated link: the arrivals of a
// log (or of a plain TIME SIZE list) enter a TraceLink in order, and the link
// produces the opportunities, departures and drops an mm-link would have.

import { TraceLink, type LinkEventSink } from './link.ts';
import { LogEventKind, type ParsedLinkLog } from './link-log.ts';
import type { PacketQueue } from './queue.ts';
import type { Trace } from './trace.ts';

export interface Arrivals {
  time: Float64Array;
  size: Float64Array;
}

export interface ReplayOptions {
  arrivals: Arrivals;
  trace: Trace;
  queue: PacketQueue<null>;
  mtu?: number;
  once?: boolean;
  baseTimestamp: number;
  /** Use opportunities up to this time after the last arrival (default: until the queue drains). */
  until?: number;
  events?: LinkEventSink;
}

export interface ReplaySummary {
  arrivals: number;
  departures: number;
  drops: number;
  /** Time of the last event the replay produced. */
  endTime: number;
}

/** The `+` lines of a parsed log. */
export function arrivalsFromLog(log: ParsedLinkLog): Arrivals {
  let n = 0;
  for (let i = 0; i < log.count; i++) if (log.kind[i] === LogEventKind.Arrival) n++;
  const time = new Float64Array(n);
  const size = new Float64Array(n);
  let j = 0;
  for (let i = 0; i < log.count; i++) {
    if (log.kind[i] !== LogEventKind.Arrival) continue;
    time[j] = log.time[i];
    size[j] = log.a[i];
    j++;
  }
  return { time, size };
}

/** Time of the last event of any kind in a log (0 for an empty one). */
export function lastLogTime(log: ParsedLinkLog): number {
  return log.count > 0 ? log.time[log.count - 1] : 0;
}

/**
 * Parses a plain offered-load file: one "TIME SIZE" pair per line (integer ms
 * and bytes, separated by spaces or tabs); '#' comments and blank lines skipped.
 */
export function parseArrivalList(text: string, source: string): Arrivals {
  const times: number[] = [];
  const sizes: number[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].replace(/\r$/, '').trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = /^(\d{1,15})[ \t]+(\d{1,9})$/.exec(line);
    if (!m) throw new Error(`${source}:${i + 1}: expected "TIME SIZE" (non-negative integers), got ${JSON.stringify(line.slice(0, 80))}`);
    const t = Number(m[1]);
    if (times.length > 0 && t < times[times.length - 1]) {
      throw new Error(`${source}:${i + 1}: time ${t} is earlier than the previous arrival (${times[times.length - 1]})`);
    }
    times.push(t);
    sizes.push(Number(m[2]));
  }
  if (times.length === 0) throw new Error(`${source}: no arrivals (the file is empty or has only comments)`);
  return { time: Float64Array.from(times), size: Float64Array.from(sizes) };
}

export function replay(options: ReplayOptions): ReplaySummary {
  const { arrivals } = options;
  const link = new TraceLink<null>({
    trace: options.trace,
    queue: options.queue,
    mtu: options.mtu,
    once: options.once,
    baseTimestamp: options.baseTimestamp,
    events: options.events,
  });
  let departures = 0;
  let endTime = 0;
  const onDeparture = (_p: unknown, t: number) => {
    departures++;
    endTime = t;
  };
  let drops = 0;
  for (let i = 0; i < arrivals.time.length; i++) {
    const t = arrivals.time[i];
    if (i > 0 && t < arrivals.time[i - 1]) throw new Error(`arrival ${i + 1} at ${t} ms is earlier than the one before it`);
    drops += link.arrive(t, arrivals.size[i], null, onDeparture);
    endTime = Math.max(endTime, t);
  }
  if (options.until !== undefined) {
    link.advanceTo(options.until, onDeparture);
    endTime = Math.max(endTime, Math.min(options.until, link.isFinished() ? endTime : options.until));
  } else {
    // Until the queue drains (or a `once` trace ends).
    while (!link.isIdle() && !link.isFinished()) link.advanceTo(link.nextOpportunity(), onDeparture);
  }
  return { arrivals: arrivals.time.length, departures, drops, endTime };
}
