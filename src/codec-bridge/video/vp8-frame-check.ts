// Whether the frames of a VP8 IVF file are VP8 frames, without decoding
// them: each frame's 3-byte frame tag (RFC 6386 section 9.1: key-frame flag,
// version, show flag, 19-bit size of the first partition) must fit the frame,
// and a key frame must carry the start code 9d 01 2a and its dimensions; the
// first frame must be a key frame. Run over the whole file when it is opened,
// so that a file that is not VP8 is refused before a run starts (and before
// the model codec, which never decodes the clip, would have used it).
import { openIvfReader } from './ivf.ts';

const START_CODE = [0x9d, 0x01, 0x2a] as const;

/** Why `frame` (frame `index` of a VP8 stream) is not a VP8 frame, or undefined if its tag fits. */
export function vp8FrameProblem(frame: Uint8Array, index: number): string | undefined {
  if (frame.length === 0) return index === 0 ? 'is empty (the first frame must be a key frame)' : undefined;
  if (frame.length < 3) return `is ${frame.length} bytes, shorter than a VP8 frame tag (3)`;
  const tag = frame[0]! | (frame[1]! << 8) | (frame[2]! << 16);
  const key = (tag & 1) === 0;
  const firstPartition = tag >>> 5;
  const headerBytes = key ? 10 : 3;
  if (index === 0 && !key) return 'is not VP8: not a key frame (a VP8 stream starts with one)';
  if (key) {
    if (frame.length < headerBytes) return `is a key frame of ${frame.length} bytes, shorter than its header (10)`;
    if (START_CODE.some((b, i) => frame[3 + i] !== b)) {
      const got = Array.from(frame.subarray(3, 6), (b) => b.toString(16).padStart(2, '0')).join(' ');
      return `is not VP8: its key frame start code is ${got}, expected 9d 01 2a`;
    }
    const width = (frame[6]! | (frame[7]! << 8)) & 0x3fff;
    const height = (frame[8]! | (frame[9]! << 8)) & 0x3fff;
    if (width === 0 || height === 0) return `is not VP8: a key frame of ${width}x${height}`;
  }
  if (firstPartition > frame.length - headerBytes) {
    return `is not VP8 (or is truncated): its first partition is ${firstPartition} bytes, the frame has ${frame.length - headerBytes} after its header`;
  }
  return undefined;
}

/** Reads the whole VP8 IVF file `path`; throws, naming the file and the frame, at the first frame that is not VP8. */
export async function checkVp8IvfFile(path: string): Promise<void> {
  const reader = await openIvfReader(path);
  try {
    for (let frame = await reader.readFrame(); frame !== null; frame = await reader.readFrame()) {
      const problem = vp8FrameProblem(frame.data, frame.index);
      if (problem !== undefined) throw new Error(`${path}: frame ${frame.index} ${problem}`);
    }
  } finally {
    await reader.close();
  }
}
