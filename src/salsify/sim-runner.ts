// Runs one Salsify experiment in the deterministic simulator: builds the
// simulator, the emulated path (video on the downlink: sender = outside,
// receiver = inside), the video source, the codec, the sender and the
// receiver from a plain, JSON-serialisable config, and returns the per-frame
// records and the summary. The same config and seed give identical results.
import type { FunctionalCodec } from '../codec-bridge/types.ts';
import type { VideoSource } from '../codec-bridge/video/video-source.ts';
import type { ChainCounters, StageSpec } from '../link-emu/chain.ts';
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
import { FrameArrivals } from './frame-arrivals.ts';
import { salsifyFrameRecords, senderView } from './metrics.ts';
import type { ModelCodec } from './model-codec.ts';
import { openCodec, openVideo } from './open-inputs.ts';
import { SalsifyReceiver, type ReceiverCounters } from './receiver.ts';
import { FRAME_CLOCKS, SalsifySender, SCHEMES, type FrameClock, type Scheme, type SenderCounters, type SenderEvent } from './sender.ts';
import { ssimAsync } from '../codec-bridge/ssim.ts';

/** A link's delivery trace: a trace file name or path, or a constant rate. */
export type LinkTraceConfig = string | { readonly constantMbps: number };

export interface SalsifySimConfig {
  readonly scheme: Scheme;
  readonly seed: number | string;
  /** Seconds of video captured. */
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
  /** Which camera frame an encode takes (sender.ts; default 'next-frame', the reference's). */
  readonly frameClock?: FrameClock;
  readonly connectionId: number;
}

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
}

export interface RunHooks {
  /** The codec to use instead of building one from config.codec (e.g. an already-open VP8 codec). */
  readonly codec?: FunctionalCodec;
  /** The video source to use instead of opening config.video. */
  readonly source?: VideoSource;
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
  if (!SCHEMES.includes(c.scheme)) fail('scheme', c.scheme, SCHEMES.join(' | '));
  if (c.frameClock !== undefined && !FRAME_CLOCKS.includes(c.frameClock)) fail('frameClock', c.frameClock, FRAME_CLOCKS.join(' | '));
  if (!(c.durationS > 0 && Number.isFinite(c.durationS))) fail('durationS', c.durationS, 'a number of seconds > 0');
  if (!(c.drainMs >= 0 && Number.isFinite(c.drainMs))) fail('drainMs', c.drainMs, 'a number of ms >= 0');
  if (!(c.delayMs >= 0 && Number.isFinite(c.delayMs))) fail('delayMs', c.delayMs, 'a number of ms >= 0');
  for (const k of ['downlinkLoss', 'uplinkLoss'] as const) if (!(c[k] >= 0 && c[k] <= 1)) fail(k, c[k], 'a probability in [0, 1]');
  if (!(c.budgetMs > 0)) fail('budgetMs', c.budgetMs, 'a number of ms > 0');
  if (c.codec !== 'model' && c.codec !== 'vp8') fail('codec', c.codec, '"model" or "vp8"');
  if (c.fps != null && !(c.fps > 0 && c.fps <= 1000)) fail('fps', c.fps, 'null or a number of frames per second in (0, 1000]');
  if (c.downlinkOnOff && !(c.downlinkOnOff.meanOnMs > 0 && c.downlinkOnOff.meanOffMs > 0)) fail('downlinkOnOff', c.downlinkOnOff, '{ meanOnMs > 0, meanOffMs > 0 }');
}

export async function runSalsifySim(partial: Partial<SalsifySimConfig> & Pick<SalsifySimConfig, 'downlink' | 'uplink'>, hooks: RunHooks = {}): Promise<SalsifySimResult> {
  const config: SalsifySimConfig = { ...DEFAULT_SIM_CONFIG, ...partial };
  checkConfig(config);
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
    return await simulate(config, downTrace, upTrace, codec, source);
  } finally {
    if (!hooks.source) await source.close();
    if (!hooks.codec) await codec.close();
  }
}

/** One direction of the simulated path, built by the one path model (Mahimahi's nesting, see link-emu/path.ts). */
function stages(direction: PathDirectionName, trace: Trace, c: SalsifySimConfig, loss: number, onOff: SalsifySimConfig['downlinkOnOff']): StageSpec[] {
  return pathStages(direction, { trace, queue: c.queue, queueArgs: c.queueArgs, delayMs: c.delayMs, loss, onOff });
}

/** The stages with `meter` listening to the link's events (the stages themselves are stages()'s). */
function metered(list: readonly StageSpec[], meter: LinkUseMeter): StageSpec[] {
  return list.map((stage) => (stage.kind === 'link' ? { ...stage, events: meter } : stage));
}

async function simulate(config: SalsifySimConfig, downTrace: Trace, upTrace: Trace, codec: FunctionalCodec, source: VideoSource): Promise<SalsifySimResult> {
  const frames = Math.round(config.durationS * source.fps);
  const durationMs = frames * (1000 / source.fps);
  // Link utilisation while frames are captured, counted from the downlink's own events.
  const linkUse = new LinkUseMeter(0, durationMs);
  const sim = new Simulator();
  const net = createSimNetwork(sim, {
    downlink: metered(stages('downlink', downTrace, config, config.downlinkLoss, config.downlinkOnOff), linkUse),
    uplink: stages('uplink', upTrace, config, config.uplinkLoss, null),
    seed: config.seed,
  });
  const drops = new Set(config.dropDownlinkDatagrams ?? []);
  let downlinkIndex = 0;
  const outside = drops.size === 0 ? net.outside : {
    ...net.outside,
    send: (bytes: Uint8Array) => {
      if (!drops.has(downlinkIndex++)) net.outside.send(bytes);
    },
  };

  const events: SenderEvent[] = [];
  const frameToSource = new Map<number, number>();
  let maxStatesKept = 0;
  let sender: SalsifySender | undefined;
  sender = new SalsifySender({
    ctx: outside, codec, source, scheme: config.scheme, connectionId: config.connectionId, frames,
    budgetMs: config.budgetMs, frameClock: config.frameClock,
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
    ctx: net.inside, codec, connectionId: config.connectionId, grace: config.grace,
    onFragment: (d, at) => arrivals.fragment(d, at),
    onShown: (s) => {
      if (modelled) {
        shown.set(s.frameNumber, { shownMs: s.shownAt, ssim: modelled.modelledSsim(s.frame) });
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
    bytesSent: sender.counters.bytesSent,
    link: linkUse.result(),
    endMs,
    frames: salsifyFrameRecords(senderView(events), { arrivals: arrivals.toMap(), shown }, endMs),
  });
  return { ...run, summary: summarize(run), senderEvents: events };
}
