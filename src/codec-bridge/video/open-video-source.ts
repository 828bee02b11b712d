// One entry point for every kind of video source: a .y4m path, a .ivf path
// (decoded by the caller's codec), or "synthetic" (optionally
// "synthetic:WIDTHxHEIGHT" or "synthetic:WIDTHxHEIGHT@FPS").
import { openIvfClipSource, openY4mClipSource } from './clip-source.ts';
import type { DecodeFrame, IvfClipOptions } from './ivf-clip.ts';
import { SyntheticScene } from './synthetic-scene.ts';
import type { VideoSource } from './video-source.ts';

export interface OpenVideoSourceOptions {
  /** Synthetic scene size and rate (defaults 1280x720 at 60 fps), seed (default 1) and noise level. */
  readonly width?: number;
  readonly height?: number;
  /**
   * Frames per second: the synthetic scene's rate, or for a clip an override of the file's rate
   * (a .y4m header's F field; for .ivf the rate derived from the frame timestamps, see ivf-frame-rate.ts).
   */
  readonly fps?: number;
  readonly seed?: string | number;
  readonly noise?: number;
  /** Required for an .ivf path: decodes the file's frames, in order. */
  readonly decode?: DecodeFrame;
  /**
   * Where clip frames are kept once read: for .y4m 'none' (default: re-read
   * from the file) or 'memory'; for .ivf 'disk' (default: a temporary file) or 'memory'.
   */
  readonly cache?: 'none' | 'disk' | 'memory';
  /** For .ivf: the temporary directory, the fourcc required (default "VP80") and the frame size cap. */
  readonly tempDir?: string;
  readonly fourcc?: string | null;
  readonly maxFrameBytes?: number;
}

const SYNTHETIC = /^synthetic(?::(\d+)x(\d+)(?:@(\d+(?:\.\d+)?))?)?$/;

export async function openVideoSource(spec: string, options: OpenVideoSourceOptions = {}): Promise<VideoSource> {
  if (typeof spec !== 'string' || spec === '') throw new TypeError(`openVideoSource: expected a .y4m or .ivf path or "synthetic", got ${JSON.stringify(spec)}`);
  const synthetic = SYNTHETIC.exec(spec);
  if (synthetic) {
    const fromSpec = { width: synthetic[1], height: synthetic[2], fps: synthetic[3] };
    const pick = (key: 'width' | 'height' | 'fps', fallback: number) => {
      const specified = fromSpec[key] === undefined ? undefined : Number(fromSpec[key]);
      const given = options[key];
      if (specified !== undefined && given !== undefined && specified !== given) {
        throw new RangeError(`openVideoSource: ${key} is ${specified} in ${JSON.stringify(spec)} but ${given} in the options`);
      }
      return specified ?? given ?? fallback;
    };
    return new SyntheticScene({ width: pick('width', 1280), height: pick('height', 720), fps: pick('fps', 60), seed: options.seed, noise: options.noise });
  }
  const lower = spec.toLowerCase();
  if (lower.endsWith('.y4m')) {
    const cache = options.cache ?? 'none';
    if (cache === 'disk') throw new RangeError(`openVideoSource: ${spec}: a Y4M file is its own disk cache; use cache 'none' or 'memory'`);
    return openY4mClipSource(spec, { cache, fps: options.fps });
  }
  if (lower.endsWith('.ivf')) {
    if (typeof options.decode !== 'function') {
      throw new TypeError(`openVideoSource: ${spec}: an IVF file needs options.decode, a function (frame) => Promise<Picture> (the codec's decoder)`);
    }
    const cache = options.cache ?? 'disk';
    if (cache === 'none') throw new RangeError(`openVideoSource: ${spec}: decoded IVF frames must be kept; use cache 'disk' or 'memory'`);
    const ivfOptions: IvfClipOptions = { cache, tempDir: options.tempDir, fourcc: options.fourcc, maxFrameBytes: options.maxFrameBytes, fps: options.fps };
    return openIvfClipSource(spec, options.decode, ivfOptions);
  }
  throw new RangeError(`openVideoSource: unknown video source ${JSON.stringify(spec)}: expected a .y4m or .ivf path or "synthetic[:WxH[@FPS]]"`);
}
