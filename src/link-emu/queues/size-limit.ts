// The packet and byte limits of Mahimahi's "dropping" queues (droptail,
// drophead, codel, pie). As in mm-link, 0 means "no limit of this kind", at
// least one limit must be set, and the log header names the limits set, bytes
// first: "droptail [bytes=30000, packets=100]".

export interface SizeLimit {
  /** Most packets the queue may hold; 0 for no packet limit. */
  readonly packets?: number;
  /** Most bytes the queue may hold; 0 for no byte limit. */
  readonly bytes?: number;
}

/** A validated limit: both fields present, 0 meaning unlimited. */
export interface CheckedSizeLimit {
  readonly packets: number;
  readonly bytes: number;
}

const MAX_LIMIT = 0xffffffff; // mm-link holds limits in an unsigned int

/** Checks a limit for the named discipline; throws a RangeError naming the field and value. */
export function checkSizeLimit(kind: string, limit: SizeLimit): CheckedSizeLimit {
  const packets = checkField(kind, 'packets', limit.packets ?? 0);
  const bytes = checkField(kind, 'bytes', limit.bytes ?? 0);
  if (packets === 0 && bytes === 0) {
    throw new RangeError(`${kind} queue needs a packet or byte limit (packets=N and/or bytes=N, N > 0)`);
  }
  return { packets, bytes };
}

function checkField(kind: string, field: string, value: number): number {
  if (!Number.isInteger(value) || value < 0 || value > MAX_LIMIT) {
    throw new RangeError(`${kind} queue: ${field}=${value} is not an integer from 0 to ${MAX_LIMIT}`);
  }
  return value;
}

/** True when a queue of `bytes` and `packets` is within the limit. */
export function withinLimit(limit: CheckedSizeLimit, bytes: number, packets: number): boolean {
  return (limit.bytes === 0 || bytes <= limit.bytes) && (limit.packets === 0 || packets <= limit.packets);
}

/** mm-link's text for the "# queue:" header of a dropping queue. */
export function describeSizeLimit(kind: string, limit: CheckedSizeLimit): string {
  const parts: string[] = [];
  if (limit.bytes !== 0) parts.push(`bytes=${limit.bytes}`);
  if (limit.packets !== 0) parts.push(`packets=${limit.packets}`);
  return `${kind} [${parts.join(', ')}]`;
}
