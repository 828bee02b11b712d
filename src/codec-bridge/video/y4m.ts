// YUV4MPEG2 (Y4M), the raw video format of ffmpeg, x264 and libvpx's tools:
// a text header line, then per frame a "FRAME" line and the raw planes. Only
// 8-bit 4:2:0 is accepted (what the VP8 codec takes); other chroma formats and
// bit depths are rejected with the header field named, and so is interlaced
// video (the frames are coded as pictures, not fields). Streaming reader (an
// async iterator of Pictures) and a backpressure-respecting writer.
import type { Picture } from '../types.ts';
import { ByteReader, openByteReader, type ByteSource } from './byte-reader.ts';
import { ByteWriter, openByteWriter, type ByteDestination } from './byte-writer.ts';
import { checkDimensions, checkPicture, i420Size, MAX_DIMENSION } from './i420.ts';
import { toRational, type Rational } from './rational.ts';

/** The 8-bit 4:2:0 colour spaces accepted (the C tag without the "C"); they differ only in chroma siting. */
export const Y4M_COLOUR_SPACES = ['420jpeg', '420', '420paldv', '420mpeg2'] as const;
export type Y4mColourSpace = (typeof Y4M_COLOUR_SPACES)[number];
/** The I tag values accepted: p progressive, ? unknown (read as progressive, as ffmpeg does). */
export type Y4mInterlacing = 'p' | '?';
/** The I tag values of interlaced video, which is rejected: top field first, bottom field first, mixed. */
const INTERLACED: Record<string, string> = { t: 'top field first', b: 'bottom field first', m: 'mixed progressive and interlaced' };

export interface Y4mHeader {
  readonly width: number;
  readonly height: number;
  /** The F tag. */
  readonly frameRate: Rational;
  /** frameRate as a number. */
  readonly fps: number;
  /** The I tag: p progressive or ? unknown (the default); interlaced files (It, Ib, Im) are rejected. */
  readonly interlacing: Y4mInterlacing;
  /** The A tag (pixel aspect ratio); 0:0 when unknown or absent. */
  readonly aspect: { readonly num: number; readonly den: number };
  /** The C tag without the "C"; 420jpeg when absent (the format's default). */
  readonly colourSpace: Y4mColourSpace;
  /** X tags (comments and extensions such as XYSCSS=420JPEG), without the "X". */
  readonly extensions: readonly string[];
}

/** The longest header or FRAME line accepted, in bytes without the newline. */
export const Y4M_MAX_LINE = 4096;
const SIGNATURE = 'YUV4MPEG2';

function describeBytes(bytes: Uint8Array): string {
  return JSON.stringify(Buffer.from(bytes.subarray(0, 24)).toString('latin1')) + (bytes.length > 24 ? '...' : '');
}

function parseRatio(value: string, tag: string, name: string): { num: number; den: number } {
  const match = /^(\d{1,10}):(\d{1,10})$/.exec(value);
  if (!match) throw new Error(`${name}: Y4M header field ${tag} must be two integers "num:den", got ${JSON.stringify(tag + value)}`);
  return { num: Number(match[1]), den: Number(match[2]) };
}

