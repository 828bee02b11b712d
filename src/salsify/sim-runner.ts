// Runs one Salsify experiment in the deterministic simulator: builds the
// simulator, the emulated path (video on the downlink: sender = outside,
// receiver = inside), the video source, the codec, the sender and the
// receiver from a plain, JSON-serialisable config, and returns the per-frame
// records and the summary. The same config and seed give identical results.
import type { FunctionalCodec } from '../codec-bridge/types.ts';
import type { VideoSource } from '../codec-bridge/video/video-source.ts';
import type { ChainCounters, StageSpec } from '../link-emu/chain.ts';
import type { OnOffProcess } from '../link-emu/impairments.ts';
import { pathStages, type PathDirectionName } from '../link-emu/path.ts';
import { openTrace } from '../link-emu/trace-files.ts';
import { constantRateTrace } from '../link-emu/trace-generators.ts';
import type { Trace } from '../link-emu/trace.ts';
import { createSimNetwork } from '../net/sim-network.ts';
import { Simulator } from '../net/simulator.ts';
import type { RunRecord } from '../results/frame-record.ts';
import { LinkUseMeter } from '../results/link-use.ts';
import { summarize, type Summary } from '../results/summary.ts';
import { checkRun } from '../results/validate.ts';
import { nextRefreshMs } from '../results/display-times.ts';
import { FrameArrivals } from './frame-arrivals.ts';
import { salsifyFrameRecords, senderView } from './metrics.ts';
import type { ModelCodec } from './model-codec.ts';
import { openCodec, openVideo } from './open-inputs.ts';
import { SalsifyReceiver, type ReceiverCounters } from './receiver.ts';
import { FRAME_CLOCKS, SalsifySender, type FrameClock, type Scheme, type SenderCounters, type SenderEvent } from './sender.ts';
import { SIM_SCHEME_NAMES, type SimulatorOnlyScheme } from './schemes/registry.ts';
import type { SenderScheme } from './schemes/scheme.ts';
import { ssimAsync } from '../codec-bridge/ssim.ts';
import { DEFAULT_OVERHEAD_BYTES } from '../net/sim-network.ts';
import { measureWindow, type MeasureWindow } from '../results/window.ts';
import { FRAGMENT_OVERHEAD_BYTES, MAX_DATAGRAM_BYTES, MAX_FRAGMENT_PAYLOAD } from './datagram.ts';
import { expandPreset, PRESET_NAMES, type PresetConfig } from './presets.ts';
import { oracle, oracleRuleOf, type FutureLink } from './schemes/oracle.ts';
import { pacingGapUs } from './pacer.ts';
import { OtherTrafficSender, otherTrafficProblem, type OtherTraffic } from './other-traffic.ts';
import { ENCODE_TIMINGS, encodeTimeFunction, referenceFrameCycleMs, singleBufferFrameCycleMs, type EncodeTimingModel } from './timing-model.ts';

/** A link's delivery trace: a trace file name or path, or a constant rate. */
export type LinkTraceConfig = string | { readonly constantMbps: number };

