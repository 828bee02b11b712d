// The WebRTC bench: one call (call.ts), then its measurement: per source
// frame its capture, display and signal delay (measure.ts), the SSIM of
// what was shown (quality.ts), getStats summarised (stats-summary.ts) and the
// video link's log. Writes into `out`:
//
//   summary.json          the results pipeline's JSON (label, config, counters, bytes sent,
//                         link use, summary) plus the browser, getStats totals and series
//                         and the video link's figures
//   frames.csv            the results pipeline's per-frame CSV (one line per source frame)
//   camera.jsonl, display.jsonl   the pages' raw records (barcode, time) after a line of clock origins
//   received.ivf          the encoded frames the receiver got, in RTP timestamp order
//   sender-stats.jsonl, receiver-stats.jsonl   every getStats snapshot, raw
//   video-link.log, feedback-link.log          linkshell's mm-link logs
//   linkshell.txt         linkshell's summary
//   linkshell.json        linkshell's summary and verdict as JSON (--summary-json; the validity reads it)
//   path.json             the media's path (--path), its namespace's kernel counters before and after
//
// Times in the records are ms since the call connected. Fates: records.ts.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Y4mFile } from '../codec-bridge/video/y4m-file.ts';
import { parseLinkLog } from '../link-emu/link-log.ts';
import { linkLogStats } from '../link-emu/log-stats.ts';
import { framesToCsv } from '../results/csv.ts';
import type { RunRecord } from '../results/frame-record.ts';
import { runToJson } from '../results/json.ts';
import { summarize, type Summary } from '../results/summary.ts';
import { runCall, type CallData, type CallOptions } from './call.ts';
import { measureFrames, type ShownFrame, type SourceFrame } from './measure.ts';
import { measureQuality, parseEncodedFrames, type QualityResult } from './quality.ts';
import { summaryWindow } from './scenario.ts';
import { firstArrivalTraceTime, linkUseFromLog, traceAt, traceTimeOfCallZero, webrtcRunRecord, type WebrtcFate, type WebrtcFrameRecord } from './records.ts';
export type { WebrtcFate, WebrtcFrameRecord } from './records.ts';
import { bytesSentBetween, summarizeStats, totalsWithNulls, type StatsSummary } from './stats-summary.ts';
import { judgeRealtimeRun, type Validity } from '../results/validity.ts';
import { callFacts } from './call-validity.ts';
import { presentedWithoutCallbacks, type PresentedFrames } from './presented-frames.ts';
import { writeFileAtomically } from '../results/writer.ts';

export interface WebrtcResult {
  readonly label: string;
  readonly browser: string;
  readonly config: Record<string, unknown>;
  readonly run: RunRecord;
  readonly summary: Summary;
  /** Frames whose delay is known (shown, or a later frame shown by the end), over all source frames including those without a capture time. */
  readonly delayKnownFraction: number;
  readonly frames: WebrtcFrameRecord[];
  readonly stats: StatsSummary;
  readonly link: { video: VideoLinkFigures; linkshellStatus: number | null };
  readonly counters: Record<string, number | undefined>;
  /** Whether the figures are the call's or the machine's (results/validity.ts). */
  readonly validity: Validity;
  /** The processes the call started (all ended) and its temporary directory (removed). */
  readonly processes: CallData['processes'];
  readonly tempDir: string;
}

export interface VideoLinkFigures {
  readonly arrivals: number;
  readonly departures: number;
  readonly drops: number;
  readonly capacityMbps: number;
  readonly throughputMbps: number;
  readonly offeredMbps: number;
  readonly utilization: number;
  readonly queueDelayMs?: { mean: number; p50: number; p95: number; max: number };
  /** Longest run of whole seconds in which more bytes arrived at the link than it could deliver in that second. */
  readonly longestOfferedAboveCapacityS: number;
}

