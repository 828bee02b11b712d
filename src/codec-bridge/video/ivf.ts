// IVF, the plain container of VP8/VP9 streams (libvpx's vpxenc/vpxdec):
// a 32-byte file header ("DKIF", version 0, header size 32, fourcc, width,
// height, time base rate and scale, frame count), then per frame a 12-byte
// header (4-byte little-endian size, 8-byte little-endian timestamp in time
// base units) and the compressed frame. Decoding the frames is the codec's job.
import { open } from 'node:fs/promises';
import { ByteReader, openByteReader, type ByteSource } from './byte-reader.ts';
import { ByteWriter, openByteWriter, type ByteDestination } from './byte-writer.ts';
import { checkDimensions, i420Size, MAX_DIMENSION } from './i420.ts';
import { toRational, type Rational } from './rational.ts';

export const IVF_HEADER_SIZE = 32;
export const IVF_FRAME_HEADER_SIZE = 12;

export interface IvfHeader {
  /** Four characters, e.g. "VP80". */
  readonly fourcc: string;
  readonly width: number;
  readonly height: number;
  /**
   * Time base: a timestamp t is t * scale / rate seconds. It is not a frame rate: files written by
   * ffmpeg from WebM have 1000/1 with timestamps in milliseconds (see ivf-frame-rate.ts).
   */
  readonly rate: number;
  readonly scale: number;
  /** The header's frame count (writers that cannot seek may leave it 0). */
  readonly frameCount: number;
}

export interface IvfFrame {
  /** Position in the file, from 0. */
  readonly index: number;
  /** In time base units (see IvfHeader). */
  readonly timestamp: number;
  readonly data: Uint8Array;
}

export interface IvfReadOptions {
  /** Names the source in error messages (default: the path, or "<stream>"). */
  readonly name?: string;
  /** The fourcc the file must have; null accepts any. Default "VP80". */
  readonly fourcc?: string | null;
  /** The largest frame accepted, in bytes. Default: 2 x the I420 size of the header's dimensions + 64 KiB. */
  readonly maxFrameBytes?: number;
}