export interface SalsifySimConfig {
  /** A registered scheme, or a simulator-only one (the oracles). */
  readonly scheme: Scheme | SimulatorOnlyScheme;
  readonly seed: number | string;
  /** Seconds of video captured (less when the measured window ends sooner: the capture then ends a drain after the window, simCaptureEnd). */
  readonly durationS: number;
  /** Extra simulated time after the last capture, so frames in flight can arrive (ms). */
  readonly drainMs: number;
  readonly downlink: LinkTraceConfig;
  readonly uplink: LinkTraceConfig;
  /** mm-link queue of both links, and its arguments. */
  readonly queue: string;
  readonly queueArgs: string;
  /** One-way propagation delay of each direction (ms), as mm-delay. */
  readonly delayMs: number;
  readonly downlinkLoss: number;
  readonly uplinkLoss: number;
  /** An intermittent downlink (mm-onoff): packets arriving while off are lost. */
  readonly downlinkOnOff?: { readonly meanOnMs: number; readonly meanOffMs: number } | null;
  /** Indices (0-based, in sending order) of downlink datagrams to drop before the link: for targeted loss experiments. */
  readonly dropDownlinkDatagrams?: readonly number[];
  /** "synthetic", "synthetic:WxH[@FPS]", or a .y4m / .ivf path. */
  readonly video: string;
  /** Frames per second of the video, overriding its own rate (null: the rate of the clip or synthetic spec; see openVideo). */
  readonly fps?: number | null;
  readonly codec: 'model' | 'vp8';
  readonly budgetMs: number;
  readonly grace: boolean;
  /** Which camera frame an encode takes (sender.ts; default 'next-frame'; with encodeTiming 'paper', 'single-buffer', the paper's camera: PAPER_PIPELINE). */
  readonly frameClock?: FrameClock;
  readonly connectionId: number;
  /** The paper's scenario this config was expanded from (presets.ts), if any. */
  readonly preset?: string;
  /** Bytes per delivery opportunity of both links (default 1504, Mahimahi's; the paper's Cellsim: 1514). */
  readonly mtu?: number;
  /** Bytes each datagram occupies on a link beyond its payload (default 32, Mahimahi's; Cellsim's Ethernet frames: 42). */
  readonly overheadBytes?: number;
  /** Where downlink loss happens: 'entry' (mm-loss, before the link; default) or 'delivery' (after it: the datagram used its opportunity). */
  readonly downlinkLossAt?: 'entry' | 'delivery';
  /** The summary covers the source frames captured in [measureFromS, measureFromS + measureForS) s (default: all of them). */
  readonly measureFromS?: number;
  readonly measureForS?: number;
  /** How encode time is modelled: 'libvpx' (measured, the default) or 'paper' (timing-model.ts). */
  readonly encodeTiming?: EncodeTimingModel;
  /** A frame is shown on the display's next refresh after its decode (Hz; the paper's bench: 59.94, set by encodeTiming 'paper': PAPER_PIPELINE); unset: when decoded. */
  readonly displayRefreshHz?: number;
  /** false: the receiver abandons incomplete frames instead of concealing them as alfalfa's did (receiver.ts); unset: it conceals. */
  readonly conceal?: boolean;
  /** Other traffic on the downlink beside the sender's (the paper's bench had some: presets.ts); unset or null: none. */
  readonly downlinkOtherTraffic?: OtherTraffic | null;
}

// A preset (presets.ts) sets fields of this config, and only valid ones.
const PRESET_FIELDS_ARE_CONFIG: (p: PresetConfig) => Partial<SalsifySimConfig> = (p) => p;
void PRESET_FIELDS_ARE_CONFIG;

/** What runSalsifySim accepts: any fields, the links required unless a preset gives them. */
export type SalsifySimInput = Partial<SalsifySimConfig> & ({ readonly preset: string } | Pick<SalsifySimConfig, 'downlink' | 'uplink'>);

export const DEFAULT_SIM_CONFIG: Omit<SalsifySimConfig, 'downlink' | 'uplink'> = {
  scheme: 'salsify-1',
  seed: 1,
  durationS: 10,
  drainMs: 2000,
  queue: 'droptail',
  queueArgs: 'packets=256',
  delayMs: 0,
  downlinkLoss: 0,
  uplinkLoss: 0,
  downlinkOnOff: null,
  video: 'synthetic',
  fps: null,
  codec: 'model',
  budgetMs: 100,
  grace: true,
  connectionId: 0x5a15f1f1,
};

export interface SalsifySimCounters {
  readonly sender: SenderCounters & { readonly maxStatesKept: number };
  readonly receiver: ReceiverCounters;
  readonly downlink: ChainCounters;
  readonly uplink: ChainCounters;
}

