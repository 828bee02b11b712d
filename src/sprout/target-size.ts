// The sender's half of Salsify's transport: the largest next frame the path can
// carry within a delay budget, given the receiver's inter-arrival estimate and
// the packets still in flight:
//   payload bytes per packet x max(0, budget / inter-arrival - packets in flight)

export interface TargetSizeInput {
  /** Frame bytes one datagram carries. */
  readonly payloadBytesPerPacket: number;
  /** The receiver's inter-arrival estimate in milliseconds (> 0). */
  readonly interArrivalMs: number;
  /** Datagrams sent after the latest acknowledged one. */
  readonly packetsInFlight: number;
  /** The delay budget in milliseconds (default 100). */
  readonly budgetMs?: number;
}

export const DEFAULT_DELAY_BUDGET_MS = 100;

/** Target size in bytes (an integer, >= 0). */
export function targetFrameSize(input: TargetSizeInput): number {
  const { payloadBytesPerPacket, interArrivalMs, packetsInFlight } = input;
  const budgetMs = input.budgetMs ?? DEFAULT_DELAY_BUDGET_MS;
  if (!(payloadBytesPerPacket > 0)) throw new RangeError(`payload bytes per packet must be > 0, got ${payloadBytesPerPacket}`);
  if (!(interArrivalMs > 0)) throw new RangeError(`inter-arrival estimate must be > 0 ms, got ${interArrivalMs}`);
  if (!(packetsInFlight >= 0)) throw new RangeError(`packets in flight must be >= 0, got ${packetsInFlight}`);
  if (!(budgetMs > 0)) throw new RangeError(`delay budget must be > 0 ms, got ${budgetMs}`);
  const packets = Math.max(0, budgetMs / interArrivalMs - packetsInFlight);
  return Math.floor(payloadBytesPerPacket * packets);
}