/** Parses the 32-byte file header. */
export function parseIvfHeader(bytes: Uint8Array, name = '<ivf>', options: IvfReadOptions = {}): IvfHeader {
  if (bytes.length < IVF_HEADER_SIZE) {
    throw new Error(`${name}: the IVF file header is truncated: ${bytes.length} of ${IVF_HEADER_SIZE} bytes`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, IVF_HEADER_SIZE);
  const signature = Buffer.from(bytes.subarray(0, 4)).toString('latin1');
  if (signature !== 'DKIF') throw new Error(`${name}: not an IVF file: signature ${JSON.stringify(signature)}, expected "DKIF"`);
  const version = view.getUint16(4, true);
  if (version !== 0) throw new Error(`${name}: IVF header field version is ${version}, only version 0 is known`);
  const headerSize = view.getUint16(6, true);
  if (headerSize !== IVF_HEADER_SIZE) throw new Error(`${name}: IVF header field header size is ${headerSize}, expected ${IVF_HEADER_SIZE}`);
  const fourcc = Buffer.from(bytes.subarray(8, 12)).toString('latin1');
  const required = options.fourcc === undefined ? 'VP80' : options.fourcc;
  if (required !== null && fourcc !== required) {
    throw new Error(`${name}: IVF header field fourcc is ${JSON.stringify(fourcc)}, expected ${JSON.stringify(required)}`);
  }
  const width = view.getUint16(12, true);
  const height = view.getUint16(14, true);
  for (const [field, value] of [['width', width], ['height', height]] as const) {
    if (value < 1 || value > MAX_DIMENSION) throw new Error(`${name}: IVF header field ${field} must be in 1..${MAX_DIMENSION}, got ${value}`);
  }
  const rate = view.getUint32(16, true);
  const scale = view.getUint32(20, true);
  if (rate === 0 || scale === 0) {
    throw new Error(`${name}: IVF header fields rate/scale (time base) must both be positive, got ${rate}/${scale}`);
  }
  const frameCount = view.getUint32(24, true);
  return { fourcc, width, height, rate, scale, frameCount };
}

export interface IvfHeaderInit {
  readonly width: number;
  readonly height: number;
  /** Frames per second, as a number or a ratio; the time base is its inverse (timestamps count frames). Default 30. */
  readonly fps?: number | Rational;
  /** Default "VP80". */
  readonly fourcc?: string;
  /** Written into the header; a writer to a file path patches in the real count when it closes. Default 0. */
  readonly frameCount?: number;
}

export function formatIvfHeader(init: IvfHeaderInit): Uint8Array {
  checkDimensions(init.width, init.height, 'IVF header');
  const fourcc = init.fourcc ?? 'VP80';
  if (!/^[\x20-\x7e]{4}$/.test(fourcc)) throw new RangeError(`IVF header: fourcc must be 4 printable characters, got ${JSON.stringify(fourcc)}`);
  const rate = toRational(init.fps ?? 30, 'IVF frame rate');
  const frameCount = init.frameCount ?? 0;
  if (!Number.isInteger(frameCount) || frameCount < 0 || frameCount > 0xffffffff) {
    throw new RangeError(`IVF header: frame count must be a 32-bit unsigned integer, got ${frameCount}`);
  }
  const bytes = new Uint8Array(IVF_HEADER_SIZE);
  const view = new DataView(bytes.buffer);
  bytes.set(Buffer.from('DKIF', 'latin1'), 0);
  view.setUint16(4, 0, true);
  view.setUint16(6, IVF_HEADER_SIZE, true);
  bytes.set(Buffer.from(fourcc, 'latin1'), 8);
  view.setUint16(12, init.width, true);
  view.setUint16(14, init.height, true);
  view.setUint32(16, rate.num, true);
  view.setUint32(20, rate.den, true);
  view.setUint32(24, frameCount, true);
  return bytes;
}

/** A streaming IVF reader: iterate it (for await) for the compressed frames, or call readFrame(). */
export class IvfReader implements AsyncIterable<IvfFrame> {
  private frameIndex = 0;
  private closed = false;
  readonly maxFrameBytes: number;

  constructor(
    private readonly input: ByteReader,
    readonly header: IvfHeader,
    maxFrameBytes?: number,
  ) {
    this.maxFrameBytes = maxFrameBytes ?? 2 * i420Size(header.width, header.height) + 65536;
  }

  get name(): string {
    return this.input.name;
  }

  get framesRead(): number {
    return this.frameIndex;
  }

  /** The next frame, or null at the end of the file. Throws on a truncated or oversized frame. */
  async readFrame(): Promise<IvfFrame | null> {
    if (this.closed) throw new Error(`${this.name}: the IVF reader is closed`);
    const index = this.frameIndex;
    const offset = this.input.position;
    const head = await this.input.read(IVF_FRAME_HEADER_SIZE);
    if (head.length === 0) return null;
    if (head.length < IVF_FRAME_HEADER_SIZE) {
      throw new Error(`${this.name}: frame ${index}: the frame header at byte ${offset} is truncated: ${head.length} of ${IVF_FRAME_HEADER_SIZE} bytes`);
    }
    const view = new DataView(head.buffer, head.byteOffset, IVF_FRAME_HEADER_SIZE);
    const size = view.getUint32(0, true);
    const timestamp = view.getUint32(4, true) + view.getUint32(8, true) * 2 ** 32;
    if (!Number.isSafeInteger(timestamp)) {
      throw new Error(`${this.name}: frame ${index}: timestamp ${view.getBigUint64(4, true)} at byte ${offset + 4} is beyond 2^53`);
    }
    if (size > this.maxFrameBytes) {
      throw new Error(`${this.name}: frame ${index}: frame size ${size} at byte ${offset} exceeds the cap of ${this.maxFrameBytes} bytes`);
    }
    const data = await this.input.read(size);
    if (data.length < size) {
      throw new Error(`${this.name}: frame ${index} is truncated: ${data.length} of ${size} bytes`);
    }
    this.frameIndex++;
    return { index, timestamp, data };
  }

  async *[Symbol.asyncIterator](): AsyncIterator<IvfFrame> {
    try {
      for (;;) {
        const frame = await this.readFrame();
        if (frame === null) return;
        yield frame;
      }
    } finally {
      await this.close();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.input.close();
  }
}

/** Opens an IVF file path, Readable or byte array and parses its header. */
export async function openIvfReader(source: ByteSource, options: IvfReadOptions = {}): Promise<IvfReader> {
  const max = options.maxFrameBytes;
  if (max !== undefined && (!Number.isInteger(max) || max < 0)) throw new RangeError(`IVF reader: maxFrameBytes must be an integer >= 0, got ${max}`);
  const input = openByteReader(source, options.name);
  try {
    const bytes = await input.read(IVF_HEADER_SIZE);
    if (bytes.length === 0) throw new Error(`${input.name}: not an IVF file: it is empty`);
    return new IvfReader(input, parseIvfHeader(bytes, input.name, options), max);
  } catch (error) {
    await input.close().catch(() => {});
    throw error;
  }
}

export interface IvfFrameInput {
  readonly data: Uint8Array;
  /** In time base units; default: the previous frame's timestamp + 1 (0 for the first). */
  readonly timestamp?: number;
}

/** An IVF writer; write() resolves when the destination can take more. */
export class IvfWriter {
  private frameIndex = 0;
  private nextTimestamp = 0;
  private headerWritten = false;
  private readonly headerBytes: Uint8Array;

  constructor(
    private readonly output: ByteWriter,
    init: IvfHeaderInit,
    /** The file to patch the frame count into on close, if any. */
    private readonly path: string | null,
  ) {
    this.headerBytes = formatIvfHeader(init);
  }

  get framesWritten(): number {
    return this.frameIndex;
  }

  /** Appends one compressed frame (copied: the caller may reuse its buffer at once). */
  async write(frame: IvfFrameInput): Promise<void> {
    const where = `${this.output.name}: frame ${this.frameIndex}`;
    if (!(frame?.data instanceof Uint8Array)) throw new TypeError(`${where}: data must be a Uint8Array`);
    if (frame.data.length > 0xffffffff) throw new RangeError(`${where}: ${frame.data.length} bytes do not fit IVF's 32-bit size`);
    const timestamp = frame.timestamp ?? this.nextTimestamp;
    if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
      throw new RangeError(`${where}: timestamp must be an integer in 0..2^53, got ${timestamp}`);
    }
    const prefix = this.headerWritten ? 0 : IVF_HEADER_SIZE;
    const bytes = Buffer.allocUnsafe(prefix + IVF_FRAME_HEADER_SIZE + frame.data.length);
    if (prefix) bytes.set(this.headerBytes, 0);
    bytes.writeUInt32LE(frame.data.length, prefix);
    bytes.writeUInt32LE(timestamp % 2 ** 32, prefix + 4);
    bytes.writeUInt32LE(Math.floor(timestamp / 2 ** 32), prefix + 8);
    bytes.set(frame.data, prefix + IVF_FRAME_HEADER_SIZE);
    this.headerWritten = true;
    this.frameIndex++;
    this.nextTimestamp = timestamp + 1;
    await this.output.write(bytes);
  }

  /** Flushes and closes; a file written by path gets its header's frame count set to the frames written. */
  async close(): Promise<void> {
    if (!this.headerWritten) {
      this.headerWritten = true;
      await this.output.write(this.headerBytes);
    }
    await this.output.end();
    if (this.path !== null) {
      const file = await open(this.path, 'r+');
      try {
        const count = Buffer.alloc(4);
        count.writeUInt32LE(this.frameIndex);
        await file.write(count, 0, 4, 24);
      } finally {
        await file.close();
      }
    }
  }
}

export function createIvfWriter(destination: ByteDestination, init: IvfHeaderInit, options: { name?: string } = {}): IvfWriter {
  formatIvfHeader(init); // validate before touching the destination
  return new IvfWriter(openByteWriter(destination, options.name), init, typeof destination === 'string' ? destination : null);
}
