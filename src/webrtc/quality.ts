// The quality of what the receiver showed, from the encoded frames it got
// (insertable streams, posted by the receiver page): sorted by RTP timestamp
// (a retransmitted frame arrives late), duplicates dropped, from the first key
// frame on, written to IVF and decoded: VP8 with our own decoder (native-vp8),
// VP9 and AV1 with ffmpeg (ffmpeg-decode.ts: libvpx and dav1d, as Chromium).
// A scalable (SVC) stream's spatial layers arrive as separate frames of one
// RTP timestamp: written in layer order, and the last picture decoded for the
// timestamp (its highest layer, what Chromium shows) is the one measured.
// Each decoded picture's barcode names its source frame; a frame the receiver
// displayed (its RTP timestamp in requestVideoFrameCallback's metadata) gets
// the luma SSIM of the decoded picture, brought back to the source's size if
// Chromium sent it smaller, against that source frame, the barcode strip
// excluded from both.
import { ssimAsync } from '../codec-bridge/ssim.ts';
import { createStreamDecoder } from '../codec-bridge/stream-decoder.ts';
import type { Picture } from '../codec-bridge/types.ts';
import { createIvfWriter } from '../codec-bridge/video/ivf.ts';
import { chromaHeight, chromaWidth, i420Size } from '../codec-bridge/video/i420.ts';
import { barcodeStripHeight, decodeBarcode } from './barcode.ts';
import type { WebrtcCodec } from './call.ts';
import { ffmpegDecode } from './ffmpeg-decode.ts';
import { lumaHash } from './luma-hash.ts';
import { resizePicture } from './scale.ts';
import { threadPoolSize } from '../common/thread-pool.ts';

export interface EncodedFrame {
  /** RTP timestamp (90 kHz), unwrapped past 2^32 relative to the first frame received. */
  readonly rtp: number;
  /** The RTP timestamp as sent (32 bits). */
  readonly rawRtp: number;
  readonly key: boolean;
  /** Its spatial layer (VP9 or AV1 scalable coding; 0 otherwise). */
  readonly spatialIndex: number;
  /** When the receiver page got it (its performance timeline, ms). */
  readonly receivedMs: number;
  readonly data: Uint8Array;
}

const HEADER = 17;

/**
 * Parses the receiver's posted frames (pages.ts: [u32 rtp][u8 flags][f64
 * receivedMs][u32 length][bytes]...; flags: bit 0 key frame, bits 1-3 the
 * spatial layer, 0 in files written before layers were noted).
 */
export function parseEncodedFrames(bytes: Uint8Array, name: string): EncodedFrame[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const frames: EncodedFrame[] = [];
  let offset = 0;
  let base: number | null = null;
  let previous = 0;
  while (offset < bytes.length) {
    if (offset + HEADER > bytes.length) throw new Error(`${name}: frame ${frames.length} at byte ${offset}: header truncated`);
    const raw = view.getUint32(offset, true);
    const flags = view.getUint8(offset + 4);
    if (flags > 15) throw new Error(`${name}: frame ${frames.length} at byte ${offset}: flags ${flags}, expected 0 to 15`);
    const key = (flags & 1) === 1;
    const spatialIndex = flags >> 1;
    const receivedMs = view.getFloat64(offset + 5, true);
    const length = view.getUint32(offset + 13, true);
    if (offset + HEADER + length > bytes.length) throw new Error(`${name}: frame ${frames.length} at byte ${offset}: ${length} bytes announced, ${bytes.length - offset - HEADER} left`);
    // Unwrap: the candidate nearest the previous frame's timestamp.
    let rtp: number;
    if (base === null) {
      base = raw;
      rtp = 0;
    } else {
      rtp = raw - base;
      rtp += Math.round((previous - rtp) / 2 ** 32) * 2 ** 32;
    }
    previous = rtp;
    frames.push({ rtp, rawRtp: raw, key, spatialIndex, receivedMs, data: bytes.subarray(offset + HEADER, offset + HEADER + length) });
    offset += HEADER + length;
  }
  return frames;
}

