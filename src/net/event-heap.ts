// A binary min-heap of timed events ordered by (time, seq): the event queue
// shared by the simulator (virtual time) and the wall-clock scheduler.

export interface TimedEntry {
  readonly time: number;
  /** Scheduling order: breaks ties between equal times, first scheduled first. */
  readonly seq: number;
}

export class EventHeap<E extends TimedEntry> {
  /** The entries in heap order; entries[0] is the earliest. Read-only for callers. */
  readonly entries: E[] = [];

  get size(): number {
    return this.entries.length;
  }

  /** The earliest entry, or undefined. */
  peek(): E | undefined {
    return this.entries[0];
  }

  push(entry: E): void {
    const heap = this.entries;
    let i = heap.length;
    heap.push(entry);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent];
      if (p.time < entry.time || (p.time === entry.time && p.seq < entry.seq)) break;
      heap[i] = p;
      i = parent;
    }
    heap[i] = entry;
  }

  /** Removes and returns the earliest entry. */
  pop(): E | undefined {
    const heap = this.entries;
    const top = heap[0];
    const last = heap.pop();
    const n = heap.length;
    if (n === 0 || last === undefined) return top;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      let child = left;
      let c = heap[left];
      if (right < n) {
        const r = heap[right];
        if (r.time < c.time || (r.time === c.time && r.seq < c.seq)) {
          child = right;
          c = r;
        }
      }
      if (last.time < c.time || (last.time === c.time && last.seq < c.seq)) break;
      heap[i] = c;
      i = child;
    }
    heap[i] = last;
    return top;
  }

  clear(): void {
    this.entries.length = 0;
  }
}
