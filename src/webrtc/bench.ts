// The WebRTC bench: one call (call.ts), then its measurement: per source
// frame its capture, display and signal delay (measure.ts), the SSIM of
// what was shown (quality.ts), getStats summarised (stats-summary.ts) and the
// video link's log. Writes into `out`:
//
//   summary.json          config, browser, summary, counters, getStats totals and series
//   frames.csv            one line per source frame
//   camera.jsonl, display.jsonl   the pages' raw records (barcode, time) after a line of clock origins
//   received.ivf          the encoded frames the receiver got, in RTP timestamp order
//   sender-stats.jsonl, receiver-stats.jsonl   every getStats snapshot, raw
//   video-link.log, feedback-link.log          linkshell's mm-link logs
//   linkshell.txt         linkshell's summary
//
// Times in the records are ms since the call connected.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ssimToDb } from '../codec-bridge/ssim-db.ts';
import { Y4mFile } from '../codec-bridge/video/y4m-file.ts';
import { parseLinkLog } from '../link-emu/link-log.ts';
import { linkLogStats, quantile } from '../link-emu/log-stats.ts';
import { runCall, type CallData, type CallOptions } from './call.ts';
import { measureFrames, type SourceFrame } from './measure.ts';
import { measureQuality, type QualityResult } from './quality.ts';
import { summarizeStats, type StatsSummary } from './stats-summary.ts';

/**
 * A source frame's fate, as the results pipeline names them; black-box, the
 * bench tells apart only: shown; arrived whole at the receiver but never shown
 * ('never-shown'); never arrived ('skipped': dropped by Chromium's sender, its
 * encoder's frame dropper or lost beyond recovery; a black box cannot tell
 * which).
 */
export type WebrtcFate = 'shown' | 'never-shown' | 'skipped';

export interface WebrtcFrameRecord {
  readonly sourceIndex: number;
  readonly fileFrame: number;
  readonly captureMs: number;
  readonly fate: WebrtcFate;
  readonly bytes?: number;
  readonly keyFrame?: boolean;
  readonly shownMs?: number;
  readonly displayMs?: number;
  readonly signalDelayMs: number;
  readonly shownWidth?: number;
  readonly shownHeight?: number;
  readonly ssim?: number;
}

export interface Distribution {
  readonly mean: number;
  readonly p5: number;
  readonly p95: number;
}

export interface WebrtcSummary {
  readonly signalDelayMs: Distribution;
  readonly ssimDb: Distribution;
  readonly framesCaptured: number;
  readonly framesShown: number;
  readonly framesNeverShown: number;
  readonly framesSkipped: number;
  /** Frames with no display time by the end: their delay is a lower bound. */
  readonly framesNotCaughtUp: number;
  /** Source frames between the first and last counted without a capture time (the camera or page missed them). */
  readonly framesWithoutCapture: number;
  /** Shown frames with a known SSIM. */
  readonly framesWithSsim: number;
  /** Fraction of source frames (with or without a capture time) whose delay is known. */
  readonly delayKnownFraction: number;
  /** RTP bytes the sender sent (payload and headers; getStats). */
  readonly bytesSent: number;
  /** The video link: departed over capacity bytes while the call ran (linkshell's log). */
  readonly linkUtilization: number;
}