/** The video link's figures from its mm-link log. */
export function videoLinkFigures(logPath: string): VideoLinkFigures {
  const log = parseLinkLog(readFileSync(logPath, 'utf8'), logPath);
  const stats = linkLogStats(log);
  // Per whole second: bytes offered (arrivals) against bytes the link could deliver.
  const offered = new Map<number, number>();
  const capacity = new Map<number, number>();
  for (let i = 0; i < log.count; i++) {
    const second = Math.floor(log.time[i] / 1000);
    if (log.kind[i] === 0) offered.set(second, (offered.get(second) ?? 0) + log.a[i]);
    else if (log.kind[i] === 1) capacity.set(second, (capacity.get(second) ?? 0) + log.a[i]);
  }
  let longest = 0;
  let run = 0;
  const last = Math.floor(stats.endMs / 1000);
  for (let s = Math.floor(stats.startMs / 1000); s <= last; s++) {
    run = (offered.get(s) ?? 0) > (capacity.get(s) ?? 0) ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  return {
    arrivals: stats.arrivals,
    departures: stats.departures,
    drops: stats.drops,
    capacityMbps: stats.capacityMbps,
    throughputMbps: stats.throughputMbps,
    offeredMbps: stats.offeredMbps,
    utilization: stats.utilization,
    queueDelayMs: stats.delayMs && { mean: stats.delayMs.mean, p50: stats.delayMs.p50, p95: stats.delayMs.p95, max: stats.delayMs.max },
    longestOfferedAboveCapacityS: longest,
  };
}

/** `raw` (a 32-bit RTP timestamp) minus `reference`, taken into [-2^31, 2^31): the 90 kHz ticks between them. */
export function rtpDelta(raw: number, reference: number): number {
  const d = (((raw - reference) % 2 ** 32) + 2 ** 32) % 2 ** 32;
  return d >= 2 ** 31 ? d - 2 ** 32 : d;
}

/**
 * Which source frame an RTP timestamp belongs to. Chromium stamps a frame's
 * RTP timestamp from its capture time (90 kHz), so counted from the shown
 * frames (whose source frame and RTP timestamp are both known; the median of
 * their offsets) an RTP timestamp gives a capture time; the source frame captured within a third of a frame
 * interval of it is the one. Returns null when no frame was shown or none is
 * that close.
 *
 * Firefox stamps a canvas frame when it takes it from the canvas (at its
 * next refresh, up to a refresh interval after the page handed it over), so
 * its RTP timestamps place frames only roughly. For it, `barcodes` gives the
 * file frame of every RTP timestamp whose picture was decoded (raw RTP
 * timestamp to barcode): such a timestamp is the source frame of that
 * barcode captured nearest the RTP time; any other is matched by time alone,
 * within half a frame interval.
 */
export function rtpToSource(frames: readonly SourceFrame[], fps: number, barcodes?: ReadonlyMap<number, number>): (rtp: number) => SourceFrame | null {
  const shown = frames.filter((f) => f.rtp !== undefined && f.shownMs !== undefined);
  if (shown.length === 0) return () => null;
  // The clock offset between capture times and RTP timestamps, as the median over every shown frame:
  // one frame whose callback reported another frame's RTP timestamp (a loaded renderer) cannot shift it.
  const reference = shown[0].rtp!;
  const offsets = shown.map((f) => f.captureMs - rtpDelta(f.rtp!, reference) / 90).sort((x, y) => x - y);
  const offsetMs = offsets[Math.floor(offsets.length / 2)];
  const byTime = [...frames].sort((a, b) => a.captureMs - b.captureMs);
  const tolerance = barcodes === undefined ? 1000 / fps / 3 : 1000 / fps / 2;
  const byFileFrame = new Map<number, SourceFrame[]>();
  if (barcodes !== undefined) for (const f of frames) byFileFrame.set(f.fileFrame, [...(byFileFrame.get(f.fileFrame) ?? []), f]);
  return (rtp) => {
    const t = offsetMs + rtpDelta(rtp, reference) / 90;
    const barcode = barcodes?.get(rtp);
    if (barcode !== undefined) {
      let nearest: SourceFrame | null = null;
      for (const f of byFileFrame.get(barcode) ?? []) if (nearest === null || Math.abs(f.captureMs - t) < Math.abs(nearest.captureMs - t)) nearest = f;
      if (nearest !== null) return nearest;
    }
    let lo = 0;
    let hi = byTime.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (byTime[mid].captureMs < t) lo = mid + 1;
      else hi = mid;
    }
    let best: SourceFrame | null = null;
    for (const i of [lo - 1, lo]) {
      const f = byTime[i];
      if (f !== undefined && Math.abs(f.captureMs - t) <= tolerance && (best === null || Math.abs(f.captureMs - t) < Math.abs(best.captureMs - t))) best = f;
    }
    return best;
  };
}

