// The interface every queue discipline implements (see queues/ for the
// disciplines and queue-factory.ts for mm-link's names and argument syntax).

/** A packet waiting in, or leaving, an emulated link. `size` counts bytes as the link sees them. */
export interface QueuedPacket<T = unknown> {
  readonly size: number;
  /** Arrival time at the link, in milliseconds of the link's clock. */
  readonly arrival: number;
  /** Whatever the caller attached (datagram bytes, an address...): opaque to the link. */
  readonly payload: T;
}

/** Called for every packet a queue drops, with the time of the drop. */
export type DropListener<T = unknown> = (packet: QueuedPacket<T>, now: number) => void;

export interface PacketQueue<T = unknown> {
  /** mm-link's name of the discipline: infinite, droptail, drophead, codel, pie. */
  readonly kind: string;
  /** Offers a packet arriving at `now`; the queue may drop it, or others, reporting each to onDrop. */
  enqueue(packet: QueuedPacket<T>, now: number, onDrop: DropListener<T>): void;
  /** Takes the next packet to transmit at `now` (a delivery opportunity), or undefined when empty.
   *  Disciplines that drop at dequeue (CoDel) report those drops to onDrop. */
  dequeue(now: number, onDrop: DropListener<T>): QueuedPacket<T> | undefined;
  /** Bytes and packets currently queued. */
  sizeBytes(): number;
  sizePackets(): number;
  /** The text mm-link writes after "# queue: ", e.g. "droptail [packets=20]" or "infinite". */
  describe(): string;
}
