// The TCP model's segment: a 24-byte header at the front of one datagram,
// then the payload. Sequence and acknowledgement numbers count bytes from the
// connection's first data byte (0) and never wrap (48 bits: 281 TB).
//
//   offset  size  field
//        0     1  magic 0x54 ("T")
//        1     1  flags: SYN 0x02, ACK 0x10, FIN 0x01 (FIN: this segment ends the data)
//        2     2  reserved, 0
//        4     4  connection id (several connections share one pair of endpoints)
//        8     6  sequence number of the first payload byte
//       14     6  acknowledgement number: the next byte the receiver expects (with ACK)
//       20     4  receive window in bytes (with ACK)
//       24  12 n  with SACK (0x04), instead of payload: n <= 4 SACK blocks
//                 (RFC 2018), each the 6-byte first and 6-byte after-last
//                 byte of a range held beyond the cumulative ACK
//
// With the simulator's 32 bytes of per-datagram overhead (IPv4 + UDP + the TUN
// header, DEFAULT_OVERHEAD_BYTES) a segment of MSS payload bytes occupies
// MSS + 24 + 32 bytes of the link: the default MSS of 1448 makes one segment
// exactly one 1504-byte Mahimahi delivery opportunity, as a Linux TCP segment
// with timestamps (1448 bytes of payload) fills a 1500-byte IP packet.
import { ToolkitError } from '../common/errors.ts';

export const SEGMENT_MAGIC = 0x54;
export const HEADER_BYTES = 24;
/** 1448 + 24 header + 32 overhead = 1504 bytes: one delivery opportunity. */
export const DEFAULT_MSS = 1448;

export const FLAG_FIN = 0x01;
export const FLAG_SYN = 0x02;
export const FLAG_SACK = 0x04;
export const FLAG_ACK = 0x10;
const KNOWN_FLAGS = FLAG_FIN | FLAG_SYN | FLAG_SACK | FLAG_ACK;
export const MAX_SACK_BLOCKS = 4;

const MAX_SEQUENCE = 2 ** 48 - 1;
const MAX_WINDOW = 2 ** 32 - 1;

export interface Segment {
  readonly flags: number;
  readonly connection: number;
  readonly seq: number;
  /** Meaningful with FLAG_ACK; 0 otherwise. */
  readonly ack: number;
  /** Meaningful with FLAG_ACK; 0 otherwise. */
  readonly window: number;
  /** Payload length in bytes (the payload's content is not modelled: zeros); 0 with SACK blocks. */
  readonly length: number;
  /** SACK blocks [start, end) (with FLAG_SACK), most recent first. */
  readonly sack?: ReadonlyArray<readonly [number, number]>;
}

/** A datagram that is not a well-formed segment: `field` and `value` say what is wrong. */
export class TcpSegmentError extends ToolkitError {
  constructor(message: string, readonly field: string, readonly value: number) {
    super('ERR_BAD_INPUT', message);
    this.name = 'TcpSegmentError';
  }
}

function writeUint48(view: DataView, offset: number, value: number): void {
  view.setUint16(offset, Math.floor(value / 2 ** 32));
  view.setUint32(offset + 2, value % 2 ** 32);
}

function readUint48(view: DataView, offset: number): number {
  return view.getUint16(offset) * 2 ** 32 + view.getUint32(offset + 2);
}

function checkField(name: string, value: number, max: number): void {
  if (!Number.isInteger(value) || value < 0 || value > max) throw new RangeError(`tcp segment ${name} must be an integer in [0, ${max}], got ${value}`);
}

/** The datagram for a segment: header, then `length` zero bytes of payload. */
export function encodeSegment(segment: Segment): Uint8Array {
  checkField('flags', segment.flags, KNOWN_FLAGS);
  checkField('connection', segment.connection, 2 ** 32 - 1);
  checkField('seq', segment.seq, MAX_SEQUENCE);
  checkField('ack', segment.ack, MAX_SEQUENCE);
  checkField('window', segment.window, MAX_WINDOW);
  checkField('length', segment.length, 65535 - HEADER_BYTES);
  const sack = segment.sack ?? [];
  if (((segment.flags & FLAG_SACK) !== 0) !== sack.length > 0 || (sack.length > 0 && segment.length > 0) || sack.length > MAX_SACK_BLOCKS) {
    throw new RangeError(`tcp segment: SACK blocks (${sack.length}) need the SACK flag, no payload and at most ${MAX_SACK_BLOCKS} blocks`);
  }
  for (const [start, end] of sack) {
    checkField('SACK block start', start, MAX_SEQUENCE);
    checkField('SACK block end', end, MAX_SEQUENCE);
    if (end <= start) throw new RangeError(`tcp segment: SACK block [${start}, ${end}) is empty`);
  }
  const bytes = new Uint8Array(HEADER_BYTES + segment.length + 12 * sack.length);
  const view = new DataView(bytes.buffer);
  view.setUint8(0, SEGMENT_MAGIC);
  view.setUint8(1, segment.flags);
  view.setUint32(4, segment.connection);
  writeUint48(view, 8, segment.seq);
  writeUint48(view, 14, segment.ack);
  view.setUint32(20, segment.window);
  sack.forEach(([start, end], i) => {
    writeUint48(view, HEADER_BYTES + 12 * i, start);
    writeUint48(view, HEADER_BYTES + 12 * i + 6, end);
  });
  return bytes;
}

/** Reads a datagram's segment header; throws TcpSegmentError naming the bad field. */
export function decodeSegment(bytes: Uint8Array): Segment {
  if (bytes.length < HEADER_BYTES) throw new TcpSegmentError(`tcp segment: datagram of ${bytes.length} bytes is shorter than the ${HEADER_BYTES}-byte header`, 'length', bytes.length);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = view.getUint8(0);
  if (magic !== SEGMENT_MAGIC) throw new TcpSegmentError(`tcp segment: magic byte is 0x${magic.toString(16)}, expected 0x54`, 'magic', magic);
  const flags = view.getUint8(1);
  if ((flags & ~KNOWN_FLAGS) !== 0) throw new TcpSegmentError(`tcp segment: unknown flags 0x${flags.toString(16)}`, 'flags', flags);
  const reserved = view.getUint16(2);
  if (reserved !== 0) throw new TcpSegmentError(`tcp segment: reserved field is ${reserved}, expected 0`, 'reserved', reserved);
  const segment = {
    flags,
    connection: view.getUint32(4),
    seq: readUint48(view, 8),
    ack: readUint48(view, 14),
    window: view.getUint32(20),
    length: bytes.length - HEADER_BYTES,
  };
  if ((flags & FLAG_SACK) === 0) return segment;
  const extra = bytes.length - HEADER_BYTES;
  if (extra === 0 || extra % 12 !== 0 || extra / 12 > MAX_SACK_BLOCKS) throw new TcpSegmentError(`tcp segment: ${extra} bytes after a SACK header, expected 1 to ${MAX_SACK_BLOCKS} blocks of 12`, 'sack', extra);
  const sack: Array<[number, number]> = [];
  for (let offset = HEADER_BYTES; offset < bytes.length; offset += 12) {
    const start = readUint48(view, offset);
    const end = readUint48(view, offset + 6);
    if (end <= start) throw new TcpSegmentError(`tcp segment: SACK block [${start}, ${end}) is empty`, 'sack', start);
    sack.push([start, end]);
  }
  return { ...segment, length: 0, sack };
}