export interface FrameEvidence {
  /** What the sender's encoder produced, in order. */
  readonly sent: readonly { rtp: number; sentMs: number; bytes: number; key: boolean }[];
  /** What the receiver got whole (first arrival per RTP timestamp). */
  readonly received: readonly { rtp: number; receivedMs: number; bytes: number }[];
  /** Our decoding of what the receiver got (VP8 only), for SSIM. */
  readonly quality: QualityResult;
}

/**
 * The per-frame records of a call: the measurement joined, by RTP timestamp,
 * with what the sender encoded and the receiver got, and the SSIM of the
 * shown frames. Times in ms since `originMs`. Also counts the RTP timestamps
 * that matched no source frame and the decoded frames whose barcode names
 * another source frame than their RTP timestamp does (both 0 in a sound run).
 */
export function frameRecords(
  frames: readonly SourceFrame[],
  evidence: FrameEvidence,
  originMs: number,
  fps: number,
  options: { readonly rtpFromCapture?: boolean } = {},
): { records: WebrtcFrameRecord[]; unmatchedRtp: number; barcodeMismatches: number; sentNotNoted: number } {
  // Where RTP timestamps are not capture times (Firefox, rtpToSource), the barcodes of the decoded and the shown pictures name their frames.
  const barcodes = options.rtpFromCapture === false ? new Map<number, number>() : undefined;
  if (barcodes !== undefined) {
    for (const f of frames) if (f.rtp !== undefined) barcodes.set(f.rtp, f.fileFrame);
    for (const d of evidence.quality.frames) if (d.fileFrame !== null) barcodes.set(d.rawRtp, d.fileFrame);
  }
  const sourceOf = rtpToSource(frames, fps, barcodes);
  let unmatchedRtp = 0;
  const sent = new Map<number, { frameNumber: number; sentMs: number; bytes: number; key: boolean }>();
  let frameNumber = 0;
  const sentRtp = new Map<number, number>();
  for (const s of evidence.sent) {
    // With spatial layers several encoded frames share one RTP timestamp: one frame, their sizes summed.
    const known = sentRtp.get(s.rtp);
    if (known !== undefined) {
      const f = sent.get(known)!;
      sent.set(known, { ...f, bytes: f.bytes + s.bytes, key: f.key || s.key });
      continue;
    }
    const source = sourceOf(s.rtp);
    if (source === null) {
      unmatchedRtp++;
      continue;
    }
    sentRtp.set(s.rtp, source.sourceIndex);
    sent.set(source.sourceIndex, { frameNumber: frameNumber++, sentMs: s.sentMs, bytes: s.bytes, key: s.key });
  }
  const arrival = new Map<number, number>();
  const receivedBytes = new Map<number, number>();
  for (const r of evidence.received) {
    const source = sourceOf(r.rtp);
    if (source === null) continue;
    const before = arrival.get(source.sourceIndex);
    if (before === undefined || r.receivedMs < before) arrival.set(source.sourceIndex, r.receivedMs);
    if (!receivedBytes.has(source.sourceIndex)) receivedBytes.set(source.sourceIndex, r.bytes);
  }
  let sentNotNoted = 0;
  const ssimOf = new Map<number, number>();
  let barcodeMismatches = 0;
  for (const d of evidence.quality.frames) {
    const source = sourceOf(d.rawRtp);
    if (source === null) continue;
    if (d.fileFrame !== null && d.fileFrame !== source.fileFrame) barcodeMismatches++;
    if (d.ssim !== undefined) ssimOf.set(source.sourceIndex, d.ssim);
  }
  const rel = (t: number | undefined) => (t === undefined ? undefined : t - originMs);
  const records = frames.map((f): WebrtcFrameRecord => {
    const s = sent.get(f.sourceIndex);
    const arrived = arrival.get(f.sourceIndex);
    const fate: WebrtcFate = f.shownMs !== undefined ? 'shown' : arrived !== undefined ? 'never-shown' : s !== undefined ? 'lost' : 'skipped';
    // A frame shown or received was sent even if the sender page missed it (counted): frame number -1,
    // send time its capture (a lower bound), size what arrived.
    let sentInfo = fate === 'skipped' ? undefined : s;
    if (fate !== 'skipped' && sentInfo === undefined) {
      sentNotNoted++;
      sentInfo = { frameNumber: -1, sentMs: f.captureMs, bytes: receivedBytes.get(f.sourceIndex) ?? 0, key: false };
    }
    return {
      sourceIndex: f.sourceIndex,
      fileFrame: f.fileFrame,
      captureMs: f.captureMs - originMs,
      fate,
      frameNumber: sentInfo?.frameNumber,
      sendMs: rel(sentInfo?.sentMs),
      bytes: sentInfo?.bytes,
      keyFrame: sentInfo?.key,
      arrivalMs: fate === 'shown' || fate === 'never-shown' ? rel(arrived ?? f.shownMs) : undefined,
      shownMs: rel(f.shownMs),
      displayMs: rel(f.displayMs),
      signalDelayMs: f.signalDelayMs,
      shownWidth: f.shownWidth,
      shownHeight: f.shownHeight,
      ssim: f.shownMs !== undefined ? ssimOf.get(f.sourceIndex) : undefined,
    };
  });
  return { records, unmatchedRtp, barcodeMismatches, sentNotNoted };
}

