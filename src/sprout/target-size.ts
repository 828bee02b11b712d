// The sender's half of Salsify's transport, as the reference sender computes
// it (alfalfa src/salsify/salsify-sender.cc, target_size()): the largest next
// frame the path can carry within a delay budget, given the receiver's
// inter-arrival estimate and the packets still in flight, in integer
// microseconds and whole packets:
//   payload bytes per packet x max(0, floor(budget_us / inter-arrival_us) - packets in flight)
// An estimate of 0 us counts as 1 us (the reference's guard against dividing
// by zero). Packets in flight are counted as the reference counts them: from
// the newest acknowledged packet on, that packet included (in-flight.ts).

export interface TargetSizeInput {
  /** Frame bytes one datagram carries (the reference: 1400). */
  readonly payloadBytesPerPacket: number;
  /** The receiver's inter-arrival estimate in whole microseconds (>= 0). */
  readonly interArrivalUs: number;
  /** Packets sent since the newest acknowledged one, that one included. */
  readonly packetsInFlight: number;
  /** The delay budget in microseconds (default 100,000: 100 ms). */
  readonly budgetUs?: number;
}

export const DEFAULT_DELAY_BUDGET_MS = 100;

/** Target size in bytes (an integer, >= 0). */
export function targetFrameSize(input: TargetSizeInput): number {
  const { payloadBytesPerPacket, interArrivalUs, packetsInFlight } = input;
  const budgetUs = input.budgetUs ?? DEFAULT_DELAY_BUDGET_MS * 1000;
  if (!(Number.isInteger(payloadBytesPerPacket) && payloadBytesPerPacket > 0)) throw new RangeError(`payload bytes per packet must be an integer > 0, got ${payloadBytesPerPacket}`);
  if (!(Number.isInteger(interArrivalUs) && interArrivalUs >= 0)) throw new RangeError(`inter-arrival estimate must be an integer >= 0 us, got ${interArrivalUs}`);
  if (!(Number.isInteger(packetsInFlight) && packetsInFlight >= 0)) throw new RangeError(`packets in flight must be an integer >= 0, got ${packetsInFlight}`);
  if (!(budgetUs > 0 && Number.isFinite(budgetUs))) throw new RangeError(`delay budget must be > 0 us, got ${budgetUs}`);
  const packets = Math.max(0, Math.floor(budgetUs / Math.max(1, interArrivalUs)) - packetsInFlight);
  return payloadBytesPerPacket * packets;
}