/** The run's record in the one results schema (src/results), its summary, and every sender event. */
export interface SalsifySimResult extends RunRecord<SalsifySimConfig, SalsifySimCounters> {
  readonly summary: Summary;
  /** Every sender event, in order (captures, frames sent, skips, losses, recoveries). */
  readonly senderEvents: readonly SenderEvent[];
  /** When the downlink was off ([from, to) ms), for an on-off downlink; empty otherwise. */
  readonly downlinkOffMs: readonly (readonly [number, number])[];
}

export interface RunHooks {
  /** The codec to use instead of building one from config.codec (e.g. an already-open VP8 codec). */
  readonly codec?: FunctionalCodec;
  /** The video source to use instead of opening config.video. */
  readonly source?: VideoSource;
  /** The time of one encoding instead of config.encodeTiming's (a calibration's candidates: bench/salsify-pipeline-calibration.ts). */
  readonly encodeMs?: (width: number, height: number, quantizer: number, keyFrame: boolean) => number;
  /**
   * The sender's scheme instead of the one config.scheme names (an experiment's,
   * built outside the registry: bench/salsify-preroll.ts). The config still
   * names the scheme it stands for; an oracle's name ignores this hook.
   */
  readonly scheme?: SenderScheme;
}

function loadLinkTrace(spec: LinkTraceConfig, which: string): Trace {
  if (typeof spec === 'string') return openTrace(spec);
  if (spec && typeof spec === 'object' && typeof spec.constantMbps === 'number') return constantRateTrace({ rateMbps: spec.constantMbps });
  throw new TypeError(`${which} must be a trace name/path or { constantMbps }, got ${JSON.stringify(spec)}`);
}

function checkConfig(c: SalsifySimConfig): void {
  const fail = (field: string, value: unknown, want: string) => {
    throw new RangeError(`salsify sim config: ${field} must be ${want}, got ${JSON.stringify(value)}`);
  };
  if (!SIM_SCHEME_NAMES.includes(c.scheme)) fail('scheme', c.scheme, SIM_SCHEME_NAMES.join(' | '));
  if (c.frameClock !== undefined && !FRAME_CLOCKS.includes(c.frameClock)) fail('frameClock', c.frameClock, FRAME_CLOCKS.join(' | '));
  if (!(c.durationS > 0 && Number.isFinite(c.durationS))) fail('durationS', c.durationS, 'a number of seconds > 0');
  if (!(c.drainMs >= 0 && Number.isFinite(c.drainMs))) fail('drainMs', c.drainMs, 'a number of ms >= 0');
  if (!(c.delayMs >= 0 && Number.isFinite(c.delayMs))) fail('delayMs', c.delayMs, 'a number of ms >= 0');
  for (const k of ['downlinkLoss', 'uplinkLoss'] as const) if (!(c[k] >= 0 && c[k] <= 1)) fail(k, c[k], 'a probability in [0, 1]');
  if (!(c.budgetMs > 0)) fail('budgetMs', c.budgetMs, 'a number of ms > 0');
  if (c.codec !== 'model' && c.codec !== 'vp8') fail('codec', c.codec, '"model" or "vp8"');
  if (c.fps != null && !(c.fps > 0 && c.fps <= 1000)) fail('fps', c.fps, 'null or a number of frames per second in (0, 1000]');
  if (c.downlinkOnOff && !(c.downlinkOnOff.meanOnMs > 0 && c.downlinkOnOff.meanOffMs > 0)) fail('downlinkOnOff', c.downlinkOnOff, '{ meanOnMs > 0, meanOffMs > 0 }');
  if (c.preset !== undefined && !PRESET_NAMES.includes(c.preset)) fail('preset', c.preset, PRESET_NAMES.join(' | '));
  const largest = MAX_DATAGRAM_BYTES + (c.overheadBytes ?? DEFAULT_OVERHEAD_BYTES);
  if (c.mtu !== undefined && !(Number.isInteger(c.mtu) && c.mtu >= largest && c.mtu <= 65535)) fail('mtu', c.mtu, `an integer from ${largest} (the largest datagram on the link) to 65535`);
  if (c.overheadBytes !== undefined && !(Number.isInteger(c.overheadBytes) && c.overheadBytes >= 0 && c.overheadBytes <= 1024)) fail('overheadBytes', c.overheadBytes, 'an integer from 0 to 1024');
  if (c.downlinkLossAt !== undefined && c.downlinkLossAt !== 'entry' && c.downlinkLossAt !== 'delivery') fail('downlinkLossAt', c.downlinkLossAt, '"entry" or "delivery"');
  if (c.measureFromS !== undefined && !(c.measureFromS >= 0 && c.measureFromS < c.durationS)) fail('measureFromS', c.measureFromS, `a number of seconds from 0 to below durationS (${c.durationS})`);
  if (c.measureForS !== undefined && !(c.measureForS > 0 && Number.isFinite(c.measureForS))) fail('measureForS', c.measureForS, 'a number of seconds > 0');
  if (c.encodeTiming !== undefined && !ENCODE_TIMINGS.includes(c.encodeTiming)) fail('encodeTiming', c.encodeTiming, ENCODE_TIMINGS.join(' | '));
  if (c.displayRefreshHz !== undefined && !(c.displayRefreshHz > 0 && c.displayRefreshHz <= 1000)) fail('displayRefreshHz', c.displayRefreshHz, 'a number of Hz in (0, 1000]');
  if (c.conceal !== undefined && typeof c.conceal !== 'boolean') fail('conceal', c.conceal, 'true or false');
  const otherProblem = c.downlinkOtherTraffic == null ? undefined : otherTrafficProblem(c.downlinkOtherTraffic, c.overheadBytes ?? DEFAULT_OVERHEAD_BYTES, MAX_DATAGRAM_BYTES);
  if (otherProblem !== undefined) fail('downlinkOtherTraffic', c.downlinkOtherTraffic, `null or ${otherProblem}`);
}

