// webrtc-like: a MODEL of a WebRTC video sender, not Chromium. Google
// Congestion Control (src/cc/gcc/) sets a target bitrate and a libvpx-like
// one-pass CBR rate control encodes each frame once at the quantizer
// predicted to meet it, over Salsify's sender and transport (its pacer,
// fragmentation, acknowledgements and loss recovery; Salsify's own target
// size is ignored).
//
// GCC's input: every datagram's send time and size as the pacer sends it,
// and every acknowledgement's arrival time at the sender, as the arrival
// time (Salsify's receiver acknowledges every datagram at once; over an
// uncongested feedback path this differs from the receiver's arrival time by
// a constant, which the delay gradient ignores). Datagrams are numbered in
// sending order (transport-wide sequence numbers); every 100 ms (at the
// first acknowledgement after it) the acknowledgements since the last report
// become one feedback report, every number from the first not yet reported
// to the highest acknowledged, the others as lost.
//
// Rate control, per frame (libvpx's one-pass CBR in outline, our own model):
// - a leaky-bucket encoder buffer: each frame sent adds its bytes, the
//   target bitrate drains it continuously; its size is `bufferMs` (1000 ms)
//   of the target;
// - the frame's budget is target / fps minus a tenth of the buffer's level
//   (an overshoot is paid back over about ten frames), at least a quarter of
//   target / fps;
// - the quantizer: the lowest (from 4) whose predicted size fits the budget,
//   predicted as a correction factor x a shape: the bytes of 720p VP8 frames
//   at quantizers 8..127 measured in this toolkit (README, VP8 table), log-
//   interpolated; key frames and inter frames have a correction factor each,
//   moved after every frame towards actual / predicted (square root of the
//   ratio, at most 2x a frame);
// - a frame whose bytes would overflow the buffer is dropped (skipped), as
//   libvpx's frame dropping does; key frames are never dropped.
import { createController as createGcc, type GccController } from '../../cc/gcc/gcc.ts';
import type { PacketReport } from '../../cc/controller.ts';
import type { SchemeParams, SenderScheme } from './scheme.ts';

export interface WebrtcLikeOptions {
  /** GCC's bitrates, bit/s. */
  readonly initialBitrate: number;
  readonly minBitrate: number;
  readonly maxBitrate: number;
  readonly feedbackIntervalMs: number;
  /** The encoder buffer, ms of the target. */
  readonly bufferMs: number;
  readonly minQuantizer: number;
  readonly maxQuantizer: number;
}

export const WEBRTC_LIKE_DEFAULTS: WebrtcLikeOptions = {
  initialBitrate: 300_000,
  minBitrate: 50_000,
  maxBitrate: 20_000_000,
  feedbackIntervalMs: 100,
  bufferMs: 1000,
  minQuantizer: 4,
  maxQuantizer: 127,
};

/** Bytes of a 720p VP8 inter frame at these quantizers (README, "Bytes per frame against the quantizer"). */
const SHAPE_Q = [8, 24, 40, 64, 96, 127];
const SHAPE_BYTES = [16207, 6200, 3703, 2034, 1071, 645];

/** The shape of frame size against quantizer, log-interpolated (extrapolated below 8). */
export function sizeShape(q: number): number {
  let i = 0;
  while (i < SHAPE_Q.length - 2 && q > SHAPE_Q[i + 1]!) i++;
  const q0 = SHAPE_Q[i]!;
  const q1 = SHAPE_Q[i + 1]!;
  const l0 = Math.log(SHAPE_BYTES[i]!);
  const l1 = Math.log(SHAPE_BYTES[i + 1]!);
  return Math.exp(l0 + ((l1 - l0) * (q - q0)) / (q1 - q0));
}

export interface WebrtcLikeScheme extends SenderScheme {
  /** GCC's state (for tests and plots). */
  readonly controller: GccController;
  /** The encoder buffer's level now (bytes). */
  bufferLevel(now: number): number;
}