/** The frames in RTP timestamp order, one per timestamp (the first received), from the first key frame on. */
export function decodeOrder(frames: readonly EncodedFrame[]): EncodedFrame[] {
  const byRtp = new Map<number, EncodedFrame>();
  for (const f of frames) if (!byRtp.has(f.rtp)) byRtp.set(f.rtp, f);
  const sorted = [...byRtp.values()].sort((a, b) => a.rtp - b.rtp);
  const firstKey = sorted.findIndex((f) => f.key);
  return firstKey < 0 ? [] : sorted.slice(firstKey);
}

/**
 * decodeOrder for a scalable stream: per RTP timestamp, the first frame
 * received of each spatial layer, in layer order; the timestamps in order,
 * from the first that holds a key frame on.
 */
export function layeredDecodeOrder(frames: readonly EncodedFrame[]): EncodedFrame[] {
  const byRtp = new Map<number, Map<number, EncodedFrame>>();
  for (const f of frames) {
    const layers = byRtp.get(f.rtp) ?? new Map<number, EncodedFrame>();
    if (!layers.has(f.spatialIndex)) layers.set(f.spatialIndex, f);
    byRtp.set(f.rtp, layers);
  }
  const sorted = [...byRtp.keys()].sort((a, b) => a - b).map((rtp) => [...byRtp.get(rtp)!.values()].sort((a, b) => a.spatialIndex - b.spatialIndex));
  const firstKey = sorted.findIndex((layers) => layers.some((f) => f.key));
  return firstKey < 0 ? [] : sorted.slice(firstKey).flat();
}

/** Rows [from, height) of a picture as a picture of their own (chroma rows from from/2; `from` even). */
export function cropTop(picture: Picture, from: number): Picture {
  const { width, height, data } = picture;
  const h = height - from;
  const out = new Uint8Array(i420Size(width, h));
  out.set(data.subarray(from * width, height * width), 0);
  const cw = chromaWidth(width);
  const sch = chromaHeight(height);
  const dch = chromaHeight(h);
  const skip = from >> 1;
  for (let plane = 0; plane < 2; plane++) {
    const src = width * height + plane * cw * sch + skip * cw;
    const dst = width * h + plane * cw * dch;
    out.set(data.subarray(src, src + dch * cw), dst);
  }
  return { width, height: h, data: out };
}

/** Luma SSIM of `shown` (any size) against `source`, the top `strip` rows excluded, computed on Node's thread pool. */
export async function shownSsim(source: Picture, shown: Picture, strip: number): Promise<number> {
  const full = shown.width === source.width && shown.height === source.height ? shown : resizePicture(shown, source.width, source.height);
  return (await ssimAsync(cropTop(source, strip), cropTop(full, strip))).y;
}


export interface DecodedFrameInfo {
  readonly rtp: number;
  readonly rawRtp: number;
  readonly key: boolean;
  readonly bytes: number;
  readonly width: number;
  readonly height: number;
  /** The barcode of the decoded picture (its source frame's number in the camera file), or null. */
  readonly fileFrame: number | null;
  /** Set when this frame was displayed: its luma SSIM against the source frame. */
  ssim?: number;
  /** Set for frames whose barcode is in options.hashFileFrames: the luma hash of our decoding. */
  lumaHash?: number;
}

export interface QualityResult {
  readonly frames: DecodedFrameInfo[];
  /** Frames received that the decoder refused (with the first error). */
  readonly undecodable: number;
  readonly firstError?: string;
  /** Frames received before the first key frame, or duplicates: not decoded. */
  readonly notDecoded: number;
}

const FOURCC: Readonly<Record<WebrtcCodec, string>> = { vp8: 'VP80', vp9: 'VP90', av1: 'AV01' };

/**
 * Writes the received frames to `ivfPath` in decode order and decodes them
 * (`codec`, default vp8); for every frame whose RTP timestamp is in
 * `displayed`, computes SSIM against `sourceFrame(barcode)` (the camera
 * file's frame).
 */
