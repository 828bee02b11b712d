// The two pages of the call, as HTML with their scripts (browser JavaScript,
// not compiled here). Node drives them through `window.bench` (puppeteer's
// evaluate) and they post what they measure back to the page server:
//
//   POST /post/ROLE/records   JSON array: sender {n, captureUs} per camera frame
//                             (Chromium: VideoFrame.timestamp, its monotonic clock;
//                             Firefox: the page's own camera, on the page's timeline);
//                             receiver {n, presentationMs, rtp, width, height}
//                             per displayed frame (requestVideoFrameCallback)
//   POST /post/ROLE/stats     JSON array of getStats() snapshots {t, report}
//   POST /post/sender/sent    JSON array {rtp, t, bytes, key} per frame the encoder produced
//                             (insertable streams; one per spatial layer with SVC)
//   POST /post/receiver/checks  JSON array {n, hash, width, height}: Chromium's own
//                             decoding of the first frames (a MediaStreamTrackProcessor
//                             on a clone of the received track), luma hashed (luma-hash.ts)
//   POST /post/receiver/frames  binary: the encoded frames the receiver got
//                             (insertable streams), each
//                             [u32 rtpTimestamp][u8 flags: bit 0 key, bits 1-3
//                             spatial layer][f64 receivedMs][u32 length][bytes]
//
// The same pages run in Chromium and in Firefox (config.browser), which differ
// in three places:
//   the camera    Chromium's fake camera plays the clip (--use-file-for-fake-
//                 video-capture), read back with a MediaStreamTrackProcessor.
//                 Firefox has neither a file-backed fake camera nor
//                 MediaStreamTrackProcessor, so its sender page is the camera:
//                 it fetches the clip's frames from the page server
//                 (GET /camera/K, I420) and draws each at its due time on a
//                 canvas whose captureStream(0) track is sent (canvasCamera).
//   encoded frames  Chromium: encoded insertable streams in the page
//                 (createEncodedStreams); Firefox: RTCRtpScriptTransform, whose
//                 worker posts each frame's facts (and the receiver's bytes)
//                 back to the page (watchEncoded).
//   decoding check  the receiver's MediaStreamTrackProcessor: Chromium only.
//
// Barcodes are read with barcode.ts's decodeBarcodeLuma, whose source text is
// put into the page as it is.
import { decodeBarcodeLuma } from './barcode.ts';
import { lumaHash } from './luma-hash.ts';

