// The sender's queue of produced media packets waiting for a window-based
// controller (controller.ts: SendQueue): sizes and production times only;
// a packet is written when it leaves.
import type { SendQueue } from './controller.ts';

export class MediaSendQueue implements SendQueue {
  private sizes: number[] = [];
  private producedAtMs: number[] = [];
  private head = 0;
  private total = 0;
  private lastFrame = 0;
  /** Packets discarded by clear(), over the flow's life. */
  discarded = 0;

  /** Adds one frame's packets, produced at `nowMs`. */
  pushFrame(packetSizes: readonly number[], nowMs: number): void {
    for (const size of packetSizes) {
      this.sizes.push(size);
      this.producedAtMs.push(nowMs);
      this.total += size;
    }
    this.lastFrame = packetSizes.reduce((a, b) => a + b, 0);
  }

  /** Removes the oldest packet: its size. */
  shift(): number {
    if (this.head >= this.sizes.length) throw new Error('MediaSendQueue: shift() on an empty queue');
    const size = this.sizes[this.head++]!;
    this.total -= size;
    if (this.head > 1024 && this.head * 2 > this.sizes.length) this.compact();
    return size;
  }

  bytes = () => this.total;
  packets = () => this.sizes.length - this.head;
  headSizeBytes = () => (this.head < this.sizes.length ? this.sizes[this.head] : undefined);
  headWaitMs = (nowMs: number) => (this.head < this.sizes.length ? nowMs - this.producedAtMs[this.head]! : 0);
  lastFrameBytes = () => this.lastFrame;

  clear = (): void => {
    this.discarded += this.packets();
    this.sizes = [];
    this.producedAtMs = [];
    this.head = 0;
    this.total = 0;
  };

  private compact(): void {
    this.sizes = this.sizes.slice(this.head);
    this.producedAtMs = this.producedAtMs.slice(this.head);
    this.head = 0;
  }
}
