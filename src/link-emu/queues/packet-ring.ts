// A growable circular FIFO of queued packets that also keeps the byte total.
// Every discipline stores its packets here: push and shift are O(1) with no
// Array.shift (which copies) and no allocation except when the ring doubles.

import type { QueuedPacket } from '../queue.ts';

const INITIAL_CAPACITY = 64;

export class PacketRing<T> {
  private slots: (QueuedPacket<T> | undefined)[];
  /** capacity - 1; the capacity is always a power of two. */
  private mask: number;
  private head = 0;
  private count = 0;
  private byteTotal = 0;

  constructor(initialCapacity = INITIAL_CAPACITY) {
    let capacity = 1;
    while (capacity < initialCapacity) capacity *= 2;
    this.slots = new Array(capacity).fill(undefined);
    this.mask = capacity - 1;
  }

  /** Packets held. */
  get length(): number {
    return this.count;
  }

  /** Sum of the held packets' sizes. */
  get bytes(): number {
    return this.byteTotal;
  }

  /** Appends a packet at the tail. */
  push(packet: QueuedPacket<T>): void {
    if (this.count > this.mask) this.grow();
    this.slots[(this.head + this.count) & this.mask] = packet;
    this.count++;
    this.byteTotal += packet.size;
  }

  /** Removes and returns the head packet, or undefined when empty. */
  shift(): QueuedPacket<T> | undefined {
    if (this.count === 0) return undefined;
    const packet = this.slots[this.head]!;
    this.slots[this.head] = undefined; // let the payload be collected
    this.head = (this.head + 1) & this.mask;
    this.count--;
    this.byteTotal -= packet.size;
    return packet;
  }

  /** The head packet without removing it, or undefined when empty. */
  peek(): QueuedPacket<T> | undefined {
    return this.count === 0 ? undefined : this.slots[this.head];
  }

  private grow(): void {
    const old = this.slots;
    const capacity = old.length * 2;
    const slots: (QueuedPacket<T> | undefined)[] = new Array(capacity).fill(undefined);
    for (let i = 0; i < this.count; i++) slots[i] = old[(this.head + i) & this.mask];
    this.slots = slots;
    this.mask = capacity - 1;
    this.head = 0;
  }
}
