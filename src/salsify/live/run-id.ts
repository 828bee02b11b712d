// A live run's connection id (its run id is the same number in 8 hex digits):
// not a random draw, but a digest of what makes this run unique: the seed,
// the process id and the start time on the shared clock (to the nanosecond of
// the monotonic clock). Records of the sender and the receiver are matched by it.
import { hash64Hex } from '../hash64.ts';

export function liveConnectionId(seed: number | string, startMs: number): number {
  const identity = `${seed}|${process.pid}|${startMs}|${process.hrtime.bigint()}`;
  return Number.parseInt(hash64Hex(new TextEncoder().encode(identity)).slice(0, 8), 16);
}
