// Opening a run's codec and video source from their names.
import { open } from 'node:fs/promises';
import type { CodecState, FunctionalCodec } from '../codec-bridge/types.ts';
import { parseIvfHeader } from '../codec-bridge/video/ivf.ts';
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
 * Opens "synthetic[:WxH[@FPS]]", a .y4m clip, or a .ivf clip (decoded with
 * `codec`, which must then be a real VP8 codec), looped forward and backward.
 */
export async function openVideo(spec: string, codec: FunctionalCodec, seed: string | number = 1): Promise<VideoSource> {
  if (!spec.toLowerCase().endsWith('.ivf')) return openVideoSource(spec, { seed });
  if (codec.name === 'model') throw new Error(`${spec}: an IVF clip must be decoded by the VP8 codec; use --codec vp8 or a .y4m clip`);
  const handle = await open(spec, 'r').catch((error: NodeJS.ErrnoException) => {
    throw new Error(`cannot open video file ${spec}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`, { cause: error });
  });
  let header;
  try {
    const bytes = new Uint8Array(32);
    await handle.read(bytes, 0, 32, 0);
    header = parseIvfHeader(bytes, spec);
  } finally {
    await handle.close();
  }
  let state: CodecState = codec.initialState(header.width, header.height);
  return openVideoSource(spec, {
    decode: async (frame) => {
      const result = await codec.decode(state, frame.data);
      state = result.state;
      return result.picture;
    },
  });
}
