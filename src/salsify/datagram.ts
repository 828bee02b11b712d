// Salsify's two datagram formats, with strict validating decoders.
//
// All integers big-endian. Every datagram starts with the magic byte 0xA5 and a
// type byte, and ends with a CRC-32 of everything before it, so a corrupted
// datagram is detected before any field is believed.
//
// Frame fragment (type 1), 50 bytes of header and trailer around the payload:
//    0 u8  magic 0xA5          1 u8  type 1
//    2 u32 connection id       6 u32 frame number
//   10 u16 fragment index     12 u16 fragment count
//   14 u16 width              16 u16 height
//   18 8B  source state id    26 8B  target state id
//   34 u32 grace period, microseconds: on fragment 0, the time since the
//          sender handed the previous frame to its pacer; 0 on the others
//   38 u32 frame length in bytes
//   42 u32 CRC-32 of the whole frame
//   46 ... payload: bytes [i*S, i*S + len) of the frame, S = ceil(length / count)
//  end u32 CRC-32 of the datagram
// A frame of L bytes in N fragments is cut in pieces of S = ceil(L / N) bytes
// (the last one shorter); every fragment's payload length is checked against that.
//
// Acknowledgement (type 2), 29 + 8 x held bytes:
//    0 u8  magic 0xA5          1 u8  type 2
//    2 u32 connection id       6 u32 frame number     10 u16 fragment index
//   12 u32 inter-arrival estimate, microseconds (0xFFFFFFFF: none yet)
//   16 8B  the receiver's current state id
//   24 u8  number of complete states held (<= MAX_HELD_STATES)
//   25 8B each: their ids
//  end u32 CRC-32 of the datagram
import { crc32 } from './crc32.ts';
import { readStateId, writeStateId } from './state-id.ts';

export const MAGIC = 0xa5;
export const FRAGMENT_TYPE = 1;
export const ACK_TYPE = 2;
export const FRAGMENT_HEADER_BYTES = 46;
export const FRAGMENT_OVERHEAD_BYTES = FRAGMENT_HEADER_BYTES + 4;
export const ACK_BASE_BYTES = 29;
/** The largest UDP payload that fits a 1504-byte Mahimahi delivery opportunity (1504 - 32). */
export const MAX_DATAGRAM_BYTES = 1472;
/** Frame bytes per fragment at the largest datagram. */
export const MAX_FRAGMENT_PAYLOAD = MAX_DATAGRAM_BYTES - FRAGMENT_OVERHEAD_BYTES;
/** Frame bytes per fragment in the reference implementation (alfalfa src/net/packet.hh MAXIMUM_PAYLOAD), and the sender's default. */
export const REFERENCE_FRAGMENT_PAYLOAD = 1400;
export const MAX_FRAGMENTS = 4096;
export const MAX_HELD_STATES = 16;
export const NO_ESTIMATE = 0xffffffff;
const MAX_U32 = 0xffffffff;

export interface FragmentDatagram {
  readonly type: 'fragment';
  readonly connectionId: number;
  readonly frameNumber: number;
  readonly fragmentIndex: number;
  readonly fragmentCount: number;
  readonly width: number;
  readonly height: number;
  readonly sourceStateId: string;
  readonly targetStateId: string;
  /** The grace period (us): on fragment 0, the time since the sender handed the previous frame to its pacer; 0 on the others. */
  readonly timeSincePreviousFrameUs: number;
  readonly frameLength: number;
  readonly frameChecksum: number;
  readonly payload: Uint8Array;
}

export interface AckDatagram {
  readonly type: 'ack';
  readonly connectionId: number;
  readonly frameNumber: number;
  readonly fragmentIndex: number;
  /** Microseconds, or NO_ESTIMATE. */
  readonly interArrivalUs: number;
  readonly currentStateId: string;
  readonly heldStateIds: readonly string[];
}

export type Datagram = FragmentDatagram | AckDatagram;

export type DatagramProblem = 'truncated' | 'magic' | 'type' | 'checksum' | 'field' | 'length';

/** A datagram that failed validation; `problem` says which kind of failure (for counters). */
export class DatagramError extends Error {
  constructor(readonly problem: DatagramProblem, message: string) {
    super(message);
    this.name = 'DatagramError';
  }
}

function checkUint(name: string, value: number, max: number, min = 0): void {
  if (!(Number.isInteger(value) && value >= min && value <= max)) {
    throw new RangeError(`${name} must be an integer in ${min}..${max}, got ${value}`);
  }
}

/** The fragment piece size S for a frame of `length` bytes in `count` fragments. */
export function pieceSize(length: number, count: number): number {
  return Math.ceil(length / count);
}

