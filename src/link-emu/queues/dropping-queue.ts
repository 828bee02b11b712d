// What mm-link's "dropping" disciplines (droptail, drophead, codel, pie)
// share, as Mahimahi's DroppingPacketQueue does: a FIFO with a packet and/or
// byte limit, its sizes, and the "# queue:" text naming the limit (codel and
// pie print only their limits too, as in mm-link).

import type { DropListener, PacketQueue, QueuedPacket } from '../queue.ts';
import { PacketRing } from './packet-ring.ts';
import { checkSizeLimit, describeSizeLimit, withinLimit, type CheckedSizeLimit, type SizeLimit } from './size-limit.ts';

export abstract class DroppingQueue<T = unknown> implements PacketQueue<T> {
  readonly limit: CheckedSizeLimit;
  protected readonly ring = new PacketRing<T>();

  constructor(readonly kind: string, limit: SizeLimit) {
    this.limit = checkSizeLimit(kind, limit);
  }

  abstract enqueue(packet: QueuedPacket<T>, now: number, onDrop: DropListener<T>): void;
  abstract dequeue(now: number, onDrop: DropListener<T>): QueuedPacket<T> | undefined;

  sizeBytes(): number {
    return this.ring.bytes;
  }

  sizePackets(): number {
    return this.ring.length;
  }

  describe(): string {
    return describeSizeLimit(this.kind, this.limit);
  }

  /** True when `packet` can join the queue without exceeding the limit. */
  protected fits(packet: QueuedPacket<T>): boolean {
    return withinLimit(this.limit, this.ring.bytes + packet.size, this.ring.length + 1);
  }
}
