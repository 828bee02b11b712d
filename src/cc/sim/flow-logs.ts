// mm-link logs of a multi-flow run. Mahimahi's log has no flow id, so each
// direction gets two kinds of log, both in mm-link's format (readable by
// `linkshell stats`, `linkshell graph` and Mahimahi's own scripts):
// - CASE.DIRECTION.log: the shared link as mm-link logs it (every
//   opportunity, arrival, departure and drop, whatever the flow);
// - CASE.DIRECTION.flow-N.log beside it: the same link's opportunities with
//   only flow N's arrivals, departures (and their queueing delay) and drops,
//   so the per-flow figures of `linkshell stats` are flow N's.
// Which flow a per-flow log belongs to is said in a `# flow: ...` comment
// line (Mahimahi's tools skip lines that start with '#').
//
// mm-link's clock is whole milliseconds; the simulator's is not (a paced
// sender sends at fractional times). Every event is logged at the
// millisecond it falls in (floor), and a departure's delay is its
// millisecond minus its arrival's, as mm-link would have logged them.
import { formatLinkLogHeader, LinkLogWriter } from '../../link-emu/link-log.ts';
import type { LinkEventSink } from '../../link-emu/link.ts';
import type { Trace } from '../../link-emu/trace.ts';
import type { FlowDirection, FlowPacketSink } from './bottleneck.ts';

interface Line {
  time: number;
  text: string;
}

export class FlowLogs implements FlowPacketSink {
  readonly #whole = new Map<FlowDirection, string[]>();
  readonly #writers = new Map<FlowDirection, LinkLogWriter>();
  /** Per flow and direction: lines to be put in time order at the end (an arrival is seen before the link logs the opportunities it passed while idle). */
  readonly #flowLines = new Map<string, Line[]>();
  readonly #opportunities = new Map<FlowDirection, Line[]>();

  constructor(
    readonly caseId: string,
    readonly flowCount: number,
    readonly queues: Record<FlowDirection, { readonly queue: string; readonly queueArgs: string; readonly maxWaitMs?: number }>,
    readonly traces: Record<FlowDirection, Trace>,
    readonly flowNames: readonly string[] = [],
  ) {
    for (const d of ['forward', 'backward'] as const) {
      const chunks: string[] = [];
      this.#whole.set(d, chunks);
      this.#opportunities.set(d, []);
      this.#writers.set(d, new LinkLogWriter((chunk) => chunks.push(chunk), this.#header(d, `${caseId}.${d}.log`)));
    }
  }

  #header(d: FlowDirection, logName: string) {
    const q = this.queues[d];
    return {
      linkName: d === 'forward' ? 'Downlink' : 'Uplink', traceName: this.traces[d].source, logName,
      commandLine: ['ccbench', 'rfc8867', '--case', this.caseId], queue: `${q.queue} [${q.queueArgs}]${q.maxWaitMs === undefined ? '' : ` (a packet that would wait over ${q.maxWaitMs} ms is dropped)`}`, initTimestamp: 0, baseTimestamp: 0,
    };
  }

  /** Sinks for the shared links' own events. */
  linkSinks(): Record<FlowDirection, LinkEventSink> {
    const sink = (d: FlowDirection): LinkEventSink => {
      const writer = this.#writers.get(d)!;
      const opportunities = this.#opportunities.get(d)!;
      return {
        arrival: (t, s) => writer.arrival(Math.floor(t), s),
        opportunity: (t, mtu) => {
          writer.opportunity(Math.floor(t), mtu);
          opportunities.push({ time: Math.floor(t), text: `${Math.floor(t)} # ${mtu}\n` });
        },
        departure: (t, s, delay) => writer.departure(Math.floor(t), s, Math.floor(t) - Math.floor(t - delay)),
        drop: (t, p, b) => writer.drop(Math.floor(t), p, b),
      };
    };
    return { forward: sink('forward'), backward: sink('backward') };
  }

  #lines(d: FlowDirection, flowId: number): Line[] {
    const key = `${d}/${flowId}`;
    let lines = this.#flowLines.get(key);
    if (!lines) this.#flowLines.set(key, (lines = []));
    return lines;
  }

  arrival(d: FlowDirection, flowId: number, time: number, size: number): void {
    const t = Math.floor(time);
    this.#lines(d, flowId).push({ time: t, text: `${t} + ${size}\n` });
  }
  departure(d: FlowDirection, flowId: number, time: number, size: number, delay: number): void {
    const t = Math.floor(time);
    this.#lines(d, flowId).push({ time: t, text: `${t} - ${size} ${t - Math.floor(time - delay)}\n` });
  }
  drop(d: FlowDirection, flowId: number, time: number, size: number): void {
    const t = Math.floor(time);
    this.#lines(d, flowId).push({ time: t, text: `${t} d 1 ${size}\n` });
  }

  /** The logs by file name (CASE.DIRECTION.log, CASE.DIRECTION.flow-N.log), the per-flow ones only for flows that used the direction. */
  finish(_endMs: number): Map<string, string> {
    const out = new Map<string, string>();
    for (const d of ['forward', 'backward'] as const) {
      this.#writers.get(d)!.close();
      out.set(`${this.caseId}.${d}.log`, this.#whole.get(d)!.join(''));
      for (let flowId = 0; flowId < this.flowCount; flowId++) {
        const own = this.#flowLines.get(`${d}/${flowId}`);
        if (!own || own.length === 0) continue;
        const name = `${this.caseId}.${d}.flow-${flowId}.log`;
        // Stable: a flow's events keep their order within a millisecond, opportunities first.
        const merged = [...this.#opportunities.get(d)!, ...own].sort((a, b) => a.time - b.time);
        const label = this.flowNames[flowId] ?? `flow ${flowId}`;
        out.set(name, formatLinkLogHeader(this.#header(d, name)) + `# flow: ${flowId} (${label}), ${d}\n` + merged.map((l) => l.text).join(''));
      }
    }
    return out;
  }
}
