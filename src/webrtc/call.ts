// One WebRTC call between two headless browsers (Chromium, or Firefox with
// --browser firefox: the same call, the differences are in browser.ts and
// pages.ts), as the paper's bench measured one: coturn on 127.0.0.1 relays
// every packet (both peers use only relayed candidates), and the sender
// reaches coturn through linkshell, so the video crosses the scenario's
// emulated link:
//
//   sender browser --TURN--> linkshell (video: .down trace) --> coturn --> receiver browser
//   sender browser <--TURN-- linkshell (feedback: .up trace) <-- coturn <-- receiver browser
//
// That is the default path, turn-udp; with --path turn-tcp or p2p the sending
// browser runs inside linkshell --netns instead (paths.ts, netns-sender.ts;
// Chromium only: puppeteer reaches Firefox over a WebSocket on 127.0.0.1,
// which the namespace's own loopback would hide).
//
// The call gathers what the pages post (pages.ts) into a CallData: camera
// frames with their capture times, displayed frames with their presentation
// times, every encoded frame the receiver got (in a file), getStats
// snapshots (in JSONL files). Everything started is ended on success, error
// or abort, and every temporary file except `out` is removed.
import { createWriteStream, mkdtempSync, rmSync, type WriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { abortableDelay, Cleanup } from './cleanup.ts';
import { sampleCpu, type CpuSample } from '../results/cpu-pressure.ts';
import type { PreparedClip } from './clip.ts';
import { cachedClip, defaultClipCacheDir } from './clip-cache.ts';
import { ownedTempPrefix, removeStaleTempDirs } from './stale-temp.ts';
import { browserName, launchBrowser, type BenchBrowser, type BrowserKind } from './browser.ts';
import { Y4mFile } from '../codec-bridge/video/y4m-file.ts';
import { counterDelta, type KernelCounters } from './netns-sender.ts';
import { pathUsesNetns, startCallPath, type CallPath } from './paths.ts';
import { startPageServer, type PostKind, type Role } from './page-server.ts';
import type { Prerequisites } from './prerequisites.ts';
import { callLinkshellArgs, readLinkshellSummary, type LinkshellSummary } from './linkshell-summary.ts';
import type { TraceClockStart } from '../linkshell/trace-clock.ts';
import type { CallScenario } from './scenario.ts';

export type WebrtcCodec = 'vp8' | 'vp9' | 'av1';

export interface CallOptions {
  /** The programs, the browser of both ends among them (programs.browser). */
  readonly programs: Prerequisites;
  /** Video source of the clip: a .y4m or .ivf path, or "synthetic". */
  readonly video: string;
  /** Where prepared camera clips are kept between calls (default defaultClipCacheDir()). */
  readonly clipCacheDir?: string;
  readonly width: number;
  readonly height: number;
  readonly fps: number;
  readonly codec: WebrtcCodec;
  /** A scalability mode such as L1T3 or L2T3 (VP9, AV1), or undefined. */
  readonly scalabilityMode?: string;
  /** Seconds the call lasts once connected. */
  readonly durationS: number;
  /** Trace files of the video and the feedback direction. */
  readonly videoTrace: string;
  readonly feedbackTrace: string;
  /** How the media goes between the browsers (paths.ts; default turn-udp). */
  readonly path?: CallPath;
  /** linkshell options for both directions beyond the traces (queue, delay, loss, seed). */
  readonly linkshellArgs?: readonly string[];
  /** When linkshell starts the traces (default first-rtp: the media's first packet meets the trace's start; see linkshell-summary.ts). */
  readonly traceClockStart?: TraceClockStart;
  /** The paper's scenario the path comes from (salsify webrtc --preset), the trace second the media starts at (--trace-start) and the window the summary covers; recorded in summary.json. */
  readonly scenario?: CallScenario;
  /** Where the call's files go: the link logs, the getStats JSONL files, received.frames. */
  readonly out: string;
  /** Milliseconds the call goes on after the last source frame counted (default 2000), so that late frames are shown. */
  readonly drainMs?: number;
  /** Frames of Chromium's own decoding to hash at the receiver, to check ours against (default 0; Firefox has no MediaStreamTrackProcessor to read them with: none). */
  readonly verifyFrames?: number;
  /** encodings[0].maxBitrate in bit/s (default 50 Mbit/s: above every trace). */
  readonly maxBitrate?: number;
  readonly signal?: AbortSignal;
  /** Progress lines (stderr in the CLI). */
  readonly log?: (line: string) => void;
}

export interface SenderRecord {
  /** The barcode read from the camera frame (null if unreadable). */
  readonly n: number | null;
  /** The machine's monotonic clock in µs: Chromium's VideoFrame.timestamp; Firefox's page time of the frame's hand-over plus the page's origin. */
  readonly captureUs: number;
}

export interface ReceiverRecord {
  readonly n: number | null;
  /** requestVideoFrameCallback's presentationTime, on the receiver page's performance timeline (ms). */
  readonly presentationMs: number;
  readonly expectedDisplayMs?: number;
  readonly presented?: number;
  readonly rtp?: number;
  readonly width: number;
  readonly height: number;
}

/** Chromium's own decoding of a received frame: its barcode and luma hash (luma-hash.ts). */
export interface DecodingCheck {
  readonly n: number | null;
  readonly hash: number;
  readonly width: number;
  readonly height: number;
  readonly format?: string;
}

/** A frame the sender's encoder produced (one per spatial layer with SVC). */
export interface SentRecord {
  readonly rtp: number;
  /** The sender page's performance timeline, ms. */
  readonly t: number;
  readonly bytes: number;
  readonly key: boolean;
}

export interface StatsSnapshot {
  /** performance.now() of the page. */
  readonly t: number;
  readonly report: Record<string, unknown>[];
}

export interface CallData {
  readonly clip: PreparedClip;
  readonly browser: BrowserKind;
  readonly browserVersion: string;
  readonly codec: string;
  /** Each page's time origin on the machine's monotonic clock (ms): page time + origin = monotonic time. */
  readonly senderOriginMs: number;
  readonly receiverOriginMs: number;
  /** How the origins were found (pageOrigin), and how far each page's origin had moved by the end of the call (Firefox; 0 for a steady clock). */
  readonly pageClocks: { readonly method: PageOrigin['method']; readonly uncertaintyMs: number; readonly senderDriftMs: number | null; readonly receiverDriftMs: number | null };
  /** Monotonic ms when the call was connected, when the last source frame counted was captured, and when it was stopped. */
  readonly connectedMs: number;
  readonly measuredUntilMs: number;
  readonly stoppedMs: number;
  readonly sender: SenderRecord[];
  readonly receiver: ReceiverRecord[];
  readonly senderStats: StatsSnapshot[];
  readonly receiverStats: StatsSnapshot[];
  readonly decodingChecks: DecodingCheck[];
  readonly sent: SentRecord[];
  /** Epoch ms (Date.now()) minus monotonic ms, taken when connected: places linkshell's logs (epoch) on the call's clock. */
  readonly epochMinusMonotonicMs: number;
  /** The encoded frames the receiver got, as posted (pages.ts's binary layout). */
  readonly framesFile: string;
  readonly videoLog: string;
  readonly feedbackLog: string;
  /** linkshell's summary (stderr). */
  readonly linkshellOutput: string;
  /** linkshell's --summary-json document (undefined: it wrote none, having not ended cleanly). */
  readonly linkshellSummary: LinkshellSummary | undefined;
  readonly traceClockStart: TraceClockStart;
  readonly linkshellStatus: number | null;
  /** The machine's CPU contention before the browsers started and when the call stopped (validity). */
  readonly cpuStart: CpuSample;
  readonly cpuEnd: CpuSample;
  readonly path: CallPath;
  /** How UDP was kept off the link (turn-tcp). */
  readonly udpBlockedBy?: string;
  /** The sender's namespace's kernel counters when connected and when stopped, and their difference (netns paths). */
  readonly kernelCounters?: {
    readonly namespace: string;
    readonly before: KernelCounters;
    readonly after: KernelCounters;
    /** After minus before: the call from connected to stopped. */
    readonly delta: KernelCounters;
    /** After minus the counters before either browser started: the whole run, ICE included. */
    readonly wholeRun: KernelCounters;
  };
  /** Every process the call started (all ended by now), and its temporary directory. */
  readonly processes: { readonly name: string; readonly pid: number | undefined }[];
  readonly tempDir: string;
  /** The temporary directory (clip), removed by `dispose`. */
  dispose(): void;
}

/** The machine's monotonic clock in ms (CLOCK_MONOTONIC: Chromium's TimeTicks on Linux). */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

export interface PageOrigin {
  /** The page's time origin on the machine's monotonic clock (ms). */
  readonly originMs: number;
  /** At most this far from the truth (ms): 0 for Chromium's own figure; half the tightest round trip for Firefox's. */
  readonly uncertaintyMs: number;
  readonly method: 'NavigationStart' | 'round trip';
}

/** Chromium's navigation start, which it reports on the monotonic clock (its TimeTicks). */
async function chromiumPageOrigin(page: Page): Promise<PageOrigin> {
  const cdp = await page.createCDPSession();
  await cdp.send('Performance.enable');
  const { metrics } = await cdp.send('Performance.getMetrics');
  await cdp.detach();
  const start = metrics.find((m) => m.name === 'NavigationStart');
  if (!start) throw new Error('Chromium reported no NavigationStart metric');
  return { originMs: start.value * 1000, uncertaintyMs: 0, method: 'NavigationStart' };
}

/**
 * Firefox reports no origin on the monotonic clock (WebDriver BiDi has no
 * Performance domain): the page's performance.now() is read between two
 * monotonic readings, ten times, and the tightest round trip gives the
 * origin, within half that round trip.
 */
async function roundTripPageOrigin(page: Page): Promise<PageOrigin> {
  let best = { originMs: Number.NaN, roundTripMs: Number.POSITIVE_INFINITY };
  for (let i = 0; i < 10; i++) {
    const before = monotonicMs();
    const pageNow = await page.evaluate(() => performance.now());
    const after = monotonicMs();
    if (after - before < best.roundTripMs) best = { originMs: (before + after) / 2 - pageNow, roundTripMs: after - before };
  }
  return { originMs: best.originMs, uncertaintyMs: best.roundTripMs / 2, method: 'round trip' };
}

function pageOrigin(kind: BrowserKind, page: Page): Promise<PageOrigin> {
  return kind === 'firefox' ? roundTripPageOrigin(page) : chromiumPageOrigin(page);
}

function parseBatch<T>(body: Buffer, role: Role, kind: PostKind): T[] {
  const value = JSON.parse(body.toString('utf8'));
  if (!Array.isArray(value)) throw new Error(`${role} ${kind}: expected a JSON array`);
  return value as T[];
}

/** Waits for every one of `starts` to settle (so none is left running unseen), then gives their values or throws the first failure. */
async function allStarted<T>(starts: readonly Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(starts);
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<T>).value);
}

