// mm-link's "codel" queue: Controlled Delay (RFC 8289) on top of a packet/byte
// limited FIFO, as Mahimahi runs it.
//
// Arrivals are refused like droptail when the limit would be exceeded. The
// AQM decides at dequeue, i.e. at the link's delivery opportunities, with the
// time `now` passed by the link as its clock (Mahimahi reads the wall clock
// there instead, which its logs do not record). Every packet dropped at
// dequeue is reported to onDrop (Mahimahi's log omits them).
//
// State machine (RFC 8289 section 5, Linux flavour, with Mahimahi's integer
// milliseconds):
// - Taking a packet off the head measures its sojourn time (now - arrival).
//   The delay counts as "above" when the sojourn is >= target and more than
//   one maximum-size packet (1504 bytes) is still queued after it; once above
//   continuously for `interval`, dropping is allowed. Emptying the queue, or
//   one sojourn below target, resets that.
// - Not dropping and allowed: drop one packet, enter the dropping state, set
//   count to 1 (or to the previous cycle's drop count, if that was > 1 and the
//   last scheduled drop is less than 16 intervals ago: RFC 8289's count
//   reuse), and schedule the next drop at now + interval / sqrt(count).
// - Dropping: leave the state as soon as a dequeued packet is not above;
//   otherwise, while now has reached the scheduled time, drop a packet,
//   increment count and schedule the next one interval / sqrt(count) after the
//   previous schedule (the increment truncated to whole milliseconds).
// As in Mahimahi (whose dequeue keeps the packet it took first and discards
// the ones it takes for the drop decisions), the packet returned is the head
// one and the dropped packets are those behind it; RFC 8289's pseudocode
// drops the head and returns the next. The drop times, counts and states are
// the same either way.

import type { DropListener, QueuedPacket } from '../queue.ts';
import { DroppingQueue } from './dropping-queue.ts';
import type { SizeLimit } from './size-limit.ts';

/** Mahimahi's CoDel assumes this largest packet size (bytes) for its "more than one packet queued" test. */
export const CODEL_MAX_PACKET = 1504;

export interface CoDelOptions extends SizeLimit {
  /** Acceptable standing queue delay, ms (> 0). mm-link requires it; RFC 8289 suggests 5. */
  readonly target: number;
  /** Sliding window for the minimum delay, ms (> 0). mm-link requires it; RFC 8289 suggests 100. */
  readonly interval: number;
  /** Largest packet size for the "more than one packet queued" test (default 1504, Mahimahi's constant). */
  readonly maxPacket?: number;
}

export class CoDelQueue<T = unknown> extends DroppingQueue<T> {
  readonly target: number;
  readonly interval: number;
  readonly maxPacket: number;
  /** When the delay may first count as persistently above target; 0 when it is below. */
  private firstAboveTime = 0;
  private dropNext = 0;
  private count = 0;
  private lastCount = 0;
  private dropping = false;
  /** Verdict of the last take(): may that packet's successor be dropped? */
  private okToDrop = false;

  constructor(options: CoDelOptions) {
    super('codel', options);
    this.target = positiveInteger('target', options.target);
    this.interval = positiveInteger('interval', options.interval);
    this.maxPacket = positiveInteger('maxPacket', options.maxPacket ?? CODEL_MAX_PACKET);
  }

  /** True while CoDel is in its dropping state. */
  get isDropping(): boolean {
    return this.dropping;
  }

  /** CoDel's drop count of the current (or last) dropping state. */
  get dropCount(): number {
    return this.count;
  }

  /** The time of the next scheduled drop (meaningful while dropping). */
  get nextDropTime(): number {
    return this.dropNext;
  }

  enqueue(packet: QueuedPacket<T>, now: number, onDrop: DropListener<T>): void {
    if (this.fits(packet)) this.ring.push(packet);
    else onDrop(packet, now);
  }

  dequeue(now: number, onDrop: DropListener<T>): QueuedPacket<T> | undefined {
    if (this.ring.length === 0) return undefined;
    const head = this.take(now);
    if (this.dropping) {
      if (!this.okToDrop) this.dropping = false;
      while (this.dropping && now >= this.dropNext) {
        onDrop(this.take(now), now);
        this.count++;
        if (this.okToDrop) this.dropNext = this.controlLaw(this.dropNext, this.count);
        else this.dropping = false;
      }
    } else if (this.okToDrop) {
      onDrop(this.take(now), now);
      this.dropping = true;
      const delta = this.count - this.lastCount;
      // Mahimahi computes now - dropNext in unsigned arithmetic: a schedule in the future never qualifies.
      const recent = now >= this.dropNext && now - this.dropNext < 16 * this.interval;
      this.count = delta > 1 && recent ? delta : 1;
      this.dropNext = this.controlLaw(now, this.count);
      this.lastCount = this.count;
    }
    return head;
  }

  /** Removes the head packet (the queue is not empty) and updates the above-target tracking. */
  private take(now: number): QueuedPacket<T> {
    const ring = this.ring;
    const packet = ring.shift()!;
    this.okToDrop = false;
    if (ring.length === 0 || now - packet.arrival < this.target || ring.bytes <= this.maxPacket) {
      this.firstAboveTime = 0;
    } else if (this.firstAboveTime === 0) {
      this.firstAboveTime = now + this.interval;
    } else if (now >= this.firstAboveTime) {
      this.okToDrop = true;
    }
    return packet;
  }

  private controlLaw(time: number, count: number): number {
    return time + Math.floor(this.interval / Math.sqrt(count));
  }
}

function positiveInteger(field: string, value: number): number {
  if (!Number.isInteger(value) || value <= 0 || value > 0xffffffff) {
    throw new RangeError(`codel queue: ${field}=${value} must be a positive integer (milliseconds)`);
  }
  return value;
}
