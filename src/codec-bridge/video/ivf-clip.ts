// Random access to the decoded frames of an IVF file. Compressed frames can
// only be decoded in order, so frames are decoded on demand, in order, by the
// caller's decode function (the codec: this module does not depend on it),
// and each decoded picture is kept for later requests: by default in a
// temporary raw I420 file (memory stays at about one frame; the file is
// deleted on close), or in memory with `cache: 'memory'`.
import { mkdtemp, open, rm, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Picture } from '../types.ts';
import { checkPicture, copyBytes, i420Size } from './i420.ts';
import { ivfFrameRate } from './ivf-frame-rate.ts';
import { openIvfReader, type IvfFrame, type IvfHeader, type IvfReader, type IvfReadOptions } from './ivf.ts';
import { checkClipFps, type ClipFrames } from './y4m-file.ts';

/**
 * Decodes the next frame of the stream (frames arrive in file order, starting
 * with frame 0); `header` gives the size, e.g. for the codec's initial state.
 */
export type DecodeFrame = (frame: IvfFrame, header: IvfHeader) => Promise<Picture>;

export interface IvfClipOptions extends IvfReadOptions {
  /** Where decoded frames are kept: 'disk' (default, a temporary file) or 'memory'. */
  readonly cache?: 'disk' | 'memory';
  /** Directory for the temporary file (default: the OS temporary directory). */
  readonly tempDir?: string;
  /** Frames per second, overriding the rate derived from the frame timestamps (ivf-frame-rate.ts). */
  readonly fps?: number;
}

export class IvfClip implements ClipFrames {
  private decoded = 0;
  private closed = false;
  private failure: Error | null = null;
  /** Serialises decoding: each request waits for the ones before it. */
  private progress: Promise<void> = Promise.resolve();
  private readonly memory: Uint8Array[] = [];
  readonly width: number;
  readonly height: number;
  readonly fps: number;

  private constructor(
    readonly description: string,
    readonly header: IvfHeader,
    readonly frameCount: number,
    private readonly reader: IvfReader,
    private readonly decode: DecodeFrame,
    private readonly store: { dir: string; file: FileHandle } | null,
    fps: number,
  ) {
    this.width = header.width;
    this.height = header.height;
    this.fps = fps;
  }

  /**
   * Opens `path`, checks every frame header once (counting the frames: the
   * header's count may be 0 or stale; and finding the frame rate from their
   * timestamps unless options.fps gives it), and prepares to decode on demand.
   */
  static async open(path: string, decode: DecodeFrame, options: IvfClipOptions = {}): Promise<IvfClip> {
    if (typeof decode !== 'function') throw new TypeError(`${path}: an IVF clip needs a decode function (frame) => Promise<Picture>`);
    const cache = options.cache ?? 'disk';
    if (cache !== 'disk' && cache !== 'memory') throw new RangeError(`${path}: cache must be 'disk' or 'memory', got ${String(cache)}`);
    const override = checkClipFps(options.fps, path);
    const timestamps: number[] = [];
    const scan = await openIvfReader(path, options);
    try {
      for (let frame = await scan.readFrame(); frame !== null; frame = await scan.readFrame()) timestamps.push(frame.timestamp);
    } finally {
      await scan.close();
    }
    const frameCount = timestamps.length;
    if (frameCount === 0) throw new Error(`${path}: the IVF file has no frames`);
    const fps = override ?? ivfFrameRate(timestamps, scan.header, path).fps;
    const reader = await openIvfReader(path, options);
    let store: { dir: string; file: FileHandle } | null = null;
    if (cache === 'disk') {
      const dir = await mkdtemp(join(options.tempDir ?? tmpdir(), 'ivf-clip-'));
      store = { dir, file: await open(join(dir, 'frames.i420'), 'w+') };
    }
    return new IvfClip(path, reader.header, frameCount, reader, decode, store, fps);
  }

  private frameSize(): number {
    return i420Size(this.width, this.height);
  }

  /** Decodes frames in order until frame k is kept. */
  private decodeThrough(k: number): Promise<void> {
    const step = this.progress.then(async () => {
      if (this.failure) throw this.failure;
      while (this.decoded <= k) {
        const frame = await this.reader.readFrame();
        if (frame === null) throw new Error(`${this.description}: frame ${this.decoded} vanished (the file changed after it was opened)`);
        let picture: Picture;
        try {
          picture = await this.decode(frame, this.header);
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          throw new Error(`${this.description}: decoding frame ${frame.index} failed: ${message}`, { cause: error });
        }
        checkPicture(picture, this.width, this.height, `${this.description}: decoded frame ${frame.index}`);
        if (this.store) {
          const data = picture.data;
          let done = 0;
          while (done < data.length) {
            const { bytesWritten } = await this.store.file.write(data, done, data.length - done, this.decoded * this.frameSize() + done);
            done += bytesWritten;
          }
        } else {
          this.memory.push(copyBytes(picture.data));
        }
        this.decoded++;
      }
    });
    // A decoder that failed mid-stream cannot resume: every later request reports the same failure.
    this.progress = step.catch((error: unknown) => {
      this.failure ??= error instanceof Error ? error : new Error(String(error));
    });
    return step;
  }

  async read(k: number): Promise<Picture> {
    if (this.closed) throw new Error(`${this.description}: the IVF clip is closed`);
    if (!Number.isInteger(k) || k < 0 || k >= this.frameCount) {
      throw new RangeError(`${this.description}: frame index must be an integer in 0..${this.frameCount - 1}, got ${k}`);
    }
    if (k >= this.decoded) await this.decodeThrough(k);
    const { width, height } = this;
    if (!this.store) return { width, height, data: copyBytes(this.memory[k]) };
    const data = new Uint8Array(this.frameSize());
    let done = 0;
    while (done < data.length) {
      const { bytesRead } = await this.store.file.read(data, done, data.length - done, k * data.length + done);
      if (bytesRead === 0) throw new Error(`${this.description}: the decoded-frame cache lost frame ${k}`);
      done += bytesRead;
    }
    return { width, height, data };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.progress;
    this.memory.length = 0;
    await this.reader.close();
    if (this.store) {
      await this.store.file.close();
      await rm(this.store.dir, { recursive: true, force: true });
    }
  }
}