const COMMON = `
'use strict';
// esbuild (tsx) may wrap named functions in __name(); the decoder's text is the same either way.
var __name = (f) => f;
const decodeBarcodeLuma = ${decodeBarcodeLuma.toString()};
const lumaHash = ${lumaHash.toString()};
const pending = { records: [], stats: [], checks: [], sent: [] };
let posting = Promise.resolve();
function post(kind, body, type) {
  posting = posting.then(() => fetch('/post/' + ROLE + '/' + kind, { method: 'POST', headers: { 'content-type': type }, body })
    .then((r) => { if (!r.ok) throw new Error('HTTP ' + r.status); })
    .catch((e) => console.error('post ' + kind + ': ' + e)));
  return posting;
}
function flushJson() {
  for (const kind of ['records', 'stats', 'checks', 'sent']) {
    if (pending[kind].length === 0) continue;
    const batch = pending[kind];
    pending[kind] = [];
    post(kind, JSON.stringify(batch), 'application/json');
  }
}
const timers = [];
let pc = null;
function statsLoop() {
  timers.push(setInterval(async () => {
    if (!pc) return;
    const t = performance.now();
    const report = await pc.getStats();
    const entries = [];
    report.forEach((s) => entries.push(s));
    pending.stats.push({ t, report: entries });
  }, 500));
  timers.push(setInterval(flushJson, 250));
}
function gathered(pc, timeoutMs) {
  if (pc.iceGatheringState === 'complete') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('ICE gathering did not complete within ' + timeoutMs + ' ms')), timeoutMs);
    pc.addEventListener('icegatheringstatechange', () => {
      if (pc.iceGatheringState === 'complete') { clearTimeout(timer); resolve(); }
    });
  });
}
function connected(timeoutMs) {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (pc.connectionState === 'connected') { clearTimeout(timer); resolve(); }
      else if (pc.connectionState === 'failed') { clearTimeout(timer); reject(new Error('the peer connection failed')); }
    };
    const timer = setTimeout(() => reject(new Error('not connected within ' + timeoutMs + ' ms (state ' + pc.connectionState + ')')), timeoutMs);
    pc.addEventListener('connectionstatechange', check);
    check();
  });
}
// An encoded frame's facts: RTP timestamp, key or delta, spatial layer, size.
function frameInfo(frame) {
  const meta = frame.getMetadata ? frame.getMetadata() : {};
  const rtp = meta.rtpTimestamp !== undefined ? meta.rtpTimestamp : frame.timestamp;
  return { rtp: rtp >>> 0, key: frame.type === 'key', spatial: (meta.spatialIndex || 0) & 7, bytes: frame.data.byteLength };
}
// The worker of an RTCRtpScriptTransform (Firefox): passes every frame on and
// posts its facts, with a copy of its bytes when asked, and its time on the
// page's timeline (the worker's clock has its own origin).
function transformWorker() {
  self.onrtctransform = (event) => {
    const { withData, originMs } = event.transformer.options;
    const shift = performance.timeOrigin - originMs;
    event.transformer.readable.pipeThrough(new TransformStream({
      transform(frame, controller) {
        const info = frameInfo(frame);
        info.t = performance.now() + shift;
        if (withData) {
          info.data = frame.data.slice(0);
          postMessage(info, [info.data]);
        } else postMessage(info);
        controller.enqueue(frame);
      },
    })).pipeTo(event.transformer.writable).catch(() => {});
  };
}
const TRANSFORM_WORKER = 'const frameInfo = ' + frameInfo.toString() + ';\\n(' + transformWorker.toString() + ')();\\n';
// Calls onFrame(info, bytes or null, page time) for every encoded frame that
// passes an RTCRtpSender or RTCRtpReceiver.
function watchEncoded(endpoint, withData, onFrame) {
  if (endpoint.createEncodedStreams) {
    const { readable, writable } = endpoint.createEncodedStreams();
    readable.pipeThrough(new TransformStream({
      transform(frame, controller) {
        onFrame(frameInfo(frame), withData ? new Uint8Array(frame.data) : null, performance.now());
        controller.enqueue(frame);
      },
    })).pipeTo(writable).catch(() => {});
    return;
  }
  const worker = new Worker(URL.createObjectURL(new Blob([TRANSFORM_WORKER], { type: 'text/javascript' })));
  worker.onmessage = (event) => onFrame(event.data, event.data.data ? new Uint8Array(event.data.data) : null, event.data.t);
  worker.onerror = (event) => console.error('encoded-frame worker: ' + event.message);
  endpoint.transform = new RTCRtpScriptTransform(worker, { withData, originMs: performance.timeOrigin });
}
// The negotiated codec: the sender's parameters, or the answer's first video payload type.
function negotiatedCodec(pc, answer) {
  const parameters = pc.getSenders()[0].getParameters();
  if (parameters.codecs && parameters.codecs[0]) return parameters.codecs[0].mimeType;
  const m = /^m=video \\d+ \\S+ (\\d+)/m.exec(answer.sdp);
  const rtpmap = m && new RegExp('^a=rtpmap:' + m[1] + ' ([^/\\\\s]+)', 'm').exec(answer.sdp);
  return rtpmap ? 'video/' + rtpmap[1] : '';
}
function relayOnly(description, policy) {
  if (policy === 'all') return { type: description.type, sdp: description.sdp };
  const hosts = description.sdp.split('\\n').filter((l) => l.startsWith('a=candidate') && !/ typ relay/.test(l));
  if (hosts.length > 0) throw new Error('a non-relay candidate in the SDP: ' + hosts[0]);
  return { type: description.type, sdp: description.sdp };
}
async function stopAll() {
  for (const t of timers) clearInterval(t);
  timers.length = 0;
  if (window.stopMeasuring) window.stopMeasuring();
  flushJson();
  await posting;
  if (window.flushFrames) await window.flushFrames();
}
`;