/**
 * The paper's measurement pipeline, which --encode-timing paper brings with it
 * (each field only where the config does not set it): the reference's camera
 * of the paper's runs (sender.ts, 'single-buffer': an encode starts on the
 * camera's frame grid and encodes the frame one encode cycle old), and its
 * display (alfalfa src/display/display.cc: glfwSwapInterval(1), a frame is
 * drawn on the next refresh of the 59.94 Hz display the bench captured).
 */
export const PAPER_PIPELINE = { frameClock: 'single-buffer', displayRefreshHz: 59.94 } as const satisfies Partial<SalsifySimConfig>;

/** The config a run uses: the defaults, under the preset's fields (presets.ts), under the paper's pipeline (with paper timing), under the fields given. */
export function resolveSimConfig(input: SalsifySimInput): SalsifySimConfig {
  const expanded = expandPreset(input as Partial<SalsifySimConfig>);
  const pipeline = expanded.encodeTiming === 'paper' ? PAPER_PIPELINE : {};
  const config = { ...DEFAULT_SIM_CONFIG, ...pipeline, ...expanded } as SalsifySimConfig;
  if (config.downlink === undefined || config.uplink === undefined) throw new TypeError('salsify sim config: downlink and uplink are required (or a preset that sets them)');
  checkConfig(config);
  return config;
}

/** The window the summary covers, in ms of the run's clock (null: every frame). */
export function simMeasureWindow(c: SalsifySimConfig, captureEndMs: number): MeasureWindow | null {
  if (c.measureFromS === undefined && c.measureForS === undefined) return null;
  const fromMs = 1000 * (c.measureFromS ?? 0);
  const forMs = c.measureForS === undefined ? Infinity : 1000 * c.measureForS;
  // To the microsecond: frames x (1000 / fps) carries rounding (2000.0000000000002).
  const endMs = Math.round(captureEndMs * 1000) / 1000;
  return measureWindow(fromMs, Math.min(forMs, endMs - fromMs), endMs);
}