/** How many fragments a frame of `length` bytes needs at `maxPayload` bytes per fragment. */
export function fragmentCountFor(length: number, maxPayload = MAX_FRAGMENT_PAYLOAD): number {
  return Math.max(1, Math.ceil(length / maxPayload));
}

export function encodeFragment(d: Omit<FragmentDatagram, 'type'>): Uint8Array {
  checkUint('connection id', d.connectionId, MAX_U32);
  checkUint('frame number', d.frameNumber, MAX_U32);
  checkUint('fragment count', d.fragmentCount, MAX_FRAGMENTS, 1);
  checkUint('fragment index', d.fragmentIndex, d.fragmentCount - 1);
  checkUint('width', d.width, 0xffff, 1);
  checkUint('height', d.height, 0xffff, 1);
  checkUint('time since previous frame (us)', d.timeSincePreviousFrameUs, MAX_U32);
  checkUint('frame length', d.frameLength, MAX_U32, 1);
  checkUint('frame checksum', d.frameChecksum, MAX_U32);
  const expected = expectedPayloadLength(d.frameLength, d.fragmentCount, d.fragmentIndex);
  if (d.payload.length !== expected) {
    throw new RangeError(`fragment ${d.fragmentIndex}/${d.fragmentCount} of a ${d.frameLength}-byte frame must carry ${expected} bytes, got ${d.payload.length}`);
  }
  const bytes = new Uint8Array(FRAGMENT_OVERHEAD_BYTES + d.payload.length);
  const view = new DataView(bytes.buffer);
  view.setUint8(0, MAGIC);
  view.setUint8(1, FRAGMENT_TYPE);
  view.setUint32(2, d.connectionId);
  view.setUint32(6, d.frameNumber);
  view.setUint16(10, d.fragmentIndex);
  view.setUint16(12, d.fragmentCount);
  view.setUint16(14, d.width);
  view.setUint16(16, d.height);
  writeStateId(view, 18, d.sourceStateId);
  writeStateId(view, 26, d.targetStateId);
  view.setUint32(34, d.timeSincePreviousFrameUs);
  view.setUint32(38, d.frameLength);
  view.setUint32(42, d.frameChecksum);
  bytes.set(d.payload, FRAGMENT_HEADER_BYTES);
  view.setUint32(bytes.length - 4, crc32(bytes, 0, bytes.length - 4));
  return bytes;
}

/** Payload length of fragment `index`, or -1 when (length, count) cannot be cut into non-empty pieces. */
function expectedPayloadLength(length: number, count: number, index: number): number {
  const s = pieceSize(length, count);
  if ((count - 1) * s >= length) return -1;
  return Math.min(s, length - index * s);
}

export function encodeAck(d: Omit<AckDatagram, 'type'>): Uint8Array {
  checkUint('connection id', d.connectionId, MAX_U32);
  checkUint('frame number', d.frameNumber, MAX_U32);
  checkUint('fragment index', d.fragmentIndex, MAX_FRAGMENTS - 1);
  checkUint('inter-arrival estimate (us)', d.interArrivalUs, MAX_U32);
  checkUint('number of held states', d.heldStateIds.length, MAX_HELD_STATES);
  const bytes = new Uint8Array(ACK_BASE_BYTES + 8 * d.heldStateIds.length);
  const view = new DataView(bytes.buffer);
  view.setUint8(0, MAGIC);
  view.setUint8(1, ACK_TYPE);
  view.setUint32(2, d.connectionId);
  view.setUint32(6, d.frameNumber);
  view.setUint16(10, d.fragmentIndex);
  view.setUint32(12, d.interArrivalUs);
  writeStateId(view, 16, d.currentStateId);
  view.setUint8(24, d.heldStateIds.length);
  d.heldStateIds.forEach((id, i) => writeStateId(view, 25 + 8 * i, id));
  view.setUint32(bytes.length - 4, crc32(bytes, 0, bytes.length - 4));
  return bytes;
}

/** Decodes and validates one datagram; throws DatagramError naming the problem. The payload is a copy. */
export function decodeDatagram(bytes: Uint8Array): Datagram {
  if (bytes.length < ACK_BASE_BYTES) throw new DatagramError('truncated', `datagram of ${bytes.length} bytes is shorter than the smallest valid one (${ACK_BASE_BYTES})`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes[0] !== MAGIC) throw new DatagramError('magic', `datagram magic byte is 0x${bytes[0].toString(16)}, expected 0xa5`);
  const type = bytes[1];
  if (type !== FRAGMENT_TYPE && type !== ACK_TYPE) throw new DatagramError('type', `unknown datagram type ${type}`);
  const stored = view.getUint32(bytes.length - 4);
  const actual = crc32(bytes, 0, bytes.length - 4);
  if (stored !== actual) {
    throw new DatagramError('checksum', `datagram checksum mismatch (stored 0x${stored.toString(16)}, computed 0x${actual.toString(16)}): corrupted or truncated`);
  }
  return type === FRAGMENT_TYPE ? decodeFragment(bytes, view) : decodeAck(bytes, view);
}

