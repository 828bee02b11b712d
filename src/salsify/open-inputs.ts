// Opening a run's codec and video source from their names. Whatever goes
// wrong with a named video file, while opening it or later while reading its
// frames, is an input error (the caller's to fix: exit status 2 in every CLI).
import type { FunctionalCodec, Picture } from '../codec-bridge/types.ts';
import { openVideoSource } from '../codec-bridge/video/open-video-source.ts';
import type { VideoSource } from '../codec-bridge/video/video-source.ts';
import { asInputError, isToolkitError, toolkitError, unreadableFile, type ToolkitError } from '../common/errors.ts';
import { createModelCodec } from './model-codec.ts';

export type CodecName = 'model' | 'vp8';

/** The codecs a run can use, as command lines name them. */
export const CODECS: readonly CodecName[] = ['model', 'vp8'];

export async function openCodec(name: CodecName): Promise<FunctionalCodec> {
  if (name === 'model') return createModelCodec();
  if (name !== 'vp8') throw new RangeError(`unknown codec ${JSON.stringify(name)} (expected "model" or "vp8")`);
  // The VP8 codec (and its native addon) is loaded only when asked for; the import is type-checked.
  let vp8: typeof import('../codec-bridge/vp8-codec.ts');
  try {
    vp8 = await import('../codec-bridge/vp8-codec.ts');
    return vp8.createVP8Codec();
  } catch (error) {
    throw toolkitError('ERR_UNAVAILABLE', `the VP8 codec is not available (${(error as Error).message}); build the native addon with npm ci`, error);
  }
}

/** The source with every failure of its frames reported as an input error naming it. */
function asInputSource(source: VideoSource): VideoSource {
  return {
    description: source.description,
    width: source.width,
    height: source.height,
    fps: source.fps,
    frameCount: source.frameCount,
    frame: (index: number): Promise<Picture> => source.frame(index).catch((error: unknown) => {
      throw asInputError(error);
    }),
    close: () => source.close(),
  };
}

export interface OpenVideoOptions {
  /**
   * Frames per second, overriding the source's own rate: a .y4m header's F
   * field, the rate an .ivf file's timestamps give (its header holds a time
   * base, not a rate), the synthetic scene's 60 (a synthetic:WxH@FPS spec must agree).
   */
  readonly fps?: number;
}

/**
 * Opens "synthetic[:WxH[@FPS]]", a .y4m clip, or a .ivf clip (VP8, read with
 * the codec bridge's ordinary stream decoder: needs the native VP8 addon),
 * looped forward and backward. A bad name or file is an input error
 * (ERR_BAD_INPUT, ERR_UNREADABLE_FILE), now or when a frame is read.
 */
export async function openVideo(spec: string, seed: string | number = 1, { fps }: OpenVideoOptions = {}): Promise<VideoSource> {
  try {
    if (!spec.toLowerCase().endsWith('.ivf')) return asInputSource(await openVideoSource(spec, { seed, fps }));
    // Every frame's VP8 frame tag, before the run starts: the model codec never decodes the clip.
    const { checkVp8IvfFile } = await import('../codec-bridge/video/vp8-frame-check.ts');
    await checkVp8IvfFile(spec);
    const { createStreamDecoder } = await import('../codec-bridge/stream-decoder.ts');
    const decoder = createStreamDecoder();
    return asInputSource(await openVideoSource(spec, { decode: (frame) => decoder.decode(frame), fps }));
  } catch (error) {
    throw videoFileError(spec, error);
  }
}

/** An error opening the video `spec` as an input error whose message names it. */
function videoFileError(spec: string, error: unknown): ToolkitError {
  if (isToolkitError(error)) return error;
  const errno = (error as NodeJS.ErrnoException | null)?.code;
  if (typeof errno === 'string' && /^E[A-Z]+$/.test(errno)) return unreadableFile(spec, error);
  const typed = asInputError(error);
  return typed.message.includes(spec) ? typed : toolkitError(typed.code, `${spec}: ${typed.message}`, error);
}