export async function runSalsifySim(input: SalsifySimInput, hooks: RunHooks = {}): Promise<SalsifySimResult> {
  const config = resolveSimConfig(input);
  const downTrace = loadLinkTrace(config.downlink, 'downlink');
  const upTrace = loadLinkTrace(config.uplink, 'uplink');
  const codec = hooks.codec ?? (await openCodec(config.codec));
  let source: VideoSource;
  try {
    source = hooks.source ?? (await openVideo(config.video, config.seed, { fps: config.fps ?? undefined }));
  } catch (error) {
    if (!hooks.codec) await codec.close();
    throw error;
  }
  try {
    return await simulate(config, downTrace, upTrace, codec, source, hooks);
  } finally {
    if (!hooks.source) await source.close();
    if (!hooks.codec) await codec.close();
  }
}

/** One direction of the simulated path, built by the one path model (Mahimahi's nesting, see link-emu/path.ts). */
function stages(direction: PathDirectionName, trace: Trace, c: SalsifySimConfig, loss: number, onOff: SalsifySimConfig['downlinkOnOff']): StageSpec[] {
  const lossAt = direction === 'downlink' ? c.downlinkLossAt : undefined;
  return pathStages(direction, { trace, queue: c.queue, queueArgs: c.queueArgs, delayMs: c.delayMs, loss, lossAt, onOff, mtu: c.mtu });
}

/** The stages with `meter` listening to the link's events (the stages themselves are stages()'s). */
function metered(list: readonly StageSpec[], meter: LinkUseMeter): StageSpec[] {
  return list.map((stage) => (stage.kind === 'link' ? { ...stage, events: meter } : stage));
}

/** The stages with each on/off stage's process handed to `observe` (to read its off periods after the run). */
function watchingOnOff(list: readonly StageSpec[], observe: (process: OnOffProcess) => void): StageSpec[] {
  return list.map((stage) => (stage.kind === 'onoff' ? { ...stage, observe } : stage));
}

/**
 * How long a run captures (ms) and how many frames: durationS of video, or,
 * when the measured window ends before that, until the window's end plus the
 * drain (never beyond durationS). Frames captured after the window are not
 * measured; they are captured and sent as in the longer run so that the
 * window's last frames are caught up (shown, or overtaken by a later frame
 * shown) as they would be there: a window's figures are the longer run's
 * whenever its frames are caught up within the drain after its end.
 */
export function simCaptureEnd(c: SalsifySimConfig, fps: number): { frames: number; captureEndMs: number; window: MeasureWindow | null } {
  const intervalMs = 1000 / fps;
  const allFrames = Math.round(c.durationS * fps);
  const window = simMeasureWindow(c, allFrames * intervalMs);
  const wantedMs = window === null ? Infinity : window.toMs + c.drainMs;
  // The frames captured before wantedMs: frame i is captured at i x intervalMs.
  const frames = Math.min(allFrames, Math.ceil(wantedMs / intervalMs - 1e-9));
  return { frames, captureEndMs: frames * intervalMs, window };
}

