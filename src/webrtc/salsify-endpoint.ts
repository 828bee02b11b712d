// `salsify webrtc --endpoint SCHEME`: our live Salsify sender and receiver
// (salsify send, salsify receive, as child processes) in place of the two
// browsers and coturn, over the same linkshell path as a Chromium call
// (linkshell-child.ts: the video on the scenario's downlink trace, the
// feedback on its uplink trace, the same queue, delay, loss and seed), with
// the same prepared clip (clip.ts), so that Salsify and Chromium are compared
// in the same real-time conditions:
//
//   salsify send --UDP--> linkshell (video: .down trace) --> salsify receive
//   salsify send <--UDP-- linkshell (feedback: .up trace) <-- salsify receive
//
// Then the run is analysed as `salsify analyze` does (analyzeLiveRun) and
// written through src/results into `out`: summary.json (with endpoint and
// scheme), frames.csv, the linkshell logs and summary. Everything started
// ends with it, on success, error or abort.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { framesToCsv } from '../results/csv.ts';
import { jsonText, runToJson } from '../results/json.ts';
import { analyzeLiveRun, type LiveAnalysis } from '../salsify/live/analyze.ts';
import type { CodecName } from '../salsify/open-inputs.ts';
import type { Scheme } from '../salsify/sender.ts';
import { Cleanup } from './cleanup.ts';
import { cachedClip, defaultClipCacheDir } from './clip-cache.ts';
import { ownedTempPrefix } from './stale-temp.ts';
import { firstArrivalTraceTime, linkUseFromLog, traceAt } from './records.ts';
import { startLinkshellChild } from './linkshell-child.ts';
import { callLinkshellArgs, readLinkshellSummary } from './linkshell-summary.ts';
import { linkFacts } from './call-validity.ts';
import { sampleCpu, cpuFacts } from '../results/cpu-pressure.ts';
import { judgeRealtimeRun, type Validity } from '../results/validity.ts';
import type { TraceClockStart } from '../linkshell/trace-clock.ts';
import { startNodeChild, waitForOutput, type NodeChild } from './node-child.ts';
import { writeFileAtomically } from '../results/writer.ts';
import { summaryWindow, type CallScenario } from './scenario.ts';
import { summarize } from '../results/summary.ts';

const SALSIFY_BIN = fileURLToPath(new URL('../../bin/salsify.js', import.meta.url));
/** The receiver is stopped (SIGINT, its clean stop) this long after the sender ended. */
const LINGER_S = 3;
/**
 * The receiver's own idle timeout (salsify receive --idle-timeout): longer than
 * the run, so that no outage of the trace ends it (TMobile-UMTS-driving has
 * gaps of several seconds; a 3 s timeout ended the receiver 20 s into a call).
 */
export function receiverIdleTimeoutS(durationS: number, drainMs: number): number {
  return Math.min(3600, Math.ceil(durationS + drainMs / 1000 + 60));
}

export interface SalsifyEndpointOptions {
  readonly scheme: Scheme;
  /** The codec of `salsify send` and `salsify receive` (vp8 by default in the CLI). */
  readonly codec: CodecName;
  /** The clip: a .y4m or .ivf path, or synthetic; prepared as for Chromium (clip.ts). */
  readonly video: string;
  /** Where prepared clips are kept between calls (default defaultClipCacheDir()). */
  readonly clipCacheDir?: string;
  readonly width: number;
  readonly height: number;
  readonly fps: number;
  /** Seconds of video the sender captures. */
  readonly durationS: number;
  /** How long the sender waits for its last frames to be acknowledged (ms). */
  readonly drainMs: number;
  readonly videoTrace: string;
  readonly feedbackTrace: string;
  /** linkshell options beyond the traces, as the Chromium call takes them. */
  readonly linkshellArgs?: readonly string[];
  /** When linkshell starts the traces (default first-packet: Salsify's first datagram is media, so it meets the trace's start). */
  readonly traceClockStart?: TraceClockStart;
  /** The paper's scenario the path comes from (salsify webrtc --preset), the trace second the media starts at (--trace-start) and the window the summary covers; recorded in summary.json. */
  readonly scenario?: CallScenario;
  readonly out: string;
  readonly signal?: AbortSignal;
  readonly log?: (line: string) => void;
}

