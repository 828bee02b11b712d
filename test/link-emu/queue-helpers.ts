// Shared helpers for the queue-discipline tests: packets with an id payload,
// and a drop recorder.
import type { DropListener, QueuedPacket } from '../../src/link-emu/queue.ts';

export function packet(id: string | number, size: number, arrival: number): QueuedPacket<string> {
  return { size, arrival, payload: String(id) };
}

export interface DropLog {
  readonly onDrop: DropListener<string>;
  /** "id@time" for every drop, in order. */
  readonly drops: string[];
}

export function dropLog(): DropLog {
  const drops: string[] = [];
  return { drops, onDrop: (p, now) => drops.push(`${p.payload}@${now}`) };
}