async function simulate(
  config: SalsifySimConfig, downTrace: Trace, upTrace: Trace, codec: FunctionalCodec, source: VideoSource, hooks: Pick<RunHooks, 'encodeMs' | 'scheme'>,
): Promise<SalsifySimResult> {
  const { frames, captureEndMs: durationMs, window } = simCaptureEnd(config, source.fps);
  // Link utilisation while the measured frames are captured, counted from the downlink's own events.
  const linkUse = new LinkUseMeter(window?.fromMs ?? 0, window?.toMs ?? durationMs);
  const onOff: OnOffProcess[] = [];
  const sim = new Simulator();
  const net = createSimNetwork(sim, {
    downlink: watchingOnOff(metered(stages('downlink', downTrace, config, config.downlinkLoss, config.downlinkOnOff), linkUse), (p) => onOff.push(p)),
    uplink: stages('uplink', upTrace, config, config.uplinkLoss, null),
    seed: config.seed,
    overheadBytes: config.overheadBytes,
  });
  const drops = new Set(config.dropDownlinkDatagrams ?? []);
  let downlinkIndex = 0;
  const rule = oracleRuleOf(config.scheme);
  const oracleSees = rule !== undefined ? new RecentSends(config.delayMs) : undefined;
  // Bytes the sender sent while the measured frames were captured (the window's share of bytesSent).
  let windowBytes = 0;
  const inWindow = (t: number) => window === null || (t >= window.fromMs && t < window.toMs);
  const outside = {
    ...net.outside,
    send: (bytes: Uint8Array) => {
      if (inWindow(sim.now())) windowBytes += bytes.length;
      if (drops.has(downlinkIndex++)) return;
      oracleSees?.add(sim.now(), bytes.length);
      net.outside.send(bytes);
    },
  };
  const encodeMs = hooks.encodeMs ?? encodeTimeFunction(config.encodeTiming ?? 'libvpx');
  const overhead = config.overheadBytes ?? DEFAULT_OVERHEAD_BYTES;
  const other = config.downlinkOtherTraffic ? new OtherTrafficSender(config.downlinkOtherTraffic, overhead) : undefined;
  const futureLink: FutureLink | undefined = oracleSees && {
    // Simulator-only: the downlink's own TraceLink, its trace and its queue.
    // The frame's datagrams reach the link one pacing gap apart (the gap the sender's estimate gives now).
    frameDeliveredAt: (frameBytes, atMs, options) => {
      const link = net.downlink.links()[0]!;
      const payload = sender?.maxPayload ?? MAX_FRAGMENT_PAYLOAD;
      const datagrams = Math.max(1, Math.ceil(frameBytes / payload));
      const gapMs = pacingGapUs(sender?.interArrivalUs) / 1000;
      const withOther = other !== undefined && options?.withoutOtherTraffic !== true;
      const ahead = oracleSees.inDelay(sim.now(), overhead, withOther);
      const wire = (i: number) => Math.min(payload, frameBytes - i * payload) + FRAGMENT_OVERHEAD_BYTES + overhead;
      // A datagram that reaches an on/off stage while it is off is lost: the frame never arrives whole.
      const atLink = (i: number) => atMs + config.delayMs + i * gapMs;
      for (let i = 0; i < datagrams; i++) if (onOff.some((p) => !p.onAt(atLink(i)))) return Infinity;
      for (let i = 0; i < datagrams - 1; i++) ahead.push({ atMs: atLink(i), bytes: wire(i) });
      if (withOther) ahead.push(...other.upcoming(config.delayMs, atLink(datagrams - 1)));
      return link.deliveryTime(wire(datagrams - 1), atLink(datagrams - 1), ahead);
    },
    propagationMs: config.delayMs,
    encodeMs: (q, keyFrame) => encodeMs(source.width, source.height, q, keyFrame),
  };

  const events: SenderEvent[] = [];
  const frameToSource = new Map<number, number>();
  let maxStatesKept = 0;
  let sender: SalsifySender | undefined;
  sender = new SalsifySender({
    ctx: outside, codec, source, connectionId: config.connectionId, frames,
    scheme: futureLink ? oracle({ frameIntervalMs: 1000 / source.fps, futureLink, rule, frameCycleMs: frameCycleFunction(config.frameClock) }) : (hooks.scheme ?? (config.scheme as Scheme)),
    budgetMs: config.budgetMs, frameClock: config.frameClock,
    encodeMs,
    // Virtual time follows the scheme's modelled encode time; running the two
    // encodings at once only makes the simulation finish sooner.
    concurrentEncodes: true,
    log: (e) => {
      events.push(e);
      if (e.kind === 'capture') maxStatesKept = Math.max(maxStatesKept, sender?.statesKept ?? 0);
      if (e.kind === 'sent') frameToSource.set(e.frameNumber, e.sourceIndex);
    },
  });
  const modelled = codec.name === 'model' ? (codec as ModelCodec) : undefined;
  const shown = new Map<number, { shownMs: number; ssim: number }>();
  const arrivals = new FrameArrivals();
  const pendingSsim: Promise<void>[] = [];
  const receiver = new SalsifyReceiver({
    ctx: net.inside, codec, connectionId: config.connectionId, grace: config.grace, conceal: config.conceal,
    onFragment: (d, at) => arrivals.fragment(d, at),
    onShown: (decoded) => {
      const hz = config.displayRefreshHz;
      const s = hz === undefined ? decoded : { ...decoded, shownAt: nextRefreshMs(decoded.shownAt, hz) };
      if (modelled) {
        shown.set(s.frameNumber, { shownMs: s.shownAt, ssim: modelled.modelledSsim(s.frame, s.state) });
        return;
      }
      const index = frameToSource.get(s.frameNumber);
      if (index === undefined) throw new Error(`receiver showed frame ${s.frameNumber}, which the sender never sent`);
      // Computed on Node's thread pool, off the simulation's path; the figure does not feed back.
      pendingSsim.push(source.frame(index).then(async (original) => {
        shown.set(s.frameNumber, { shownMs: s.shownAt, ssim: (await ssimAsync(original, s.picture)).y });
      }));
    },
  });

  const endMs = durationMs + config.drainMs;
  sender.start();
  other?.start(sim, (bytes) => {
    oracleSees?.add(sim.now(), bytes.length, true);
    net.outside.send(bytes);
  }, endMs);
  await sim.run({ until: endMs });
  sender.stop();
  await Promise.all(pendingSsim);
  if (sender.failure) throw sender.failure;
  if (receiver.failure) throw receiver.failure;

  const stats = net.stats();
  const run: RunRecord<SalsifySimConfig, SalsifySimCounters> = checkRun({
    label: config.scheme,
    config,
    counters: { sender: { ...sender.counters, maxStatesKept }, receiver: { ...receiver.counters }, downlink: stats.downlink, uplink: stats.uplink },
    // With a window, what was sent during it (as the link use): every figure of the summary covers the window; the counters keep the run's total.
    bytesSent: window === null ? sender.counters.bytesSent : windowBytes,
    link: linkUse.result(),
    endMs,
    window,
    frames: salsifyFrameRecords(senderView(events), { arrivals: arrivals.toMap(), shown }, endMs),
  });
  // Read once the run is over: advancing the process draws from the path's random source.
  const downlinkOffMs = onOff.flatMap((p) => p.offPeriods(endMs));
  return { ...run, summary: summarize(run), senderEvents: events, downlinkOffMs };
}

