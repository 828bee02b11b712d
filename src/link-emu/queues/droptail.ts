// mm-link's "droptail" queue: a FIFO that refuses (drops) an arriving packet
// when accepting it would exceed the packet or byte limit.

import type { DropListener, QueuedPacket } from '../queue.ts';
import { DroppingQueue } from './dropping-queue.ts';
import type { SizeLimit } from './size-limit.ts';

export class DropTailQueue<T = unknown> extends DroppingQueue<T> {
  constructor(limit: SizeLimit) {
    super('droptail', limit);
  }

  enqueue(packet: QueuedPacket<T>, now: number, onDrop: DropListener<T>): void {
    if (this.fits(packet)) this.ring.push(packet);
    else onDrop(packet, now);
  }

  dequeue(_now: number, _onDrop: DropListener<T>): QueuedPacket<T> | undefined {
    return this.ring.shift();
  }
}
