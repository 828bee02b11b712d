// What SCReAM reads of the sender's queue of media packets waiting for the
// congestion window (the reference's RtpQueueIface), in its units: bytes,
// seconds, µs.

export interface SendQueueView {
  /** Bytes waiting. */
  bytes(): number;
  /** Packets waiting. */
  packets(): number;
  /** Bytes of the packet at the head, or -1 when none waits. */
  sizeOfNext(): number;
  /** How long the head packet has waited at `nowUs`, s (0 when none waits). */
  delaySeconds(nowUs: number): number;
  /** Bytes of the newest frame the source produced. */
  lastFrameBytes(): number;
  /** Discards every waiting packet. */
  clear(): void;
}
