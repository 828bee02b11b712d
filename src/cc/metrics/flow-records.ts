// What a multi-flow run records of every flow, per direction: each datagram
// the flow sent, and each one that reached the shared link, with its fate
// there (departure and queueing delay, or drop). A FlowPacketSink for
// runBottleneck (src/cc/sim/bottleneck.ts); the metrics (rfc8868.ts) and the
// per-flow logs (src/cc/sim/flow-logs.ts) are made from these records.
import type { FlowDirection, FlowPacketSink } from '../sim/bottleneck.ts';

/** Parallel arrays of one kind of event: times (ms), sizes (bytes on the link), and a value (queueing delay for departures). */
export class EventColumns {
  time: number[] = [];
  size: number[] = [];
  value: number[] = [];
  push(time: number, size: number, value = 0): void {
    this.time.push(time);
    this.size.push(size);
    this.value.push(value);
  }
  get length(): number {
    return this.time.length;
  }
}

export interface FlowDirectionRecords {
  readonly sent: EventColumns;
  readonly arrivals: EventColumns;
  readonly departures: EventColumns;
  readonly drops: EventColumns;
}

export class FlowRecorder implements FlowPacketSink {
  readonly #records = new Map<string, FlowDirectionRecords>();

  /** The records of one flow in one direction (empty if it sent nothing that way). */
  of(direction: FlowDirection, flowId: number): FlowDirectionRecords {
    const key = `${direction}/${flowId}`;
    let r = this.#records.get(key);
    if (!r) {
      r = { sent: new EventColumns(), arrivals: new EventColumns(), departures: new EventColumns(), drops: new EventColumns() };
      this.#records.set(key, r);
    }
    return r;
  }

  sent(direction: FlowDirection, flowId: number, time: number, size: number): void {
    this.of(direction, flowId).sent.push(time, size);
  }
  arrival(direction: FlowDirection, flowId: number, time: number, size: number): void {
    this.of(direction, flowId).arrivals.push(time, size);
  }
  departure(direction: FlowDirection, flowId: number, time: number, size: number, queueingDelayMs: number): void {
    this.of(direction, flowId).departures.push(time, size, queueingDelayMs);
  }
  drop(direction: FlowDirection, flowId: number, time: number, size: number): void {
    this.of(direction, flowId).drops.push(time, size);
  }
}

/** Several sinks as one (the recorder and the per-flow logs). */
export function teeSinks(...sinks: readonly FlowPacketSink[]): FlowPacketSink {
  return {
    sent: (d, f, t, s) => sinks.forEach((k) => k.sent?.(d, f, t, s)),
    arrival: (d, f, t, s) => sinks.forEach((k) => k.arrival?.(d, f, t, s)),
    departure: (d, f, t, s, q) => sinks.forEach((k) => k.departure?.(d, f, t, s, q)),
    drop: (d, f, t, s) => sinks.forEach((k) => k.drop?.(d, f, t, s)),
  };
}
