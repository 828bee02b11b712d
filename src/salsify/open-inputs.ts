// Opening a run's codec and video source from their names.
import type { FunctionalCodec } from '../codec-bridge/types.ts';
import { openVideoSource } from '../codec-bridge/video/open-video-source.ts';
import type { VideoSource } from '../codec-bridge/video/video-source.ts';
import { createModelCodec } from './model-codec.ts';

export type CodecName = 'model' | 'vp8';

export async function openCodec(name: CodecName): Promise<FunctionalCodec> {
  if (name === 'model') return createModelCodec();
  if (name !== 'vp8') throw new RangeError(`unknown codec ${JSON.stringify(name)} (expected "model" or "vp8")`);
  // The VP8 codec lives in the codec bridge, imported only when asked for.
  const path = '../codec-bridge/index.ts';
  let bridge: { createVP8Codec?: () => FunctionalCodec | Promise<FunctionalCodec> };
  try {
    bridge = await import(path);
  } catch (error) {
    throw new Error(`the VP8 codec is not available (cannot load src/codec-bridge/index.ts: ${(error as Error).message})`, { cause: error });
  }
  if (typeof bridge.createVP8Codec !== 'function') throw new Error('the VP8 codec is not available: src/codec-bridge/index.ts exports no createVP8Codec');
  return bridge.createVP8Codec();
}

/**
 * Opens "synthetic[:WxH[@FPS]]", a .y4m clip, or a .ivf clip (VP8, read with
 * the codec bridge's ordinary stream decoder: needs the native VP8 addon),
 * looped forward and backward.
 */
export async function openVideo(spec: string, seed: string | number = 1): Promise<VideoSource> {
  if (!spec.toLowerCase().endsWith('.ivf')) return openVideoSource(spec, { seed });
  const { createStreamDecoder } = await import('../codec-bridge/stream-decoder.ts');
  const decoder = createStreamDecoder();
  return openVideoSource(spec, { decode: (frame) => decoder.decode(frame) });
}