export function webrtcLike(params: SchemeParams, options: Partial<WebrtcLikeOptions> = {}): WebrtcLikeScheme {
  const o = { ...WEBRTC_LIKE_DEFAULTS, ...options };
  const gcc = createGcc({ initialBitrate: o.initialBitrate, minBitrate: o.minBitrate, maxBitrate: o.maxBitrate });
  const fps = 1000 / params.frameIntervalMs;

  // ---- feedback
  let nextSequence = 0;
  const sequenceOf = new Map<number, number>();
  const key = (frame: number, fragment: number) => frame * 65536 + fragment;
  const acked = new Map<number, number>();
  let nextToReport = 0;
  let highestAcked = -1;
  let lastReportMs: number | undefined;

  // ---- rate control
  let level = 0;
  let levelAtMs: number | undefined;
  const correction = { key: 1, inter: 1 };
  let calibrated = { key: false, inter: false };
  let predicted: { bytes: number; keyFrame: boolean } | undefined;

  const drain = (now: number) => {
    if (levelAtMs !== undefined) level = Math.max(0, level - ((now - levelAtMs) * gcc.targetBitrate()) / 8000);
    levelAtMs = now;
  };
  const bufferBytes = () => (gcc.targetBitrate() / 8) * (o.bufferMs / 1000);

  return {
    name: 'webrtc-like',
    controller: gcc,
    bufferLevel(now) {
      drain(now);
      return level;
    },
    plan(view) {
      drain(view.now);
      const perFrame = gcc.targetBitrate() / 8 / fps;
      const budget = Math.max(perFrame / 4, perFrame - level / 10);
      const kind = view.keyFrame ? 'key' : 'inter';
      let q = o.minQuantizer;
      while (q < o.maxQuantizer && correction[kind] * sizeShape(q) > budget) q++;
      predicted = { bytes: correction[kind] * sizeShape(q), keyFrame: view.keyFrame };
      return { quantizers: [q], timing: 'serial' };
    },
    choose(encoded, view) {
      drain(view.now);
      if (!view.keyFrame && level + encoded[0]!.bytes > bufferBytes()) return 'skip';
      return { index: 0, label: 'only' };
    },
    onSent(frame) {
      drain(frame.time);
      level += frame.bytes;
      const kind = frame.keyFrame ? 'key' : 'inter';
      const shape = sizeShape(frame.quantizer);
      if (!calibrated[kind]) {
        // The first frame of a kind sets its factor outright.
        correction[kind] = frame.bytes / shape;
        calibrated = { ...calibrated, [kind]: true };
      } else if (predicted !== undefined) {
        const ratio = Math.min(4, Math.max(0.25, frame.bytes / (correction[kind] * shape)));
        correction[kind] *= Math.sqrt(ratio);
      }
      predicted = undefined;
    },
    onDatagramSent(d) {
      const sequence = nextSequence++;
      sequenceOf.set(key(d.frameNumber, d.fragmentIndex), sequence);
      gcc.onPacketSent({ sequence, sizeBytes: d.bytes, sendTimeMs: d.time });
    },
    onAck(a) {
      const k = key(a.frameNumber, a.fragmentIndex);
      const sequence = sequenceOf.get(k);
      if (sequence === undefined || sequence < nextToReport || acked.has(sequence)) return;
      acked.set(sequence, a.time);
      if (sequence > highestAcked) highestAcked = sequence;
      lastReportMs ??= a.time;
      if (a.time - lastReportMs < o.feedbackIntervalMs) return;
      const packets: PacketReport[] = [];
      for (let s = nextToReport; s <= highestAcked; s++) {
        packets.push({ sequence: s, arrivalTimeMs: acked.get(s) });
        acked.delete(s);
      }
      // Forget the numbers of the datagrams reported.
      for (const [datagram, s] of sequenceOf) {
        if (s > highestAcked) break;
        sequenceOf.delete(datagram);
      }
      nextToReport = highestAcked + 1;
      lastReportMs = a.time;
      gcc.onFeedback({ packets }, a.time);
    },
  };
}
