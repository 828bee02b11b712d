// What a VP8 frame's header says (type, size, quantizer, references updated).
import { type NativeFrameHeader, nativeVp8 } from './native.ts';

export type Vp8FrameHeader = NativeFrameHeader;

/** Parses a VP8 frame's header; throws an Error naming the bad field. */
export function parseVp8FrameHeader(frame: Uint8Array): Vp8FrameHeader {
  if (!(frame instanceof Uint8Array)) throw new TypeError('parseVp8FrameHeader: frame must be a Uint8Array');
  return nativeVp8().parseFrameHeader(frame);
}