function decodeFragment(bytes: Uint8Array, view: DataView): FragmentDatagram {
  if (bytes.length < FRAGMENT_OVERHEAD_BYTES + 1) throw new DatagramError('truncated', `fragment datagram of ${bytes.length} bytes has no payload`);
  const fragmentIndex = view.getUint16(10);
  const fragmentCount = view.getUint16(12);
  const width = view.getUint16(14);
  const height = view.getUint16(16);
  const frameLength = view.getUint32(38);
  if (fragmentCount < 1 || fragmentCount > MAX_FRAGMENTS) throw new DatagramError('field', `fragment count ${fragmentCount} is outside 1..${MAX_FRAGMENTS}`);
  if (fragmentIndex >= fragmentCount) throw new DatagramError('field', `fragment index ${fragmentIndex} is not below fragment count ${fragmentCount}`);
  if (width === 0 || height === 0) throw new DatagramError('field', `frame size ${width}x${height} has a zero dimension`);
  if (frameLength === 0) throw new DatagramError('field', 'frame length is 0');
  const payloadLength = bytes.length - FRAGMENT_OVERHEAD_BYTES;
  const expected = expectedPayloadLength(frameLength, fragmentCount, fragmentIndex);
  if (expected < 0) throw new DatagramError('field', `a ${frameLength}-byte frame cannot be cut into ${fragmentCount} non-empty fragments`);
  if (payloadLength !== expected) {
    throw new DatagramError('length', `fragment ${fragmentIndex}/${fragmentCount} of a ${frameLength}-byte frame carries ${payloadLength} bytes, expected ${expected}`);
  }
  return {
    type: 'fragment',
    connectionId: view.getUint32(2),
    frameNumber: view.getUint32(6),
    fragmentIndex,
    fragmentCount,
    width,
    height,
    sourceStateId: readStateId(view, 18),
    targetStateId: readStateId(view, 26),
    timeSincePreviousFrameUs: view.getUint32(34),
    frameLength,
    frameChecksum: view.getUint32(42),
    payload: bytes.slice(FRAGMENT_HEADER_BYTES, FRAGMENT_HEADER_BYTES + payloadLength),
  };
}

function decodeAck(bytes: Uint8Array, view: DataView): AckDatagram {
  const held = view.getUint8(24);
  if (held > MAX_HELD_STATES) throw new DatagramError('field', `acknowledgement lists ${held} held states, at most ${MAX_HELD_STATES} allowed`);
  if (bytes.length !== ACK_BASE_BYTES + 8 * held) {
    throw new DatagramError('length', `acknowledgement listing ${held} states must be ${ACK_BASE_BYTES + 8 * held} bytes, got ${bytes.length}`);
  }
  const fragmentIndex = view.getUint16(10);
  if (fragmentIndex >= MAX_FRAGMENTS) throw new DatagramError('field', `acknowledged fragment index ${fragmentIndex} is not below ${MAX_FRAGMENTS}`);
  const heldStateIds: string[] = [];
  for (let i = 0; i < held; i++) heldStateIds.push(readStateId(view, 25 + 8 * i));
  return {
    type: 'ack',
    connectionId: view.getUint32(2),
    frameNumber: view.getUint32(6),
    fragmentIndex,
    interArrivalUs: view.getUint32(12),
    currentStateId: readStateId(view, 16),
    heldStateIds,
  };
}

/** Cuts a frame into the payloads of its fragments (pieces of ceil(L / N) bytes). */
export function splitFrame(frame: Uint8Array, maxPayload = MAX_FRAGMENT_PAYLOAD): Uint8Array[] {
  if (frame.length === 0) throw new RangeError('cannot send an empty frame');
  const count = fragmentCountFor(frame.length, maxPayload);
  if (count > MAX_FRAGMENTS) throw new RangeError(`a ${frame.length}-byte frame needs ${count} fragments, more than ${MAX_FRAGMENTS}`);
  const s = pieceSize(frame.length, count);
  const pieces: Uint8Array[] = [];
  for (let i = 0; i < count; i++) pieces.push(frame.subarray(i * s, Math.min(frame.length, (i + 1) * s)));
  return pieces;
}
