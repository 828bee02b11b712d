// mm-link's "droptail" queue: a FIFO that refuses (drops) an arriving packet
// when accepting it would exceed the packet or byte limit.

import type { DropListener, PacketQueue, QueuedPacket } from '../queue.ts';
import { PacketRing } from './packet-ring.ts';
import { checkSizeLimit, describeSizeLimit, withinLimit, type CheckedSizeLimit, type SizeLimit } from './size-limit.ts';

export class DropTailQueue<T = unknown> implements PacketQueue<T> {
  readonly kind = 'droptail';
  readonly limit: CheckedSizeLimit;
  private readonly ring = new PacketRing<T>();

  constructor(limit: SizeLimit) {
    this.limit = checkSizeLimit(this.kind, limit);
  }

  enqueue(packet: QueuedPacket<T>, now: number, onDrop: DropListener<T>): void {
    if (withinLimit(this.limit, this.ring.bytes + packet.size, this.ring.length + 1)) this.ring.push(packet);
    else onDrop(packet, now);
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