export async function measureQuality(options: {
  /** The received frames (parseEncodedFrames). */
  readonly received: readonly EncodedFrame[];
  readonly ivfPath: string;
  readonly displayed: ReadonlySet<number>;
  readonly sourceFrame: (fileFrame: number) => Promise<Picture>;
  readonly sourceWidth: number;
  readonly sourceHeight: number;
  /** Camera-file frame numbers whose decoded luma to hash (to compare with Chromium's decoding). */
  readonly hashFileFrames?: ReadonlySet<number>;
  readonly codec?: WebrtcCodec;
  /** The ffmpeg program for vp9 and av1 (default: ffmpeg on the PATH). */
  readonly ffmpeg?: string;
}): Promise<QualityResult> {
  const { received } = options;
  const codec = options.codec ?? 'vp8';
  const ordered = codec === 'vp8' ? decodeOrder(received) : layeredDecodeOrder(received);
  const strip = barcodeStripHeight(options.sourceWidth, options.sourceHeight);
  const first = ordered[0] ?? { rtp: 0 };
  const frames: DecodedFrameInfo[] = [];
  // A shown frame's SSIM is computed on Node's thread pool while the next frames decode: at most one per pool thread at once.
  const inFlight: Promise<void>[] = [];
  const inFlightBound = threadPoolSize(); // (each holds two pictures)
  /** One decoded picture of the frame (all its layers) with RTP timestamp `f.rtp`. */
  const measure = async (f: { rtp: number; rawRtp: number; key: boolean; bytes: number }, picture: Picture) => {
    const info: DecodedFrameInfo = { ...f, width: picture.width, height: picture.height, fileFrame: decodeBarcode(picture) };
    if (info.fileFrame !== null && options.hashFileFrames?.has(info.fileFrame)) info.lumaHash = lumaHash(picture.data, picture.width, picture.height, picture.width);
    // The displayed set holds the RTP timestamps as sent.
    if (options.displayed.has(f.rawRtp) && info.fileFrame !== null) {
      const fileFrame = info.fileFrame;
      const done = (async () => {
        info.ssim = await shownSsim(await options.sourceFrame(fileFrame), picture, strip);
      })();
      done.catch(() => {}); // (awaited below, where a failure is thrown)
      inFlight.push(done);
      if (inFlight.length >= inFlightBound) await inFlight.shift();
    }
    frames.push(info);
  };
  const writer = createIvfWriter(options.ivfPath, { width: options.sourceWidth, height: options.sourceHeight, fps: 90000, fourcc: FOURCC[codec] });
  let undecodable = 0;
  let firstError: string | undefined;
  try {
    if (codec === 'vp8') {
      const decoder = createStreamDecoder();
      for (const f of ordered) {
        await writer.write({ data: f.data, timestamp: f.rtp - first.rtp });
        let picture: Picture;
        try {
          picture = await decoder.decode(f.data);
        } catch (error) {
          undecodable++;
          firstError ??= (error as Error).message;
          continue;
        }
        await measure({ rtp: f.rtp, rawRtp: f.rawRtp, key: f.key, bytes: f.data.length }, picture);
      }
    } else {
      for (const f of ordered) await writer.write({ data: f.data, timestamp: f.rtp - first.rtp });
    }
  } finally {
    await writer.close();
  }
  if (codec === 'vp8') await Promise.all(inFlight.splice(0));
  if (codec !== 'vp8') {
    // Per RTP timestamp: its layers, and the last picture decoded from them.
    const byPts = new Map<number, { rtp: number; rawRtp: number; key: boolean; bytes: number }>();
    for (const f of ordered) {
      const known = byPts.get(f.rtp - first.rtp);
      byPts.set(f.rtp - first.rtp, known ? { ...known, key: known.key || f.key, bytes: known.bytes + f.data.length } : { rtp: f.rtp, rawRtp: f.rawRtp, key: f.key, bytes: f.data.length });
    }
    let pending: { pts: number; picture: Picture } | undefined;
    const flush = async () => {
      const f = pending && byPts.get(pending.pts);
      if (pending && f) await measure(f, pending.picture);
      pending = undefined;
    };
    for await (const decoded of ffmpegDecode(options.ivfPath, codec, { ffmpeg: options.ffmpeg })) {
      if (pending && pending.pts !== decoded.pts) await flush();
      pending = decoded;
    }
    await flush();
    await Promise.all(inFlight.splice(0));
    undecodable = byPts.size - frames.length;
    if (undecodable > 0) firstError = `${undecodable} of ${byPts.size} frames gave no picture (ffmpeg)`;
  }
  return { frames, undecodable, firstError, notDecoded: received.length - ordered.length };
}
