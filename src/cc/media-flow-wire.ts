// The wire format of a media flow (media-flow.ts): media packets carrying a
// transport-wide sequence number and their send time, and feedback reports
// carrying the arrival time of every sequence number in a range, as
// transport-wide congestion control feedback does (compact: 4 bytes a packet).
// Every field is checked on parse; a datagram that fails a check is refused
// (parse returns a reason) and never throws.
//
// Media packet (MEDIA_HEADER_BYTES, then padding up to the payload size):
//   u8  'M' (0x4d)   u8 version (1)   u16 flow id
//   u32 sequence     f64 send time, sender's clock, ms
// Feedback report (FEEDBACK_HEADER_BYTES + 4 bytes per packet):
//   u8  'F' (0x46)   u8 version (1)   u16 flow id
//   u32 first sequence   u16 count (1..MAX_REPORTED_PER_FEEDBACK)
//   f64 reference time, receiver's clock, ms
//   count x i32: arrival time - reference time in microseconds, or
//               NOT_RECEIVED (-2^31) for a packet not received.
// Big-endian (network order) throughout.

export const MEDIA_MAGIC = 0x4d;
export const FEEDBACK_MAGIC = 0x46;
export const WIRE_VERSION = 1;
export const MEDIA_HEADER_BYTES = 16;
export const FEEDBACK_HEADER_BYTES = 18;
/** Packets one feedback datagram reports at most (it stays under 1400 bytes). */
export const MAX_REPORTED_PER_FEEDBACK = 345;
const NOT_RECEIVED = -0x80000000;
/** Arrival offsets must fit an i32 of microseconds (about +-35 min). */
const MAX_OFFSET_US = 0x7fffffff;

export interface MediaPacket {
  readonly flowId: number;
  readonly sequence: number;
  readonly sendTimeMs: number;
}

export interface WireFeedback {
  readonly flowId: number;
  readonly firstSequence: number;
  /** Arrival time (receiver's clock, ms) of firstSequence + i, or undefined if not received. */
  readonly arrivals: readonly (number | undefined)[];
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

export function encodeMediaPacket(packet: MediaPacket, payloadBytes: number): Uint8Array {
  if (!Number.isInteger(payloadBytes) || payloadBytes < MEDIA_HEADER_BYTES) throw new RangeError(`payload must be an integer >= ${MEDIA_HEADER_BYTES} bytes, got ${payloadBytes}`);
  const bytes = new Uint8Array(payloadBytes);
  const view = new DataView(bytes.buffer);
  view.setUint8(0, MEDIA_MAGIC);
  view.setUint8(1, WIRE_VERSION);
  view.setUint16(2, packet.flowId);
  view.setUint32(4, packet.sequence);
  view.setFloat64(8, packet.sendTimeMs);
  return bytes;
}

export function parseMediaPacket(bytes: Uint8Array): Parsed<MediaPacket> {
  if (bytes.length < MEDIA_HEADER_BYTES) return { ok: false, reason: `media packet of ${bytes.length} bytes, shorter than its ${MEDIA_HEADER_BYTES}-byte header` };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint8(0) !== MEDIA_MAGIC) return { ok: false, reason: `not a media packet (first byte ${view.getUint8(0)})` };
  if (view.getUint8(1) !== WIRE_VERSION) return { ok: false, reason: `media packet version ${view.getUint8(1)}, expected ${WIRE_VERSION}` };
  const sendTimeMs = view.getFloat64(8);
  if (!Number.isFinite(sendTimeMs) || sendTimeMs < 0) return { ok: false, reason: `media packet send time ${sendTimeMs}` };
  return { ok: true, value: { flowId: view.getUint16(2), sequence: view.getUint32(4), sendTimeMs } };
}

/** Encodes a report; `arrivals` must hold 1..MAX_REPORTED_PER_FEEDBACK entries (the reference time is the first arrival, 0 if none). */
export function encodeFeedback(feedback: WireFeedback): Uint8Array {
  const count = feedback.arrivals.length;
  if (count < 1 || count > MAX_REPORTED_PER_FEEDBACK) throw new RangeError(`a feedback report holds 1 to ${MAX_REPORTED_PER_FEEDBACK} packets, got ${count}`);
  const reference = feedback.arrivals.find((t) => t !== undefined) ?? 0;
  const bytes = new Uint8Array(FEEDBACK_HEADER_BYTES + 4 * count);
  const view = new DataView(bytes.buffer);
  view.setUint8(0, FEEDBACK_MAGIC);
  view.setUint8(1, WIRE_VERSION);
  view.setUint16(2, feedback.flowId);
  view.setUint32(4, feedback.firstSequence);
  view.setUint16(8, count);
  view.setFloat64(10, reference);
  feedback.arrivals.forEach((t, i) => {
    let offset = NOT_RECEIVED;
    if (t !== undefined) {
      offset = Math.round((t - reference) * 1000);
      if (Math.abs(offset) > MAX_OFFSET_US) throw new RangeError(`arrival ${t} ms is too far from the report's reference ${reference} ms`);
    }
    view.setInt32(FEEDBACK_HEADER_BYTES + 4 * i, offset);
  });
  return bytes;
}

export function parseFeedback(bytes: Uint8Array): Parsed<WireFeedback> {
  if (bytes.length < FEEDBACK_HEADER_BYTES + 4) return { ok: false, reason: `feedback of ${bytes.length} bytes, shorter than a header and one packet` };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint8(0) !== FEEDBACK_MAGIC) return { ok: false, reason: `not a feedback report (first byte ${view.getUint8(0)})` };
  if (view.getUint8(1) !== WIRE_VERSION) return { ok: false, reason: `feedback version ${view.getUint8(1)}, expected ${WIRE_VERSION}` };
  const count = view.getUint16(8);
  if (count < 1 || count > MAX_REPORTED_PER_FEEDBACK) return { ok: false, reason: `feedback count ${count}, outside 1..${MAX_REPORTED_PER_FEEDBACK}` };
  if (bytes.length !== FEEDBACK_HEADER_BYTES + 4 * count) return { ok: false, reason: `feedback of ${bytes.length} bytes for ${count} packets (expected ${FEEDBACK_HEADER_BYTES + 4 * count})` };
  const firstSequence = view.getUint32(4);
  if (firstSequence + count - 1 > 0xffffffff) return { ok: false, reason: `feedback sequences ${firstSequence}+${count} overflow 32 bits` };
  const reference = view.getFloat64(10);
  if (!Number.isFinite(reference) || reference < 0) return { ok: false, reason: `feedback reference time ${reference}` };
  const arrivals: (number | undefined)[] = [];
  for (let i = 0; i < count; i++) {
    const offset = view.getInt32(FEEDBACK_HEADER_BYTES + 4 * i);
    if (offset === NOT_RECEIVED) arrivals.push(undefined);
    else {
      const t = reference + offset / 1000;
      if (t < 0) return { ok: false, reason: `feedback arrival time ${t} ms before 0` };
      arrivals.push(t);
    }
  }
  return { ok: true, value: { flowId: view.getUint16(2), firstSequence, arrivals } };
}
