// An ordinary stateful VP8 decoder for reading VP8 files frame after frame
// (any encoder's stream, such as ../shared/video/FourPeople_1280x720_60.ivf).
// Fits IvfClip's DecodeFrame: `(frame) => Promise<Picture>` with frame.data.
import { nativeVp8 } from './native.ts';
import { SerialQueue } from './serial-queue.ts';
import type { Picture } from './types.ts';

export interface StreamDecoder {
  /** Decodes the next frame of the stream (calls are queued in order). */
  decode(frame: Uint8Array | { readonly data: Uint8Array }): Promise<Picture>;
}

export function createStreamDecoder(): StreamDecoder {
  const native = nativeVp8();
  const handle = native.streamDecoderCreate();
  const queue = new SerialQueue();
  return {
    decode(frame) {
      const bytes = frame instanceof Uint8Array ? frame : frame?.data;
      if (!(bytes instanceof Uint8Array)) throw new TypeError('StreamDecoder.decode: frame must be a Uint8Array or { data: Uint8Array }');
      if (bytes.length === 0) throw new RangeError('StreamDecoder.decode: frame is empty');
      return queue.run(() => native.streamDecode(handle, bytes));
    },
  };
}
