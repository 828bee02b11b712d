// mm-link's "drophead" queue: always accepts the arriving packet, then drops
// packets from the head until the packet and byte limits hold again. With a
// byte limit one arrival may push out several head packets; all are dropped
// and reported (Mahimahi's mm-link aborts on an assertion in that case). A
// packet larger than the byte limit on its own ends up dropped as well, after
// everything ahead of it.

import type { DropListener, PacketQueue, QueuedPacket } from '../queue.ts';
import { PacketRing } from './packet-ring.ts';
import { checkSizeLimit, describeSizeLimit, withinLimit, type CheckedSizeLimit, type SizeLimit } from './size-limit.ts';

export class DropHeadQueue<T = unknown> implements PacketQueue<T> {
  readonly kind = 'drophead';
  readonly limit: CheckedSizeLimit;
  private readonly ring = new PacketRing<T>();

  constructor(limit: SizeLimit) {
    this.limit = checkSizeLimit(this.kind, limit);
  }

  enqueue(packet: QueuedPacket<T>, now: number, onDrop: DropListener<T>): void {
    const ring = this.ring;
    ring.push(packet);
    while (!withinLimit(this.limit, ring.bytes, ring.length)) onDrop(ring.shift()!, now);
  }

  dequeue(_now: number, _onDrop: DropListener<T>): QueuedPacket<T> | undefined {
    return this.ring.shift();
  }

  sizeBytes(): number {
    return this.ring.bytes;
  }

  sizePackets(): number {
    return this.ring.length;
  }

  describe(): string {
    return describeSizeLimit(this.kind, this.limit);
  }
}
