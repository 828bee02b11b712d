// mm-link's "drophead" queue: always accepts the arriving packet, then drops
// packets from the head until the packet and byte limits hold again. With a
// byte limit one arrival may push out several head packets; all are dropped
// and reported (Mahimahi's mm-link aborts on an assertion in that case). A
// packet larger than the byte limit on its own ends up dropped as well, after
// everything ahead of it.

import type { DropListener, QueuedPacket } from '../queue.ts';
import { DroppingQueue } from './dropping-queue.ts';
import { withinLimit, type SizeLimit } from './size-limit.ts';

export class DropHeadQueue<T = unknown> extends DroppingQueue<T> {
  constructor(limit: SizeLimit) {
    super('drophead', limit);
  }

  enqueue(packet: QueuedPacket<T>, now: number, onDrop: DropListener<T>): void {
    const ring = this.ring;
    ring.push(packet);
    while (!withinLimit(this.limit, ring.bytes, ring.length)) onDrop(ring.shift()!, now);
  }

  dequeue(_now: number, _onDrop: DropListener<T>): QueuedPacket<T> | undefined {
    return this.ring.shift();
  }
}