/** "Chromium 156" from "Chrome/156.0.8078.114", "Firefox 153" from "firefox/153.8.0" (or the string as it is). */
export function browserLabel(version: string): string {
  const m = /^(\w+)\/(\d+)\./.exec(version);
  if (!m) return version;
  return `${/^firefox$/i.test(m[1]) ? 'Firefox' : 'Chromium'} ${m[2]}`;
}

/**
 * The shown frames as the measurement takes them: every frame a display
 * callback saw, and every frame Chromium presented without one that can be
 * told (presented-frames.ts), at the upper bound of its display time, its
 * source frame's number read from our decoding of it. Frames presented
 * without a callback that cannot be told, or whose barcode our decoding
 * cannot read, are counted apart.
 */
export function shownFrames(data: Pick<CallData, 'receiver' | 'receiverOriginMs'>, presented: PresentedFrames, quality: QualityResult): { shown: ShownFrame[]; unattributed: number } {
  const shown: ShownFrame[] = data.receiver.map((r) => ({ n: r.n, shownMs: data.receiverOriginMs + r.presentationMs, rtp: r.rtp, width: r.width, height: r.height }));
  const decoded = new Map(quality.frames.map((f) => [f.rawRtp, f]));
  let unattributed = presented.unattributed;
  for (const p of presented.attributed) {
    const frame = decoded.get(p.rtp);
    if (frame === undefined || frame.fileFrame === null) {
      unattributed++;
      continue;
    }
    shown.push({ n: frame.fileFrame, shownMs: data.receiverOriginMs + p.byMs, rtp: p.rtp, width: frame.width, height: frame.height });
  }
  return { shown, unattributed };
}