export async function runCall(options: CallOptions): Promise<CallData> {
  const log = options.log ?? (() => {});
  const browserKind = options.programs.browser;
  const name = browserName(browserKind);
  const path = options.path ?? 'turn-udp';
  if (browserKind === 'firefox' && pathUsesNetns(path)) throw new Error(`--path ${path} runs the sending browser inside a network namespace, which Firefox cannot be driven in (puppeteer reaches it over a WebSocket on 127.0.0.1, the namespace's own); Firefox takes --path turn-udp`);
  const cpuStart = sampleCpu();
  const cleanup = new Cleanup();
  const temp = mkdtempSync(join(tmpdir(), ownedTempPrefix('webrtc')));
  let disposeTemp = true;
  cleanup.add('temporary directory', () => {
    if (disposeTemp) rmSync(temp, { recursive: true, force: true });
  });
  const sender: SenderRecord[] = [];
  const receiver: ReceiverRecord[] = [];
  const senderStats: StatsSnapshot[] = [];
  const receiverStats: StatsSnapshot[] = [];
  const decodingChecks: DecodingCheck[] = [];
  const sentFrames: SentRecord[] = [];
  const framesFile = join(options.out, 'received.frames');
  const videoLog = join(options.out, 'video-link.log');
  const feedbackLog = join(options.out, 'feedback-link.log');
  const linkshellJson = join(options.out, 'linkshell.json');
  const traceClockStart = options.traceClockStart ?? 'first-rtp';
  const statsFiles: Record<Role, WriteStream> = {
    sender: createWriteStream(join(options.out, 'sender-stats.jsonl')),
    receiver: createWriteStream(join(options.out, 'receiver-stats.jsonl')),
  };
  const frames = createWriteStream(framesFile);
  const ended = (s: WriteStream) => new Promise<void>((resolve, reject) => s.end((error?: Error | null) => (error ? reject(error) : resolve())));
  cleanup.add('output files', async () => {
    await Promise.all([ended(statsFiles.sender), ended(statsFiles.receiver), ended(frames)]);
  });
  const processes: { name: string; pid: number | undefined }[] = [];
  const started = (name: string, pid: number | undefined) => {
    processes.push({ name, pid });
    log(`started ${name} (pid ${pid ?? '?'})`);
  };
  const checkAbort = () => {
    if (options.signal?.aborted) throw options.signal.reason;
  };
  try {
    log(`temporary directory ${temp}`);
    for (const name of removeStaleTempDirs()) log(`removed ${join(tmpdir(), name)}, left by a call that no longer runs`);
    const clipCache = options.clipCacheDir ?? defaultClipCacheDir();
    log(`the clip (${options.video} at ${options.width}x${options.height}, ${options.fps} fps), cached in ${clipCache}`);
    const clip = await cachedClip(clipCache, { video: options.video, width: options.width, height: options.height, fps: options.fps });
    log(clip.reused ? `clip reused: ${clip.path}` : `clip prepared: ${clip.path}`);
    checkAbort();
    // Firefox's sender page is its own camera: the page server serves it the clip's frames.
    let camera: { frameCount: number; frame(k: number): Promise<Uint8Array> } | undefined;
    if (browserKind === 'firefox') {
      const file = await Y4mFile.open(clip.path);
      cleanup.add('the camera clip', () => file.close());
      camera = { frameCount: file.frameCount, frame: async (k) => (await file.read(k)).data };
    }

    const server = await startPageServer((role, kind, body) => {
      if (kind === 'frames') {
        if (role !== 'receiver') throw new Error('only the receiver posts frames');
        frames.write(body);
      } else if (kind === 'sent') {
        if (role !== 'sender') throw new Error('only the sender posts sent frames');
        sentFrames.push(...parseBatch<SentRecord>(body, role, kind));
      } else if (kind === 'checks') {
        decodingChecks.push(...parseBatch<DecodingCheck>(body, role, kind));
      } else if (kind === 'records') {
        for (const record of parseBatch<SenderRecord & ReceiverRecord>(body, role, kind)) (role === 'sender' ? sender : receiver).push(record);
      } else {
        const batch = parseBatch<StatsSnapshot>(body, role, kind);
        for (const snapshot of batch) {
          (role === 'sender' ? senderStats : receiverStats).push(snapshot);
          statsFiles[role].write(JSON.stringify(snapshot) + '\n');
        }
      }
    }, camera);
    cleanup.add('page server', () => server.close());
    checkAbort();

    const route = await startCallPath({
      path,
      videoTrace: options.videoTrace,
      feedbackTrace: options.feedbackTrace,
      videoLog,
      feedbackLog,
      linkshellArgs: [...(options.linkshellArgs ?? []), ...callLinkshellArgs(traceClockStart, linkshellJson)],
      turnserver: options.programs.turnserver,
      browserPath: options.programs.browserPath,
      dir: temp,
      pagePort: Number(new URL(server.origin).port),
      started,
      log,
    });
    cleanup.add('the path (linkshell, coturn)', () => route.stop());
    let linkshellStatus: number | null = null;
    const stopLink = async () => {
      linkshellStatus = await route.stopLink();
    };
    checkAbort();

    // The two browsers start side by side (each start is mostly waiting); each is cleaned up once started, whatever the other does.
    const launch = async (role: 'receiver' | 'sender') => {
      const executable = role === 'sender' ? route.senderExecutable : options.programs.browserPath;
      const browser = await launchBrowser({ kind: browserKind, executable, cameraFile: clip.path, role });
      cleanup.add(`${name} (${role})`, () => browser.close());
      started(`${name} (${role}, profile ${browser.profileDir})`, browser.pid);
      return browser;
    };
    const browsers = await allStarted([launch('receiver'), launch('sender')]);
    checkAbort();
    const [receiverBrowser, senderBrowser] = browsers as [BenchBrowser, BenchBrowser];
    const pageOf = async (b: BenchBrowser, path: string) => {
      const page = (await b.browser.pages())[0] ?? (await b.browser.newPage());
      page.on('console', (message) => {
        if (message.type() === 'error') log(`${b.role} page: ${message.text()}`);
      });
      page.on('pageerror', (error) => log(`${b.role} page error: ${String(error)}`));
      await page.goto(`${server.origin}${path}`);
      return page;
    };
    const [receiverPage, senderPage] = await allStarted([pageOf(receiverBrowser, '/receiver.html'), pageOf(senderBrowser, '/sender.html')]);
    const receiverOrigin = await pageOrigin(browserKind, receiverPage);
    const senderOrigin = await pageOrigin(browserKind, senderPage);
    const receiverOriginMs = receiverOrigin.originMs;
    const senderOriginMs = senderOrigin.originMs;
    checkAbort();

    const config = {
      browser: browserKind,
      clipFrames: clip.frameCount,
      width: options.width,
      height: options.height,
      fps: options.fps,
      codec: options.codec,
      scalabilityMode: options.scalabilityMode ?? null,
      maxBitrate: options.maxBitrate ?? 50_000_000,
      verifyFrames: browserKind === 'firefox' ? 0 : options.verifyFrames ?? 0,
      timeoutMs: 30_000,
    };
    const senderConfig = { ...config, ...route.sender };
    const receiverConfig = { ...config, ...route.receiver };
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    type Bench = any;
    const offer = await senderPage.evaluate((c) => (window as Bench).bench.offer(c), senderConfig);
    const answer = await receiverPage.evaluate((c, o) => (window as Bench).bench.answer(c, o), receiverConfig, offer);
    const [{ codec }] = await Promise.all([
      senderPage.evaluate((a, t) => (window as Bench).bench.accept(a, t), answer, 30_000),
      receiverPage.evaluate((t) => (window as Bench).bench.connected(t), 30_000),
    ]);
    const connectedMs = monotonicMs();
    const countersBefore = route.counters?.();
    const epochMinusMonotonicMs = Date.now() - monotonicMs();
    log(`connected through ${route.path === 'p2p' ? 'direct UDP' : 'coturn'} and linkshell${route.namespace ? ` --netns (${route.path}, ${route.namespace})` : ''} (${codec}); the call lasts ${options.durationS} s`);
    await abortableDelay(options.durationS * 1000, options.signal);
    // Source frames are counted until now; the call goes on for the drain, so that later shows count for them.
    const measuredUntilMs = monotonicMs();
    await abortableDelay(options.drainMs ?? 2000, options.signal);
    const stoppedMs = monotonicMs();
    const countersAfter = route.counters?.();
    const cpuEnd = sampleCpu();
    // Firefox's origins again: a page clock that ran at another rate than the monotonic clock shows here.
    const drift = async (page: Page, start: PageOrigin) => (browserKind === 'firefox' ? (await pageOrigin(browserKind, page)).originMs - start.originMs : null);
    const senderDriftMs = await drift(senderPage, senderOrigin);
    const receiverDriftMs = await drift(receiverPage, receiverOrigin);
    await Promise.all([senderPage.evaluate(() => (window as Bench).bench.stop()), receiverPage.evaluate(() => (window as Bench).bench.stop())]);
    if (server.errors.length > 0) throw new Error(`the pages posted data the bench could not take: ${server.errors[0]}`);
    if (server.notFound.length > 0) log(`the pages asked the page server for what it does not serve: ${server.notFound.join(', ')}`);
    await Promise.all(browsers.map((b) => b.close()));
    await stopLink();
    disposeTemp = false;
    await cleanup.run();
    return {
      clip,
      browser: browserKind,
      browserVersion: senderBrowser.version,
      codec,
      senderOriginMs,
      receiverOriginMs,
      pageClocks: { method: senderOrigin.method, uncertaintyMs: Math.max(senderOrigin.uncertaintyMs, receiverOrigin.uncertaintyMs), senderDriftMs, receiverDriftMs },
      connectedMs,
      measuredUntilMs,
      stoppedMs,
      // Firefox's camera times are on the sender page's timeline: placed on the monotonic clock here.
      sender: browserKind === 'firefox' ? sender.map((r) => ({ ...r, captureUs: r.captureUs + senderOriginMs * 1000 })) : sender,
      receiver,
      senderStats,
      receiverStats,
      decodingChecks,
      sent: sentFrames,
      epochMinusMonotonicMs,
      framesFile,
      videoLog,
      feedbackLog,
      linkshellOutput: route.linkshellOutput(),
      linkshellSummary: readLinkshellSummary(linkshellJson),
      traceClockStart,
      linkshellStatus,
      cpuStart,
      cpuEnd,
      path: route.path,
      udpBlockedBy: route.udpBlockedBy,
      kernelCounters: countersBefore && countersAfter ? { namespace: route.namespace!, before: countersBefore, after: countersAfter, delta: counterDelta(countersBefore, countersAfter), wholeRun: counterDelta(route.countersAtStart ?? countersBefore, countersAfter) } : undefined,
      processes,
      tempDir: temp,
      dispose: () => rmSync(temp, { recursive: true, force: true }),
    };
  } finally {
    await cleanup.run();
  }
}
