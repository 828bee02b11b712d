// Video input/output for the codec bridge: Y4M and IVF readers and writers,
// looping clip sources, the synthetic scene, and openVideoSource.
export { chromaHeight, chromaWidth, i420Size, MAX_DIMENSION } from './i420.ts';
export { frameIndexAt, type VideoSource } from './video-source.ts';
export type { ByteSource } from './byte-reader.ts';
export type { ByteDestination } from './byte-writer.ts';
export type { Rational } from './rational.ts';
export {
  createY4mWriter,
  formatY4mHeader,
  openY4mReader,
  parseY4mHeader,
  Y4M_COLOUR_SPACES,
  Y4mReader,
  Y4mWriter,
  type Y4mColourSpace,
  type Y4mHeader,
  type Y4mHeaderInit,
  type Y4mInterlacing,
  type Y4mReadOptions,
} from './y4m.ts';
export {
  createIvfWriter,
  formatIvfHeader,
  IvfReader,
  IvfWriter,
  openIvfReader,
  parseIvfHeader,
  type IvfFrame,
  type IvfFrameInput,
  type IvfHeader,
  type IvfHeaderInit,
  type IvfReadOptions,
} from './ivf.ts';
export { Y4mFile, type ClipFrames, type Y4mFileOptions } from './y4m-file.ts';
export { IvfClip, type DecodeFrame, type IvfClipOptions } from './ivf-clip.ts';
export { loopClip, loopFrameIndex, openIvfClipSource, openY4mClipSource } from './clip-source.ts';
export { createSyntheticScene, SyntheticScene, type SyntheticSceneOptions } from './synthetic-scene.ts';
export { openVideoSource, type OpenVideoSourceOptions } from './open-video-source.ts';