export async function analyzeCall(data: CallData, options: CallOptions): Promise<WebrtcResult> {
  const captures = data.sender.map((r) => ({ n: r.n, captureMs: r.captureUs / 1000 }));
  const received = parseEncodedFrames(new Uint8Array(readFileSync(data.framesFile)), data.framesFile);
  // Frames Chromium presented between two display callbacks: displayed too (their SSIM is measured), shown at the later callback's time at the latest.
  const presented = presentedWithoutCallbacks(data.receiver, received.map((r) => r.rawRtp));
  const displayed = new Set<number>();
  for (const r of data.receiver) if (r.rtp !== undefined) displayed.add(r.rtp);
  for (const p of presented.attributed) displayed.add(p.rtp);
  const clip = await Y4mFile.open(data.clip.path);
  let quality: QualityResult;
  try {
    quality = await measureQuality({
      received,
      ivfPath: join(options.out, 'received.ivf'),
      displayed,
      sourceFrame: (k) => clip.read(k),
      sourceWidth: data.clip.width,
      sourceHeight: data.clip.height,
      hashFileFrames: new Set(data.decodingChecks.flatMap((c) => (c.n === null ? [] : [c.n]))),
      codec: options.codec,
      ffmpeg: options.programs.ffmpeg,
    });
  } finally {
    await clip.close();
  }
  rmSync(data.framesFile, { force: true });
  const { shown, unattributed } = shownFrames(data, presented, quality);
  const measurement = measureFrames(captures, shown, data.clip.frameCount, { fromMs: data.connectedMs, toMs: data.measuredUntilMs, endMs: data.stoppedMs });
  // Chromium's decoding against ours, frame by frame (by barcode; the first frames only, before the clip loops).
  const ours = new Map<number, number[]>();
  for (const f of quality.frames) if (f.lumaHash !== undefined && f.fileFrame !== null) ours.set(f.fileFrame, [...(ours.get(f.fileFrame) ?? []), f.lumaHash]);
  let decodingCompared = 0;
  let decodingIdentical = 0;
  for (const c of data.decodingChecks) {
    const hashes = c.n === null ? undefined : ours.get(c.n);
    if (hashes === undefined) continue;
    decodingCompared++;
    if (hashes.includes(c.hash)) decodingIdentical++;
  }
  const stats = summarizeStats(data.senderStats, data.receiverStats);
  const video = videoLinkFigures(data.videoLog);
  const evidence = {
    sent: data.sent.map((s) => ({ rtp: s.rtp, sentMs: data.senderOriginMs + s.t, bytes: s.bytes, key: s.key })),
    received: received.map((r) => ({ rtp: r.rawRtp, receivedMs: data.receiverOriginMs + r.receivedMs, bytes: r.data.length })),
    quality,
  };
  const { records: frames, unmatchedRtp, barcodeMismatches, sentNotNoted } = frameRecords(measurement.frames, evidence, data.connectedMs, data.clip.fps, { rtpFromCapture: data.browser !== 'firefox' });
  const browser = data.browserVersion;
  const label = `webrtc (${browserLabel(browser)})`;
  const endMs = data.stoppedMs - data.connectedMs;
  // Trace ms of the call's time zero and of the first datagram on the video link (with a held clock: the first RTP packet).
  const callZeroOnTrace = traceTimeOfCallZero(data.videoLog, data.connectedMs + data.epochMinusMonotonicMs);
  const mediaOnTrace = firstArrivalTraceTime(data.videoLog);
  const measuredMs = data.measuredUntilMs - data.connectedMs;
  const window = summaryWindow(options.scenario, mediaOnTrace === null || callZeroOnTrace === null ? 0 : mediaOnTrace - callZeroOnTrace, measuredMs);
  const link = linkUseFromLog(data.videoLog, data.connectedMs + data.epochMinusMonotonicMs, window?.fromMs ?? 0, window?.toMs ?? measuredMs);
  const known = frames.filter((f) => f.displayMs !== undefined).length;
  const counters = {
    cameraFrames: data.sender.length,
    framesWithoutCapture: measurement.missingCaptures,
    framesWithSsim: frames.filter((f) => f.ssim !== undefined).length,
    unreadableCaptures: measurement.unreadableCaptures,
    unreadableShown: measurement.unreadableShown,
    unmatchedShown: measurement.unmatchedShown,
    unmatchedRtp,
    barcodeMismatches,
    sentNotNoted,
    displayCallbacks: data.receiver.length,
    // Steps of presentedFrames above 1 between callbacks; the frames presented in them that were told (shown, display time bounded) and that were not.
    displayCallbackGaps: presented.gaps,
    presentedWithoutCallback: presented.attributed.length - (unattributed - presented.unattributed),
    presentedUnattributed: unattributed,
    framesEncoded: data.sent.length,
    framesReceived: received.length,
    framesUndecodable: quality.undecodable,
    framesNotDecoded: quality.notDecoded,
    decodingChecked: data.decodingChecks.length,
    decodingCompared: 0,
    decodingIdentical: 0,
  };
  const config = {
      video: options.video,
      browser,
      size: `${options.width}x${options.height}`,
      fps: options.fps,
      codec: options.codec,
      negotiatedCodec: data.codec,
      scalabilityMode: options.scalabilityMode ?? null,
      durationS: options.durationS,
      drainMs: options.drainMs ?? 2000,
      videoTrace: options.videoTrace,
      feedbackTrace: options.feedbackTrace,
      linkshellArgs: options.linkshellArgs ?? [],
      preset: options.scenario?.preset ?? null,
      traceStartS: options.scenario?.traceStartS ?? 0,
      // When linkshell started the traces: at the media's first packet (first-rtp) unless told otherwise.
      traceClockStart: data.traceClockStart,
      // The trace second the media's first packet met (the first datagram the video link logged: with a held clock, the first RTP packet).
      firstMediaAtTraceS: data.traceClockStart === 'now' ? null : traceAt(mediaOnTrace, options.scenario?.traceStartS ?? 0),
      // The trace second at which the call connected (where its measurement starts).
      connectedAtTraceS: traceAt(callZeroOnTrace, options.scenario?.traceStartS ?? 0),
      // The summary's window, in seconds after the media's first packet (null: the whole call).
      measureFromS: options.scenario?.measureFromS ?? null,
      measureForS: options.scenario?.measureForS ?? null,
      clipFrames: data.clip.frameCount,
  };
  counters.decodingCompared = decodingCompared;
  counters.decodingIdentical = decodingIdentical;
  // Bytes sent: RTP payload and headers as getStats counts them (TURN and UDP headers not included), over the window when there is one.
  const pageTime = (callMs: number) => data.connectedMs + callMs - data.senderOriginMs;
  const bytesSent = window === undefined ? stats.totals.bytesSent : bytesSentBetween(data.senderStats, pageTime(window.fromMs), pageTime(window.toMs));
  const run = webrtcRunRecord({ label, config, counters, bytesSent: bytesSent ?? 0, link, endMs, frames, window });
  return {
    label,
    browser,
    config,
    run,
    summary: summarize(run),
    delayKnownFraction: frames.length + measurement.missingCaptures > 0 ? known / (frames.length + measurement.missingCaptures) : 0,
    frames,
    stats,
    link: { video, linkshellStatus: data.linkshellStatus },
    counters,
    validity: judgeRealtimeRun(callFacts({ ...data, fps: data.clip.fps })),
    processes: data.processes,
    tempDir: data.tempDir,
  };
}

