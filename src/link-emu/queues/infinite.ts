// mm-link's "infinite" queue: a FIFO without limit that never drops.

import type { DropListener, PacketQueue, QueuedPacket } from '../queue.ts';
import { PacketRing } from './packet-ring.ts';

export class InfiniteQueue<T = unknown> implements PacketQueue<T> {
  readonly kind = 'infinite';
  private readonly ring = new PacketRing<T>();

  enqueue(packet: QueuedPacket<T>, _now: number, _onDrop: DropListener<T>): void {
    this.ring.push(packet);
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
    return 'infinite';
  }
}
