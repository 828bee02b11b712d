// What linkshell prints when it ends: one column per direction. "datagrams
// in" counts what reached linkshell; what the kernel dropped at its sockets
// before that (full receive buffers) is the "drops: socket (kernel)" row:
// the uplink's at the listen socket, the downlink's at the outside sockets.

import Table from 'cli-table3';
import type { DirectionStats } from './direction.ts';
import type { RelayCounters } from './relay.ts';
import type { TraceClockReport } from './trace-clock.ts';

export interface DirectionReport {
  name: string;
  trace: string;
  queue: string;
  stats: DirectionStats;
  /** Datagrams the kernel dropped at linkshell's socket(s) before this direction could take them (full receive buffer); undefined where not known. */
  socketDrops: number | undefined;
}

export interface LinkshellReport {
  /** From the trace's start (the trace clock's) to the end. */
  durationMs: number;
  /** When the trace started and what passed unemulated before (trace-clock.ts). */
  traceClock?: TraceClockReport;
  directions: DirectionReport[];
  /** Who received the datagrams: the native packet path's thread (arrival = the kernel's receive time) or the event loop (arrival = read time). */
  receivePath?: 'native' | 'event-loop';
  /** The relay's counters (relay mode). */
  relay?: RelayCounters;
  /** The TUN devices' counters (linkshell --netns). */
  netns?: NetnsCounters;
}

/** What linkshell --netns counts besides the directions. */
export interface NetnsCounters {
  namespace: string;
  /** Packets the TUN devices refused (a full device queue, or not an IP packet). */
  writeDrops: number;
  /** Questions the DNS forwarder answered (undefined: it could not listen). */
  dnsAnswers: number | undefined;
}

const mbps = (bytes: number, ms: number) => (ms > 0 ? (bytes * 8) / ms / 1000 : NaN);
const fixed = (x: number, digits: number) => (Number.isFinite(x) ? x.toFixed(digits) : '-');

/** Throughput through the link against the capacity its opportunities offered, in Mbit/s over the run. */
export function throughputFigures(stats: DirectionStats, durationMs: number): { capacityMbps: number; throughputMbps: number; utilization: number } {
  return {
    capacityMbps: mbps(stats.capacityBytes, durationMs),
    throughputMbps: mbps(stats.linkDepartureBytes, durationMs),
    utilization: stats.capacityBytes > 0 ? stats.linkDepartureBytes / stats.capacityBytes : NaN,
  };
}

export function formatSummary(report: LinkshellReport): string {
  const dirs = report.directions;
  const table = new Table({ head: ['', ...dirs.map((d) => d.name)], style: { head: [], border: [] } });
  const row = (label: string, cell: (d: DirectionReport) => string) => table.push([label, ...dirs.map(cell)]);
  const ms = report.durationMs;
  row('trace', (d) => d.trace);
  row('queue', (d) => d.queue);
  row('datagrams in', (d) => String(d.stats.packetsIn + d.stats.memoryCapDrops));
  row('datagrams out', (d) => String(d.stats.packetsOut));
  row('bytes in (on link)', (d) => String(d.stats.bytesIn + d.stats.memoryCapDropBytes));
  row('bytes out (on link)', (d) => String(d.stats.bytesOut));
  row('drops: queue', (d) => String(d.stats.drops.queue));
  row('drops: memory cap', (d) => String(d.stats.memoryCapDrops));
  row('drops: loss', (d) => String(d.stats.drops.loss));
  row('drops: on/off', (d) => String(d.stats.drops.onoff));
  row('drops: oversize', (d) => String(d.stats.drops.oversize));
  row('drops: socket (kernel)', (d) => (d.socketDrops === undefined ? 'not known' : String(d.socketDrops)));
  if (dirs.some((d) => d.stats.passthroughDatagrams > 0)) row('passed through unemulated', (d) => `${d.stats.passthroughDatagrams} (${d.stats.passthroughBytes} bytes)`);
  row('left in flight', (d) => `${d.stats.heldBytes} bytes`);
  row('capacity', (d) => `${fixed(throughputFigures(d.stats, ms).capacityMbps, 3)} Mbit/s`);
  row('throughput', (d) => {
    const t = throughputFigures(d.stats, ms);
    return `${fixed(t.throughputMbps, 3)} Mbit/s (${fixed(100 * t.utilization, 1)} %)`;
  });
  row('queueing delay', (d) => {
    const h = d.stats.queueingDelayMs;
    if (h.count() === 0) return 'no departures';
    return `p50 ${fixed(h.quantile(0.5), 0)} p95 ${fixed(h.quantile(0.95), 0)} p99 ${fixed(h.quantile(0.99), 0)} max ${fixed(h.max(), 0)} ms`;
  });
  row('departure lateness', (d) => {
    const h = d.stats.departureLatenessMs;
    if (h.count() === 0) return 'no departures';
    return `p50 ${fixed(h.quantile(0.5), 3)} p99 ${fixed(h.quantile(0.99), 3)} max ${fixed(h.max(), 3)} ms`;
  });
  const notes = report.relay ? relayNotes(report.relay) : report.netns ? netnsNotes(report.netns) : [];
  if (report.traceClock !== undefined && report.traceClock.start !== 'now') notes.push(traceClockNote(report.traceClock));
  if (report.receivePath !== undefined) notes.push(report.receivePath === 'native' ? 'arrivals stamped by the kernel (native thread)' : 'arrivals timed when read (event loop)');
  return `linkshell: ran ${fixed(ms / 1000, 3)} s${notes.length > 0 ? '; ' : ''}${notes.join(', ')}\n${table.toString()}\n`;
}