/** Runs a call and writes its results into options.out (which must exist). */
export async function runWebrtcBench(options: CallOptions): Promise<WebrtcResult> {
  const data = await runCall(options);
  try {
    const result = await analyzeCall(data, options);
    writeFileAtomically(join(options.out, 'frames.csv'), framesToCsv(result.run.frames));
    writeFileAtomically(join(options.out, 'linkshell.txt'), data.linkshellOutput);
    // The media's path, and the kernel counters of the sender's namespace (netns paths): TCP retransmissions, UDP sent.
    writeFileAtomically(join(options.out, 'path.json'), JSON.stringify({ path: data.path, udpBlockedBy: data.udpBlockedBy ?? null, kernelCounters: data.kernelCounters ?? null }, null, 2) + '\n');
    // The pages' raw records, with the clocks that relate them (monotonic ms = page time + origin).
    const origins = { senderOriginMs: data.senderOriginMs, receiverOriginMs: data.receiverOriginMs, pageClocks: data.pageClocks, connectedMs: data.connectedMs, measuredUntilMs: data.measuredUntilMs, stoppedMs: data.stoppedMs, clipFrames: data.clip.frameCount };
    writeFileAtomically(join(options.out, 'camera.jsonl'), [JSON.stringify(origins), ...data.sender.map((r) => JSON.stringify(r))].join('\n') + '\n');
    writeFileAtomically(join(options.out, 'display.jsonl'), [JSON.stringify(origins), ...data.receiver.map((r) => JSON.stringify(r))].join('\n') + '\n');
    const stats = { ...result.stats, totals: totalsWithNulls(result.stats.totals) };
    const extra = { validity: result.validity, browser: result.browser, pageClocks: data.pageClocks, delayKnownFraction: result.delayKnownFraction, stats, videoLink: result.link.video, linkshellStatus: result.link.linkshellStatus };
    const json = JSON.stringify(runToJson(result.run, result.summary, { extra }), (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 2) + '\n';
    writeFileAtomically(join(options.out, 'summary.json'), json);
    return result;
  } finally {
    data.dispose();
  }
}
