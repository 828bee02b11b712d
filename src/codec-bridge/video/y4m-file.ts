// Random access to the frames of a Y4M file: one pass over the FRAME lines at
// open builds an index of frame offsets (a few bytes per frame, the frame data
// is never read); frame(k) then reads just that frame. Memory stays at one
// frame per call unless `cache: 'memory'` asks for every frame to be kept.
import { open, type FileHandle } from 'node:fs/promises';
import type { Picture } from '../types.ts';
import { copyBytes, i420Size } from './i420.ts';
import { checkFrameLine, parseY4mHeader, Y4M_MAX_LINE, type Y4mHeader } from './y4m.ts';

/** A finite clip with random access by frame index (0..frameCount-1). */
export interface ClipFrames {
  readonly description: string;
  readonly width: number;
  readonly height: number;
  readonly fps: number;
  readonly frameCount: number;
  /** Frame k as a fresh picture. */
  read(k: number): Promise<Picture>;
  close(): Promise<void>;
}

/** The largest frame rate a clip may be given (the bound of the Y4M header's F field too). */
export const MAX_CLIP_FPS = 1000;

/** A clip's frame-rate override: undefined (none) or a number in (0, MAX_CLIP_FPS]; throws naming `where`. */
export function checkClipFps(fps: number | undefined, where: string): number | undefined {
  if (fps !== undefined && !(typeof fps === 'number' && fps > 0 && fps <= MAX_CLIP_FPS)) {
    throw new RangeError(`${where}: fps must be a number of frames per second in (0, ${MAX_CLIP_FPS}], got ${String(fps)}`);
  }
  return fps;
}

export interface Y4mFileOptions {
  /** 'none' (default): read each frame from the file on demand. 'memory': keep every frame once read. */
  readonly cache?: 'none' | 'memory';
  /** Frames per second, overriding the header's F field. */
  readonly fps?: number;
}

export class Y4mFile implements ClipFrames {
  private closed = false;
  private readonly cached: (Uint8Array | undefined)[];
  readonly width: number;
  readonly height: number;
  readonly fps: number;

  private constructor(
    private readonly file: FileHandle,
    readonly description: string,
    readonly header: Y4mHeader,
    /** Byte offset of each frame's data. */
    private readonly offsets: Float64Array,
    private readonly cache: 'none' | 'memory',
    fps: number,
  ) {
    this.width = header.width;
    this.height = header.height;
    this.fps = fps;
    this.cached = cache === 'memory' ? new Array(offsets.length) : [];
  }

  get frameCount(): number {
    return this.offsets.length;
  }

  /** Opens `path`, parses its header and indexes its frames; throws on any malformed or truncated frame. */
  static async open(path: string, options: Y4mFileOptions = {}): Promise<Y4mFile> {
    const cache = options.cache ?? 'none';
    if (cache !== 'none' && cache !== 'memory') throw new RangeError(`Y4M file: cache must be 'none' or 'memory', got ${String(cache)}`);
    const override = checkClipFps(options.fps, path);
    const file = await open(path, 'r');
    try {
      const { size: fileSize } = await file.stat();
      const readLine = async (offset: number) => {
        const buffer = Buffer.alloc(Math.min(Y4M_MAX_LINE + 1, Math.max(0, fileSize - offset)));
        const { bytesRead } = await file.read(buffer, 0, buffer.length, offset);
        const bytes = buffer.subarray(0, bytesRead);
        const newline = bytes.indexOf(10);
        return newline >= 0 ? { bytes: bytes.subarray(0, newline), terminated: true } : { bytes, terminated: false };
      };
      const headerLine = await readLine(0);
      if (!headerLine.terminated) {
        if (fileSize === 0) throw new Error(`${path}: not a Y4M file: it is empty`);
        // Let the header parser name what is wrong when the signature is; otherwise the line is too long or cut.
        if (!headerLine.bytes.subarray(0, 9).equals(Buffer.from('YUV4MPEG2'))) parseY4mHeader(headerLine.bytes, path);
        throw new Error(`${path}: the Y4M header is truncated or longer than ${Y4M_MAX_LINE} bytes`);
      }
      const header = parseY4mHeader(headerLine.bytes, path);
      const frameSize = i420Size(header.width, header.height);
      const offsets: number[] = [];
      let position = headerLine.bytes.length + 1;
      while (position < fileSize) {
        const line = await readLine(position);
        checkFrameLine(line.bytes, line.terminated, path, offsets.length, position);
        const dataOffset = position + line.bytes.length + 1;
        if (dataOffset + frameSize > fileSize) {
          throw new Error(`${path}: frame ${offsets.length} is truncated: ${fileSize - dataOffset} of ${frameSize} bytes (I420 ${header.width}x${header.height})`);
        }
        offsets.push(dataOffset);
        position = dataOffset + frameSize;
      }
      if (offsets.length === 0) throw new Error(`${path}: the Y4M file has no frames`);
      return new Y4mFile(file, path, header, Float64Array.from(offsets), cache, override ?? header.fps);
    } catch (error) {
      await file.close();
      throw error;
    }
  }

  async read(k: number): Promise<Picture> {
    if (this.closed) throw new Error(`${this.description}: the Y4M file is closed`);
    if (!Number.isInteger(k) || k < 0 || k >= this.offsets.length) {
      throw new RangeError(`${this.description}: frame index must be an integer in 0..${this.offsets.length - 1}, got ${k}`);
    }
    const { width, height } = this;
    const kept = this.cached[k];
    if (kept) return { width, height, data: copyBytes(kept) };
    const data = new Uint8Array(i420Size(width, height));
    let done = 0;
    while (done < data.length) {
      const { bytesRead } = await this.file.read(data, done, data.length - done, this.offsets[k] + done);
      if (bytesRead === 0) throw new Error(`${this.description}: frame ${k} is truncated (the file shrank after it was opened)`);
      done += bytesRead;
    }
    if (this.cache === 'memory') this.cached[k] = copyBytes(data);
    return { width, height, data };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.cached.length = 0;
    await this.file.close();
  }
}