/** "trace clock held until the first RTP packet, started 2.104 s into the run (314 datagrams passed unemulated before it)". */
export function traceClockNote(t: TraceClockReport): string {
  const passed = t.passedUnemulated[0].datagrams + t.passedUnemulated[1].datagrams;
  const what = t.start === 'first-rtp' ? 'RTP packet' : 'datagram';
  const when = t.startedAtMs === null || t.heldToEnd ? 'which never came' : `started ${fixed(t.startedAtMs / 1000, 3)} s into the run`;
  return `trace clock held until the first ${what}, ${when} (${passed} datagram${passed === 1 ? '' : 's'} passed unemulated before it)`;
}

function netnsNotes(n: NetnsCounters): string[] {
  const notes = [`network namespace ${n.namespace}`];
  if (n.dnsAnswers !== undefined) notes.push(`${n.dnsAnswers} DNS answer${n.dnsAnswers === 1 ? '' : 's'}`);
  if (n.writeDrops > 0) notes.push(`${n.writeDrops} packets refused by the TUN devices`);
  return notes;
}

function relayNotes(r: RelayCounters): string[] {
  const notes: string[] = [`${r.sources} inside source${r.sources === 1 ? '' : 's'}`];
  if (r.evictedSources > 0) notes.push(`${r.evictedSources} idle sources forgotten to make room (${r.evictedFlowDatagrams} of their datagrams dropped)`);
  if (r.refusedSourceDatagrams > 0) notes.push(`${r.refusedSourceDatagrams} datagrams from sources past --max-sources dropped`);
  if (r.foreignPortDatagrams > 0) notes.push(`${r.foreignPortDatagrams} datagrams from the peer's host but another port than the peer's dropped`);
  if (r.foreignDatagrams > 0) notes.push(`${r.foreignDatagrams} datagrams from other hosts than the peer's ignored`);
  if (r.sendErrors > 0) notes.push(`${r.sendErrors} send errors`);
  if (r.peerRefusals > 0) notes.push(`${r.peerRefusals} refusals (port unreachable) from the peer`);
  if (r.socketErrors > 0) notes.push(`${r.socketErrors} socket errors`);
  return notes;
}

/** The live one-line status: rates since the last line, queue and delay now. */
export class StatusLine {
  private last: { ms: number; out: number[] } | undefined;

  line(nowMs: number, directions: DirectionReport[]): string {
    const out = directions.map((d) => d.stats.bytesOut);
    const prev = this.last;
    this.last = { ms: nowMs, out };
    const parts = directions.map((d, i) => {
      const s = d.stats;
      const rate = prev && nowMs > prev.ms ? mbps(out[i] - prev.out[i], nowMs - prev.ms) : NaN;
      const delay = Number.isNaN(s.lastQueueingDelayMs) ? 'no departures' : `delay ${s.lastQueueingDelayMs} ms`;
      const drops = s.drops.queue + s.drops.loss + s.drops.onoff + s.drops.oversize + s.memoryCapDrops;
      return `${d.name} ${fixed(rate, 2)} Mbit/s, queue ${s.queuePackets} pkts/${s.queueBytes} B, ${delay}, ${drops} drops`;
    });
    return `${fixed(nowMs / 1000, 1)} s | ${parts.join(' | ')}`;
  }
}