const SENDER = `
const ROLE = 'sender';
let measuring = true;
window.stopMeasuring = () => { measuring = false; };
async function measureCamera(track, stripRows) {
  const processor = new MediaStreamTrackProcessor({ track });
  const reader = processor.readable.getReader();
  let buffer = null;
  while (measuring) {
    const { value: frame, done } = await reader.read();
    if (done) break;
    try {
      const width = frame.codedWidth;
      const rows = Math.min(frame.codedHeight, stripRows);
      const rect = { x: 0, y: 0, width, height: rows };
      const size = frame.allocationSize({ rect });
      if (!buffer || buffer.length < size) buffer = new Uint8Array(size);
      const layout = await frame.copyTo(buffer, { rect });
      const n = decodeBarcodeLuma(buffer, width, frame.codedHeight, layout[0].stride);
      pending.records.push({ n, captureUs: frame.timestamp });
    } finally {
      frame.close();
    }
  }
  reader.cancel().catch(() => {});
  track.stop();
}
// Firefox's camera (see the head of this file): frame k of the clip drawn
// k / fps s after the first, its barcode read from the I420 luma it was drawn
// from, its time the moment it was handed to the track (requestFrame). A
// frame more than a frame interval late is skipped, as a camera that missed
// it. A few frames are fetched ahead.
function canvasCamera(config) {
  const { width, height, fps, clipFrames } = config;
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  const context = canvas.getContext('2d');
  const stream = canvas.captureStream(0);
  const track = stream.getVideoTracks()[0];
  const ahead = new Map();
  const frameData = (k) => {
    for (const j of ahead.keys()) if (j < k) ahead.delete(j);
    for (let j = k; j < k + 4; j++) {
      if (!ahead.has(j)) ahead.set(j, fetch('/camera/' + (j % clipFrames)).then((r) => {
        if (!r.ok) throw new Error('camera frame ' + (j % clipFrames) + ': HTTP ' + r.status);
        return r.arrayBuffer();
      }));
    }
    return ahead.get(k);
  };
  const interval = 1000 / fps;
  const colorSpace = { primaries: 'smpte170m', transfer: 'smpte170m', matrix: 'smpte170m', fullRange: false };
  const run = async () => {
    const start = performance.now();
    let k = 0;
    while (measuring) {
      const data = new Uint8Array(await frameData(k));
      const wait = start + k * interval - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const late = performance.now() - (start + k * interval);
      if (late > interval) {
        k += Math.floor(late / interval);
        continue;
      }
      const frame = new VideoFrame(data, { format: 'I420', codedWidth: width, codedHeight: height, timestamp: Math.round(k * interval * 1000), colorSpace });
      context.drawImage(frame, 0, 0);
      frame.close();
      // The spec's CanvasCaptureMediaStreamTrack.requestFrame; Firefox has it on the stream.
      if (track.requestFrame) track.requestFrame();
      else stream.requestFrame();
      pending.records.push({ n: decodeBarcodeLuma(data, width, height, width), captureUs: performance.now() * 1000 });
      k++;
    }
    track.stop();
  };
  run().catch((e) => console.error('camera: ' + e));
  return { stream, track };
}
async function camera(config) {
  if (config.browser === 'firefox') return canvasCamera(config);
  const stream = await navigator.mediaDevices.getUserMedia({ video: { width: { exact: config.width }, height: { exact: config.height }, frameRate: { exact: config.fps } } });
  const track = stream.getVideoTracks()[0];
  // Strip rows: the cell size at the camera's width, rounded up to even for the chroma planes.
  const cell = Math.floor(config.width / 20) & ~1;
  measureCamera(track.clone(), cell + (cell & 1)).catch((e) => console.error('camera measurement: ' + e));
  return { stream, track };
}
window.bench = {
  async offer(config) {
    const { stream, track } = await camera(config);
    pc = new RTCPeerConnection({ iceServers: config.iceServers, iceTransportPolicy: config.iceTransportPolicy || 'relay', bundlePolicy: 'max-bundle', rtcpMuxPolicy: 'require', encodedInsertableStreams: true });
    const encoding = { maxBitrate: config.maxBitrate };
    if (config.scalabilityMode) encoding.scalabilityMode = config.scalabilityMode;
    const transceiver = pc.addTransceiver(track, { direction: 'sendonly', streams: [stream], sendEncodings: [encoding] });
    // What the encoder produced: a pass-through transform that notes each frame's RTP timestamp, size and time (not its bytes).
    watchEncoded(transceiver.sender, false, (info, _bytes, t) => pending.sent.push({ rtp: info.rtp, t, bytes: info.bytes, key: info.key }));
    const codecs = RTCRtpSender.getCapabilities('video').codecs;
    // VP9 profile 0: Chromium names it (profile-id=0); Firefox names no profile-id, whose default is profile 0.
    const wanted = codecs.filter((c) => c.mimeType.toLowerCase() === 'video/' + config.codec && (config.codec !== 'vp9' || /profile-id=0/.test(c.sdpFmtpLine || 'profile-id=0') || !/profile-id=/.test(c.sdpFmtpLine || '')));
    if (wanted.length === 0) throw new Error('the browser offers no ' + config.codec + ' encoder');
    transceiver.setCodecPreferences([...wanted, ...codecs.filter((c) => c.mimeType.toLowerCase() === 'video/rtx')]);
    statsLoop();
    await pc.setLocalDescription(await pc.createOffer());
    await gathered(pc, config.timeoutMs);
    return relayOnly(pc.localDescription, config.iceTransportPolicy);
  },
  async accept(answer, timeoutMs) {
    await pc.setRemoteDescription(answer);
    await connected(timeoutMs);
    // Raised again once negotiated: Chromium otherwise caps the bitrate by resolution (1.7 Mbit/s at 360p).
    return { codec: negotiatedCodec(pc, answer) };
  },
  stop: stopAll,
};
`;