/** The cycle of the sender's frame clock, as the oracles plan with it (newest-frame: the next-frame clock's, an approximation). */
function frameCycleFunction(clock: FrameClock | undefined): (encodeMs: number, frameIntervalMs: number) => number {
  return clock === 'single-buffer' ? singleBufferFrameCycleMs : referenceFrameCycleMs;
}

/** Datagrams sent on the downlink (the sender's and the other traffic's) that are still crossing its propagation delay (before the link's queue): what the oracle must count ahead of a new frame. */
class RecentSends {
  readonly #sends: { atMs: number; bytes: number; other: boolean }[] = [];
  constructor(readonly delayMs: number) {}

  /** A datagram of `bytes` sent at `atMs`: the sender's, or (`other`) the link's other traffic. */
  add(atMs: number, bytes: number, other = false): void {
    this.#sends.push({ atMs, bytes, other });
  }

  /** The datagrams that reach the link after `now` (the other traffic's only `withOther`), as arrivals at the link (time, bytes on the link). */
  inDelay(now: number, overheadBytes: number, withOther: boolean): { atMs: number; bytes: number }[] {
    const sends = this.#sends;
    let first = 0;
    while (first < sends.length && sends[first]!.atMs + this.delayMs < now) first++;
    sends.splice(0, first);
    return sends.filter((s) => withOther || !s.other).map((s) => ({ atMs: s.atMs + this.delayMs, bytes: s.bytes + overheadBytes }));
  }
}