export interface SalsifyEndpointResult {
  readonly analysis: LiveAnalysis;
  /** Source frames whose delay is known, over all source frames. */
  readonly delayKnownFraction: number;
  readonly linkshellStatus: number | null;
  readonly linkshellOutput: string;
  /** Whether the figures are the run's or the machine's: CPU pressure over the run and linkshell's own verdict (results/validity.ts). */
  readonly validity: Validity;
  /** Process ids of everything started (all ended when this resolves). */
  readonly processes: readonly number[];
  readonly tempDir: string;
}

/** Rejects when `signal` aborts; otherwise waits for `p`. */
function abortable<T>(p: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return p;
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

function lastLine(child: NodeChild): string {
  return child.output().trim().split('\n').filter((l) => !/running the TypeScript sources/.test(l)).pop() ?? '';
}

/** Runs one live Salsify call over linkshell and writes its results into options.out (which must exist). */
export async function runSalsifyEndpoint(options: SalsifyEndpointOptions): Promise<SalsifyEndpointResult> {
  const log = options.log ?? (() => {});
  const cleanup = new Cleanup();
  const processes: number[] = [];
  const tempDir = mkdtempSync(join(tmpdir(), ownedTempPrefix('endpoint')));
  cleanup.add('temporary directory', () => rmSync(tempDir, { recursive: true, force: true }));
  const { signal } = options;
  const cpuStart = sampleCpu();
  const traceClockStart = options.traceClockStart ?? 'first-packet';
  const linkshellJson = join(options.out, 'linkshell.json');
  try {
    // The very clip a Chromium call's camera plays (scaled, looped, stamped), synthetic included, from the same cache.
    const clipOptions = { video: options.video, width: options.width, height: options.height, fps: options.fps };
    const clip = await abortable(cachedClip(options.clipCacheDir ?? defaultClipCacheDir(), clipOptions), signal);
    const video = clip.path;
    log(`clip: ${clip.frameCount} frames at ${clip.width}x${clip.height} ${clip.fps} fps`);
    const receiver = startNodeChild(SALSIFY_BIN, ['receive', '--port', '0', '--out', options.out, '--codec', options.codec, '--idle-timeout', String(receiverIdleTimeoutS(options.durationS, options.drainMs))]);
    if (receiver.pid !== undefined) processes.push(receiver.pid);
    cleanup.add('salsify receive', () => receiver.stop());
    const listen = (await waitForOutput(receiver, /listening on (\S+)/, 'salsify receive', 60_000, signal))[1]!;
    const linkshell = await abortable(
      startLinkshellChild({
        videoTrace: options.videoTrace,
        feedbackTrace: options.feedbackTrace,
        connect: listen,
        videoLog: join(options.out, 'video-link.log'),
        feedbackLog: join(options.out, 'feedback-link.log'),
        extraArgs: [...(options.linkshellArgs ?? []), ...callLinkshellArgs(traceClockStart, linkshellJson)],
        timeoutMs: 60_000,
      }),
      signal,
    );
    if (linkshell.pid !== undefined) processes.push(linkshell.pid);
    cleanup.add('linkshell', () => linkshell.stop());
    log(`salsify receive on ${listen}, linkshell on ${linkshell.listen}`);
    const sender = startNodeChild(SALSIFY_BIN, [
      'send', '--to', linkshell.listen, '--video', video, '--fps', String(options.fps), '--scheme', options.scheme, '--codec', options.codec,
      '--duration', String(options.durationS), '--drain', `${options.drainMs}ms`, '--out', options.out,
    ]);
    if (sender.pid !== undefined) processes.push(sender.pid);
    cleanup.add('salsify send', () => sender.stop());
    log(`salsify send (${options.scheme}, ${options.codec}) for ${options.durationS} s`);
    const sendStatus = await abortable(sender.exited, signal);
    if (sendStatus !== 0) throw new Error(`salsify send failed (status ${sendStatus}): ${lastLine(sender)}`);
    // The sender's drain waited for its last acknowledgements: the receiver has what it will get.
    const receiveBound = setTimeout(() => void receiver.stop(), LINGER_S * 1000);
    const receiveStatus = await abortable(receiver.exited, signal).finally(() => clearTimeout(receiveBound));
    if (receiveStatus !== 0) throw new Error(`salsify receive failed (status ${receiveStatus}): ${lastLine(receiver)}`);
    const linkshellStatus = await linkshell.stop();
    const cpuEnd = sampleCpu();
    const linkshellOutput = linkshell.output();
    const validity = judgeRealtimeRun({ ...cpuFacts(cpuStart, cpuEnd), ...linkFacts(readLinkshellSummary(linkshellJson)) });
    writeFileAtomically(join(options.out, 'linkshell.txt'), linkshellOutput);
    const analysis = windowed(await analyzeLiveRun(options.out, { linkLog: join(options.out, 'video-link.log') }), options.scenario, join(options.out, 'video-link.log'));
    const known = analysis.frames.filter((f) => f.displayMs !== undefined).length;
    const delayKnownFraction = analysis.frames.length > 0 ? known / analysis.frames.length : 0;
    writeFileAtomically(join(options.out, 'frames.csv'), framesToCsv(analysis.frames));
    const extra = {
      endpoint: `salsify (${options.scheme})`,
      scheme: options.scheme,
      codec: options.codec,
      videoTrace: options.videoTrace,
      feedbackTrace: options.feedbackTrace,
      linkshellArgs: options.linkshellArgs ?? [],
      preset: options.scenario?.preset ?? null,
      traceStartS: options.scenario?.traceStartS ?? 0,
      traceClockStart,
      // The trace second at which the first video datagram (media: Salsify sends nothing else first) reached the link.
      firstMediaAtTraceS: traceAt(firstArrivalTraceTime(join(options.out, 'video-link.log')), options.scenario?.traceStartS ?? 0),
      delayKnownFraction,
      ssimFrom: analysis.ssimFrom,
      captureLatenessMs: analysis.captureLatenessMs,
      notes: analysis.notes,
      linkshellStatus,
      validity,
    };
    writeFileAtomically(join(options.out, 'summary.json'), jsonText(runToJson(analysis, analysis.summary, { extra })));
    return { analysis, delayKnownFraction, linkshellStatus, linkshellOutput, validity, processes, tempDir };
  } finally {
    await cleanup.run();
  }
}

/**
 * The analysis over the scenario's window (--measure-from, --measure-for: seconds after the media's
 * first datagram, which leaves the sender when it sends its first frame and crosses loopback to
 * linkshell at once), or as it is without one. Over a window, the bytes sent are the sizes of the
 * frames sent in it (datagram headers not included; a note says so).
 */
function windowed(analysis: LiveAnalysis, scenario: CallScenario | undefined, linkLog: string): LiveAnalysis {
  const firstSendMs = analysis.frames.reduce((first, f) => (f.sendMs !== undefined && f.sendMs < first ? f.sendMs : first), Infinity);
  const window = summaryWindow(scenario, Number.isFinite(firstSendMs) ? firstSendMs : 0, analysis.endMs);
  if (window === undefined) return analysis;
  const startMs = (analysis.config as { startMs: number }).startMs;
  const bytesSent = analysis.frames.reduce((sum, f) => (f.sendMs !== undefined && f.sendMs >= window.fromMs && f.sendMs < window.toMs ? sum + (f.bytes ?? 0) : sum), 0);
  const run = { ...analysis, window, bytesSent, link: linkUseFromLog(linkLog, startMs, window.fromMs, window.toMs) };
  const notes = [...analysis.notes, `bytes sent over the window [${window.fromMs}, ${window.toMs}) ms: the sizes of the frames sent in it, without datagram headers`];
  return { ...run, summary: summarize(run), notes };
}