/** Parses a header line (without its newline). `name` names the file in errors. */
export function parseY4mHeader(line: Uint8Array | string, name = '<y4m>'): Y4mHeader {
  const text = typeof line === 'string' ? line : Buffer.from(line).toString('latin1');
  const tokens = text.split(' ');
  if (tokens[0] !== SIGNATURE) {
    throw new Error(`${name}: not a Y4M file: expected the signature "${SIGNATURE} ", found ${JSON.stringify(text.slice(0, 24))}`);
  }
  let width: number | undefined;
  let height: number | undefined;
  let frameRate: Rational | undefined;
  let interlacing: Y4mInterlacing = '?';
  let aspect = { num: 0, den: 0 };
  let colourSpace: Y4mColourSpace = '420jpeg';
  const extensions: string[] = [];
  const seen = new Set<string>();
  for (const token of tokens.slice(1)) {
    if (token === '') continue;
    const tag = token[0];
    const value = token.slice(1);
    if (tag !== 'X') {
      if (seen.has(tag)) throw new Error(`${name}: Y4M header field ${tag} appears twice`);
      seen.add(tag);
    }
    switch (tag) {
      case 'W':
      case 'H': {
        if (!/^\d{1,9}$/.test(value)) throw new Error(`${name}: Y4M header field ${tag} must be a positive integer, got ${JSON.stringify(token)}`);
        const n = Number(value);
        if (n < 1 || n > MAX_DIMENSION) {
          throw new Error(`${name}: Y4M header field ${tag} (${tag === 'W' ? 'width' : 'height'}) must be in 1..${MAX_DIMENSION}, got ${n}`);
        }
        if (tag === 'W') width = n;
        else height = n;
        break;
      }
      case 'F': {
        const { num, den } = parseRatio(value, 'F', name);
        if (num === 0 || den === 0 || num / den > 1000) {
          throw new Error(`${name}: Y4M header field F (frame rate) must be a positive rate up to 1000 frames/s, got ${JSON.stringify(token)}`);
        }
        frameRate = { num, den };
        break;
      }
      case 'I':
        if (Object.hasOwn(INTERLACED, value)) {
          throw new Error(
            `${name}: Y4M header field I (interlacing) is ${JSON.stringify(token)} (${INTERLACED[value]}): ` +
              'interlaced video is not supported, only progressive (Ip)',
          );
        }
        if (value !== 'p' && value !== '?') {
          throw new Error(`${name}: Y4M header field I (interlacing) must be p (progressive) or ? (unknown), got ${JSON.stringify(token)}`);
        }
        interlacing = value as Y4mInterlacing;
        break;
      case 'A':
        aspect = parseRatio(value, 'A', name);
        break;
      case 'C':
        if (!(Y4M_COLOUR_SPACES as readonly string[]).includes(value)) {
          throw new Error(
            `${name}: Y4M header field C (colour space) ${JSON.stringify(token)} is not supported: ` +
              `only 8-bit 4:2:0 (${Y4M_COLOUR_SPACES.map((c) => 'C' + c).join(', ')}) is accepted`,
          );
        }
        colourSpace = value as Y4mColourSpace;
        break;
      case 'X':
        extensions.push(value);
        break;
      default:
        throw new Error(`${name}: Y4M header has an unknown field ${JSON.stringify(token)}`);
    }
  }
  if (width === undefined) throw new Error(`${name}: Y4M header lacks the W (width) field`);
  if (height === undefined) throw new Error(`${name}: Y4M header lacks the H (height) field`);
  if (frameRate === undefined) throw new Error(`${name}: Y4M header lacks the F (frame rate) field`);
  return { width, height, frameRate, fps: frameRate.num / frameRate.den, interlacing, aspect, colourSpace, extensions };
}

export interface Y4mHeaderInit {
  readonly width: number;
  readonly height: number;
  /** Frames per second, as a number or a ratio. */
  readonly fps: number | Rational;
  readonly interlacing?: Y4mInterlacing;
  readonly aspect?: { readonly num: number; readonly den: number };
  readonly colourSpace?: Y4mColourSpace;
  readonly extensions?: readonly string[];
}

/** The header line, with its newline. */
export function formatY4mHeader(init: Y4mHeaderInit): string {
  checkDimensions(init.width, init.height, 'Y4M header');
  const rate = toRational(init.fps, 'Y4M frame rate');
  const parts = [SIGNATURE, `W${init.width}`, `H${init.height}`, `F${rate.num}:${rate.den}`, `I${init.interlacing ?? 'p'}`];
  const aspect = init.aspect ?? { num: 1, den: 1 };
  parts.push(`A${aspect.num}:${aspect.den}`);
  const colourSpace = init.colourSpace ?? '420jpeg';
  if (!(Y4M_COLOUR_SPACES as readonly string[]).includes(colourSpace)) throw new RangeError(`Y4M header: unsupported colour space ${colourSpace}`);
  parts.push(`C${colourSpace}`);
  for (const extension of init.extensions ?? []) {
    if (/[\s]/.test(extension)) throw new RangeError(`Y4M header: an X field may not contain white space: ${JSON.stringify(extension)}`);
    parts.push(`X${extension}`);
  }
  return parts.join(' ') + '\n';
}

/**
 * Checks a FRAME line (without its newline). Returns nothing; throws naming
 * the frame index and byte offset when it is not "FRAME" or "FRAME <params>".
 */
export function checkFrameLine(line: Uint8Array, terminated: boolean, name: string, index: number, offset: number): void {
  const text = Buffer.from(line.subarray(0, 6)).toString('latin1');
  const isMarker = text === 'FRAME' ? line.length === 5 : text === 'FRAME ';
  // A line cut short by the end of the file inside "FRAME" is a truncation, not a wrong marker.
  const cutMarker = !terminated && line.length < 5 && 'FRAME'.startsWith(text);
  if (!isMarker && !cutMarker) {
    throw new Error(`${name}: frame ${index}: expected a "FRAME" marker at byte ${offset}, found ${describeBytes(line)}`);
  }
  if (!terminated) {
    throw new Error(
      `${name}: frame ${index}: the FRAME line at byte ${offset} ` +
        (line.length > Y4M_MAX_LINE ? `is longer than ${Y4M_MAX_LINE} bytes` : 'is truncated (the file ends before its newline)'),
    );
  }
}

export interface Y4mReadOptions {
  /** Names the source in error messages (default: the path, or "<stream>"). */
  readonly name?: string;
}

