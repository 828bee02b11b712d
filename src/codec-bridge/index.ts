// Public entry point of the codec bridge: the functional VP8 codec, its
// state, SSIM and video input/output.
export type { CodecState, DecodeResult, EncodeResult, FunctionalCodec, Picture } from './types.ts';
export {
  createVP8Codec,
  reconstruction,
  type Vp8Codec,
  type Vp8CodecOptions,
  type Vp8DecodeResult,
  type Vp8DecodeTimings,
  type Vp8EncodeResult,
  type Vp8EncodeTimings,
} from './vp8-codec.ts';
export { deserializeState, initialVp8State, Vp8State } from './vp8-state.ts';
export { ssim, ssimAsync, ssimToDb, type SsimResult } from './ssim.ts';
export { achievableQuantizer, levelForQuantizer, levelIndices } from './quantizer.ts';
export { parseVp8FrameHeader, type Vp8FrameHeader } from './frame-header.ts';
export { i420Bytes, referenceBytes } from './picture.ts';
export { createStreamDecoder, type StreamDecoder } from './stream-decoder.ts';
export { modelEncodeMs } from './encode-time-model.ts';
export * from './video/index.ts';