export interface WebrtcResult {
  readonly label: string;
  readonly browser: string;
  readonly config: Record<string, unknown>;
  readonly summary: WebrtcSummary;
  readonly frames: WebrtcFrameRecord[];
  readonly stats: StatsSummary;
  readonly link: { video: VideoLinkFigures; linkshellStatus: number | null };
  readonly counters: Record<string, number | undefined>;
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

function distribution(values: readonly number[]): Distribution {
  if (values.length === 0) return { mean: NaN, p5: NaN, p95: NaN };
  const sorted = Float64Array.from(values).sort();
  let sum = 0;
  for (const v of values) sum += v;
  return { mean: sum / values.length, p5: quantile(sorted, 0.05), p95: quantile(sorted, 0.95) };
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

/**
 * The source index of every decoded frame: the one with the frame's barcode
 * (modulo the camera file's length) nearest to where its RTP timestamp (90 kHz,
 * stamped at capture) puts it, counted from a frame that was shown (whose
 * source index the measurement knows). None when no decoded frame was shown.
 */
export function decodedSourceIndices(decoded: QualityResult['frames'], frames: readonly SourceFrame[], fileFrames: number, fps: number): Map<number, number> {
  const byRtp = new Map<number, number>();
  for (const f of frames) if (f.rtp !== undefined) byRtp.set(f.rtp, f.sourceIndex);
  const anchor = decoded.find((d) => byRtp.has(d.rawRtp));
  const out = new Map<number, number>();
  if (anchor === undefined) return out;
  const anchorIndex = byRtp.get(anchor.rawRtp)!;
  decoded.forEach((d, i) => {
    if (d.fileFrame === null) return;
    const estimate = anchorIndex + ((d.rtp - anchor.rtp) * fps) / 90000;
    out.set(d.fileFrame + Math.round((estimate - d.fileFrame) / fileFrames) * fileFrames, i);
  });
  return out;
}

/** The per-frame records of a call: measurement joined with the decoded frames' sizes and SSIM. */
export function frameRecords(frames: readonly SourceFrame[], quality: QualityResult, originMs: number, fileFrames: number, fps: number): WebrtcFrameRecord[] {
  const byRtp = new Map<number, QualityResult['frames'][number]>();
  for (const f of quality.frames) byRtp.set(f.rawRtp, f);
  const bySource = decodedSourceIndices(quality.frames, frames, fileFrames, fps);
  return frames.map((f) => {
    const shown = f.rtp !== undefined ? byRtp.get(f.rtp) : undefined;
    const decodedIndex = bySource.get(f.sourceIndex);
    const arrived = shown ?? (decodedIndex === undefined ? undefined : quality.frames[decodedIndex]);
    // Shown; arrived at the receiver (decoded by us) but never shown; or never arrived.
    const fate: WebrtcFate = f.shownMs !== undefined ? 'shown' : arrived !== undefined ? 'never-shown' : 'skipped';
    const rel = (t: number | undefined) => (t === undefined ? undefined : t - originMs);
    return {
      sourceIndex: f.sourceIndex,
      fileFrame: f.fileFrame,
      captureMs: f.captureMs - originMs,
      fate,
      bytes: arrived?.bytes,
      keyFrame: arrived?.key,
      shownMs: rel(f.shownMs),
      displayMs: rel(f.displayMs),
      signalDelayMs: f.signalDelayMs,
      shownWidth: f.shownWidth,
      shownHeight: f.shownHeight,
      ssim: shown?.ssim,
    };
  });
}

export function summarizeFrames(frames: readonly WebrtcFrameRecord[], framesWithoutCapture: number, bytesSent: number, linkUtilization: number): WebrtcSummary {
  const ssims = frames.filter((f) => f.fate === 'shown' && f.ssim !== undefined).map((f) => f.ssim!);
  const s = distribution(ssims);
  const known = frames.filter((f) => f.displayMs !== undefined).length;
  return {
    signalDelayMs: distribution(frames.map((f) => f.signalDelayMs)),
    ssimDb: { mean: ssimToDb(s.mean), p5: ssimToDb(s.p5), p95: ssimToDb(s.p95) },
    framesCaptured: frames.length,
    framesShown: frames.filter((f) => f.fate === 'shown').length,
    framesNeverShown: frames.filter((f) => f.fate === 'never-shown').length,
    framesSkipped: frames.filter((f) => f.fate === 'skipped').length,
    framesNotCaughtUp: frames.length - known,
    framesWithoutCapture,
    framesWithSsim: ssims.length,
    delayKnownFraction: frames.length + framesWithoutCapture > 0 ? known / (frames.length + framesWithoutCapture) : 0,
    bytesSent,
    linkUtilization,
  };
}

export const FRAME_COLUMNS = ['sourceIndex', 'fileFrame', 'captureMs', 'fate', 'bytes', 'keyFrame', 'shownMs', 'displayMs', 'signalDelayMs', 'shownWidth', 'shownHeight', 'ssim'] as const;

export function framesCsv(frames: readonly WebrtcFrameRecord[]): string {
  const cell = (v: unknown) => (v === undefined ? '' : typeof v === 'number' ? String(Math.round(v * 1e4) / 1e4) : String(v));
  return [FRAME_COLUMNS.join(','), ...frames.map((f) => FRAME_COLUMNS.map((c) => cell(f[c])).join(','))].join('\n') + '\n';
}

/** "Chromium 156" from "Chrome/156.0.8078.114" (or the string as it is). */
export function browserLabel(version: string): string {
  const m = /\/(\d+)\./.exec(version);
  return m ? `Chromium ${m[1]}` : version;
}

export async function analyzeCall(data: CallData, options: CallOptions): Promise<WebrtcResult> {
  const captures = data.sender.map((r) => ({ n: r.n, captureMs: r.captureUs / 1000 }));
  const shown = data.receiver.map((r) => ({ n: r.n, shownMs: data.receiverOriginMs + r.presentationMs, rtp: r.rtp, width: r.width, height: r.height }));
  const measurement = measureFrames(captures, shown, data.clip.frameCount, { fromMs: data.connectedMs, toMs: data.measuredUntilMs, endMs: data.stoppedMs });
  const displayed = new Set<number>();
  for (const r of data.receiver) if (r.rtp !== undefined) displayed.add(r.rtp);
  const clip = await Y4mFile.open(data.clip.path);
  let quality: QualityResult;
  try {
    quality =
      options.codec === 'vp8'
        ? await measureQuality({
            framesFile: data.framesFile,
            ivfPath: join(options.out, 'received.ivf'),
            displayed,
            sourceFrame: (k) => clip.read(k),
            sourceWidth: data.clip.width,
            sourceHeight: data.clip.height,
            hashFileFrames: new Set(data.decodingChecks.flatMap((c) => (c.n === null ? [] : [c.n]))),
          })
        : { frames: [], undecodable: 0, notDecoded: 0 };
  } finally {
    await clip.close();
  }
  rmSync(data.framesFile, { force: true });
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
  const frames = frameRecords(measurement.frames, quality, data.connectedMs, data.clip.frameCount, data.clip.fps);
  const summary = summarizeFrames(frames, measurement.missingCaptures, stats.totals.bytesSent ?? 0, video.utilization);
  const browser = data.browserVersion;
  return {
    label: `webrtc (${browserLabel(browser)})`,
    browser,
    config: {
      video: options.video,
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
      clipFrames: data.clip.frameCount,
    },
    summary,
    frames,
    stats,
    link: { video, linkshellStatus: data.linkshellStatus },
    counters: {
      unreadableCaptures: measurement.unreadableCaptures,
      unreadableShown: measurement.unreadableShown,
      unmatchedShown: measurement.unmatchedShown,
      framesReceived: quality.frames.length + quality.undecodable,
      framesUndecodable: quality.undecodable,
      framesNotDecoded: quality.notDecoded,
      displayCallbacks: data.receiver.length,
      cameraFrames: data.sender.length,
      decodingChecked: data.decodingChecks.length,
      decodingCompared,
      decodingIdentical,
    },
    processes: data.processes,
    tempDir: data.tempDir,
  };
}

/** Runs a call and writes its results into options.out (which must exist). */
export async function runWebrtcBench(options: CallOptions): Promise<WebrtcResult> {
  const data = await runCall(options);
  try {
    const result = await analyzeCall(data, options);
    writeFileSync(join(options.out, 'frames.csv'), framesCsv(result.frames));
    writeFileSync(join(options.out, 'linkshell.txt'), data.linkshellOutput);
    // The pages' raw records, with the clocks that relate them (monotonic ms = page time + origin).
    const origins = { senderOriginMs: data.senderOriginMs, receiverOriginMs: data.receiverOriginMs, connectedMs: data.connectedMs, measuredUntilMs: data.measuredUntilMs, stoppedMs: data.stoppedMs, clipFrames: data.clip.frameCount };
    writeFileSync(join(options.out, 'camera.jsonl'), [JSON.stringify(origins), ...data.sender.map((r) => JSON.stringify(r))].join('\n') + '\n');
    writeFileSync(join(options.out, 'display.jsonl'), [JSON.stringify(origins), ...data.receiver.map((r) => JSON.stringify(r))].join('\n') + '\n');
    const { frames, processes, tempDir, ...rest } = result;
    writeFileSync(join(options.out, 'summary.json'), JSON.stringify(rest, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 2) + '\n');
    return result;
  } finally {
    data.dispose();
  }
}
