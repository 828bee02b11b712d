// A bounded map of codec states keyed by id, oldest evicted first: the sender's
// record of the states it produced, and the receiver's of the states it holds.
import type { CodecState } from '../codec-bridge/types.ts';

export class StateStore {
  readonly capacity: number;
  readonly #states = new Map<string, CodecState>();

  constructor(capacity: number) {
    if (!(Number.isInteger(capacity) && capacity > 0)) throw new RangeError(`state store capacity must be a positive integer, got ${capacity}`);
    this.capacity = capacity;
  }

  get size(): number {
    return this.#states.size;
  }

  get(id: string): CodecState | undefined {
    return this.#states.get(id);
  }

  has(id: string): boolean {
    return this.#states.has(id);
  }

  /** Adds (or refreshes) a state as the newest; evicts the oldest beyond capacity. */
  add(state: CodecState): void {
    this.#states.delete(state.id);
    this.#states.set(state.id, state);
    while (this.#states.size > this.capacity) this.#states.delete(this.#states.keys().next().value as string);
  }

  /** Forgets every state added before `id` (kept); returns how many went. No-op when `id` is not held. */
  dropOlderThan(id: string): number {
    if (!this.#states.has(id)) return 0;
    let dropped = 0;
    for (const key of this.#states.keys()) {
      if (key === id) break;
      this.#states.delete(key);
      dropped++;
    }
    return dropped;
  }

  /** Ids, newest first. */
  idsNewestFirst(): string[] {
    return [...this.#states.keys()].reverse();
  }
}