const RECEIVER = `
const ROLE = 'receiver';
let measuring = true;
window.stopMeasuring = () => { measuring = false; };
let frameChunks = [];
let frameBytes = 0;
function takeFrame(info, data, receivedMs) {
  const header = new DataView(new ArrayBuffer(17));
  header.setUint32(0, info.rtp, true);
  // Flags: bit 0 a key frame, bits 1-3 the spatial layer (VP9 and AV1 scalable coding).
  header.setUint8(4, (info.key ? 1 : 0) | info.spatial << 1);
  header.setFloat64(5, receivedMs, true);
  header.setUint32(13, data.length, true);
  frameChunks.push(new Uint8Array(header.buffer), data);
  frameBytes += 17 + data.length;
}
window.flushFrames = () => {
  if (frameChunks.length === 0) return posting;
  const body = new Blob(frameChunks);
  frameChunks = [];
  frameBytes = 0;
  return post('frames', body, 'application/octet-stream');
};
async function checkDecoding(track, count) {
  const processor = new MediaStreamTrackProcessor({ track });
  const reader = processor.readable.getReader();
  let buffer = null;
  for (let i = 0; i < count && measuring; i++) {
    const { value: frame, done } = await reader.read();
    if (done) break;
    try {
      const size = frame.allocationSize();
      if (!buffer || buffer.length < size) buffer = new Uint8Array(size);
      const layout = await frame.copyTo(buffer);
      const width = frame.visibleRect.width;
      const height = frame.visibleRect.height;
      const stride = layout[0].stride;
      const luma = buffer.subarray(layout[0].offset);
      pending.checks.push({ n: decodeBarcodeLuma(luma, width, height, stride), hash: lumaHash(luma, width, height, stride), width, height, format: frame.format });
    } finally {
      frame.close();
    }
  }
  reader.cancel().catch(() => {});
  track.stop();
}
function watchDisplay(video) {
  const canvas = document.createElement('canvas');
  const context = canvas.getContext('2d', { willReadFrequently: true });
  const onFrame = (now, metadata) => {
    if (!measuring) return;
    const width = metadata.width;
    const height = metadata.height;
    const cell = Math.floor(width / 20) & ~1;
    let n = null;
    if (cell >= 4) {
      if (canvas.width !== width || canvas.height !== cell) { canvas.width = width; canvas.height = cell; }
      context.drawImage(video, 0, 0, width, cell, 0, 0, width, cell);
      const rgba = context.getImageData(0, 0, width, cell).data;
      const luma = new Uint8Array(width * cell);
      for (let i = 0, j = 0; j < luma.length; i += 4, j++) luma[j] = 16 + ((rgba[i] * 0.299 + rgba[i + 1] * 0.587 + rgba[i + 2] * 0.114) * 219) / 255;
      n = decodeBarcodeLuma(luma, width, height, width);
    }
    pending.records.push({ n, presentationMs: metadata.presentationTime, expectedDisplayMs: metadata.expectedDisplayTime, presented: metadata.presentedFrames, rtp: metadata.rtpTimestamp, width, height });
    video.requestVideoFrameCallback(onFrame);
  };
  video.requestVideoFrameCallback(onFrame);
}
window.bench = {
  async answer(config, offer) {
    pc = new RTCPeerConnection({ iceServers: config.iceServers, iceTransportPolicy: config.iceTransportPolicy || 'relay', bundlePolicy: 'max-bundle', rtcpMuxPolicy: 'require', encodedInsertableStreams: true });
    pc.ontrack = (event) => {
      watchEncoded(event.receiver, true, (info, bytes, t) => {
        if (measuring) takeFrame(info, bytes, t);
      });
      const video = document.getElementById('video');
      video.srcObject = new MediaStream([event.track]);
      watchDisplay(video);
      if (config.verifyFrames > 0 && typeof MediaStreamTrackProcessor === 'function') checkDecoding(event.track.clone(), config.verifyFrames).catch((e) => console.error('decoding check: ' + e));
      video.play().catch((e) => console.error('play: ' + e));
    };
    timers.push(setInterval(() => { if (frameBytes > 0) window.flushFrames(); }, 250));
    statsLoop();
    await pc.setRemoteDescription(offer);
    await pc.setLocalDescription(await pc.createAnswer());
    await gathered(pc, config.timeoutMs);
    return relayOnly(pc.localDescription, config.iceTransportPolicy);
  },
  connected: (timeoutMs) => connected(timeoutMs),
  stop: stopAll,
};
`;

// The icon is given inline (empty), so the browser does not ask the page server for
// /favicon.ico and log a 404 on every call.
function page(title: string, script: string, body = ''): string {
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>${title}</title><link rel="icon" href="data:,"></head>
<body>${body}<script>${COMMON}${script}</script></body></html>
`;
}

export const SENDER_PAGE = page('salsify webrtc: sender', SENDER);
export const RECEIVER_PAGE = page('salsify webrtc: receiver', RECEIVER, '<video id="video" muted autoplay playsinline></video>');