/** A streaming Y4M reader: iterate it (for await) for the frames, or call readFrame(). */
export class Y4mReader implements AsyncIterable<Picture> {
  private frameIndex = 0;
  private closed = false;

  constructor(
    private readonly input: ByteReader,
    readonly header: Y4mHeader,
  ) {}

  get name(): string {
    return this.input.name;
  }

  /** Frames read so far. */
  get framesRead(): number {
    return this.frameIndex;
  }

  /** The next frame, or null at the end of the file. Throws on a malformed or truncated frame. */
  async readFrame(): Promise<Picture | null> {
    if (this.closed) throw new Error(`${this.name}: the Y4M reader is closed`);
    const { width, height } = this.header;
    const offset = this.input.position;
    const line = await this.input.readLine(Y4M_MAX_LINE + 1);
    if (line.bytes.length === 0 && !line.terminated) return null; // clean end
    checkFrameLine(line.bytes, line.terminated, this.name, this.frameIndex, offset);
    const size = i420Size(width, height);
    const data = new Uint8Array(size);
    const got = await this.input.readInto(data);
    if (got < size) {
      throw new Error(`${this.name}: frame ${this.frameIndex} is truncated: ${got} of ${size} bytes (I420 ${width}x${height})`);
    }
    this.frameIndex++;
    return { width, height, data };
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Picture> {
    try {
      for (;;) {
        const picture = await this.readFrame();
        if (picture === null) return;
        yield picture;
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

/** Reads the header line of a Y4M stream, leaving the reader at the first FRAME line. */
export async function readY4mHeader(input: ByteReader): Promise<Y4mHeader> {
  const line = await input.readLine(Y4M_MAX_LINE + 1);
  if (!line.terminated) {
    if (line.bytes.length === 0) throw new Error(`${input.name}: not a Y4M file: it is empty`);
    if (!Buffer.from(line.bytes.subarray(0, 10)).toString('latin1').startsWith(SIGNATURE)) {
      throw new Error(`${input.name}: not a Y4M file: expected the signature "${SIGNATURE} ", found ${describeBytes(line.bytes)}`);
    }
    throw new Error(
      `${input.name}: the Y4M header ` + (line.bytes.length > Y4M_MAX_LINE ? `is longer than ${Y4M_MAX_LINE} bytes` : 'is truncated (no newline)'),
    );
  }
  return parseY4mHeader(line.bytes, input.name);
}

/** Opens a Y4M file path, Readable or byte array and parses its header. */
export async function openY4mReader(source: ByteSource, options: Y4mReadOptions = {}): Promise<Y4mReader> {
  const input = openByteReader(source, options.name);
  try {
    return new Y4mReader(input, await readY4mHeader(input));
  } catch (error) {
    await input.close().catch(() => {});
    throw error;
  }
}

/** A Y4M writer; write() resolves when the destination can take more. */
export class Y4mWriter {
  private frameIndex = 0;
  private headerWritten = false;
  readonly header: Y4mHeader;
  private readonly headerLine: string;

  constructor(
    private readonly output: ByteWriter,
    init: Y4mHeaderInit,
  ) {
    this.headerLine = formatY4mHeader(init);
    this.header = parseY4mHeader(this.headerLine.slice(0, -1), output.name);
  }

  get framesWritten(): number {
    return this.frameIndex;
  }

  /** Appends one picture (copied: the caller may reuse its buffer at once). */
  async write(picture: Picture): Promise<void> {
    const { width, height } = this.header;
    checkPicture(picture, width, height, `${this.output.name}: frame ${this.frameIndex}`);
    const prefix = this.headerWritten ? 'FRAME\n' : this.headerLine + 'FRAME\n';
    const bytes = Buffer.allocUnsafe(prefix.length + picture.data.length);
    bytes.write(prefix, 0, 'latin1');
    bytes.set(picture.data, prefix.length);
    this.headerWritten = true;
    this.frameIndex++;
    await this.output.write(bytes);
  }

  /** Flushes and closes (a file, or ends the stream). A file with no frames still gets its header. */
  async close(): Promise<void> {
    if (!this.headerWritten) {
      this.headerWritten = true;
      await this.output.write(Buffer.from(this.headerLine, 'latin1'));
    }
    await this.output.end();
  }
}

export function createY4mWriter(destination: ByteDestination, init: Y4mHeaderInit, options: { name?: string } = {}): Y4mWriter {
  // Validate before touching the destination, so that a bad header does not leave an empty file,
  // and check that the header written is one the reader accepts.
  parseY4mHeader(formatY4mHeader(init).slice(0, -1), typeof destination === 'string' ? destination : (options.name ?? '<stream>'));
  return new Y4mWriter(openByteWriter(destination, options.name), init);
}
