// Google Congestion Control, sender side over transport-wide feedback, in
// three configurations of the same parts:
//
// - `gcc` follows libwebrtc's goog_cc (modules/congestion_controller/goog_cc):
//   the trendline's over-use detector with libwebrtc's gains (k_up 0.0087,
//   k_down 0.039), arrival groups with its 100 ms burst cap, the acknowledged
//   bitrate estimator (acknowledged-bitrate.ts) as the throughput, its AIMD
//   rule (rate-controller.ts, rule 'libwebrtc'), its loss-based part as it
//   runs by default (loss-send-side.ts: LossBasedBweV2, loss-v2.ts, once
//   it is ready; the classic rule of loss-libwebrtc.ts before), start-up
//   probing (probe-controller.ts, probe-estimator.ts): a probe's result,
//   when the detector does not signal over-use, becomes the delay-based
//   estimate; and the ALR detector (alr.ts), whose region the acknowledged
//   bitrate estimator and LossBasedBweV2 are told of.
// - `gcc-classic-loss` is `gcc` with the classic loss rule alone
//   (loss-libwebrtc.ts), as goog_cc ran before LossBasedBweV2 became its
//   default (libwebrtc e04726281c, December 2022), and as `gcc` was here.
// - `gcc-draft02` is draft-ietf-rmcat-gcc-02 as this toolkit modelled it
//   first: the draft's gains (K_u 0.01, K_d 0.00018), the received rate over
//   500 ms (received-rate.ts), the draft's AIMD and loss rules
//   (loss-controller.ts), no probing.
//
// Per feedback report, the received packets (in sequence order) go through
// the arrival-time groups (arrival-groups.ts), each inter-group delay
// variation into the trendline estimator (trendline.ts), its scaled trend
// into the over-use detector (overuse-detector.ts); the detector's signal
// after the report, the throughput and the RTT drive the delay-based AIMD
// controller; the report's lost and received counts (and, for
// LossBasedBweV2, its packets' send times, sizes and fates) drive the
// loss-based one. The target is the minimum of the two.
//
// The RTT is the time from a packet's sending to the report of it reaching
// the sender, for the newest packet of each report (it includes up to one
// feedback interval of waiting at the receiver), smoothed (1/8 weight).
import type { FeedbackReport, RateController, RateControllerModule, RateControllerOptions, SentPacket } from '../controller.ts';
import { AcknowledgedBitrateEstimator } from './acknowledged-bitrate.ts';
import { AlrDetector } from './alr.ts';
import { ArrivalGroupFilter } from './arrival-groups.ts';
import { LossBasedController, type LossParameters } from './loss-controller.ts';
import { LibwebrtcLossController } from './loss-libwebrtc.ts';
import { SendSideLossEstimator, type LossInput } from './loss-send-side.ts';
import type { LossBasedState } from './loss-v2.ts';
import type { LossPacketResult } from './loss-v2-observations.ts';
import { OveruseDetector, type DetectorParameters, type Usage } from './overuse-detector.ts';
import { ProbeController } from './probe-controller.ts';
import { ProbeBitrateEstimator } from './probe-estimator.ts';
import { ReceivedRateEstimator } from './received-rate.ts';
import { AimdRateController, type RateControlParameters, type RateControlState } from './rate-controller.ts';
import { TrendlineEstimator, type TrendlineParameters } from './trendline.ts';

export interface GccParameters {
  readonly burstTimeMs: number;
  /** libwebrtc's cap on a burst's span (Infinity: the draft's none). */
  readonly maxBurstMs: number;
  /** The throughput the AIMD rule acts on: the received rate over a window, or the acknowledged bitrate estimator. */
  readonly throughput: 'received-window' | 'acknowledged';
  readonly receivedRateWindowMs: number;
  readonly trendline: Partial<TrendlineParameters>;
  readonly detector: Partial<DetectorParameters>;
  readonly rateControl: Partial<RateControlParameters>;
  /** The draft's rule, libwebrtc's classic rule alone, or libwebrtc's default (LossBasedBweV2 once ready). */
  readonly lossRule: 'draft02' | 'libwebrtc' | 'libwebrtc-v2';
  readonly loss: Partial<LossParameters>;
  /** Start-up (exponential) probing, libwebrtc's. */
  readonly probing: boolean;
  /** The ALR detector, telling the acknowledged bitrate estimator when the sender is application-limited. */
  readonly alr: boolean;
}

export const GCC_DRAFT02: GccParameters = {
  burstTimeMs: 5, maxBurstMs: Infinity, throughput: 'received-window', receivedRateWindowMs: 500, trendline: {}, detector: {}, rateControl: {}, lossRule: 'draft02', loss: {}, probing: false, alr: false,
};

export const GCC_LIBWEBRTC: GccParameters = {
  ...GCC_DRAFT02,
  maxBurstMs: 100,
  throughput: 'acknowledged',
  detector: { kUp: 0.0087, kDown: 0.039 },
  rateControl: { rule: 'libwebrtc' },
  lossRule: 'libwebrtc-v2',
  probing: true,
  alr: true,
};

/** `gcc` with the classic loss rule instead of LossBasedBweV2. */
export const GCC_LIBWEBRTC_CLASSIC_LOSS: GccParameters = { ...GCC_LIBWEBRTC, lossRule: 'libwebrtc' };

/** What GCC's parts hold now (for tests, plots and logs). */
export interface GccSnapshot {
  readonly target: number;
  readonly delayBased: number;
  readonly lossBased: number;
  readonly state: RateControlState;
  readonly usage: Usage;
  readonly thresholdMs: number;
  readonly modifiedTrendMs: number;
  readonly receivedBitrate: number | undefined;
  readonly rttMs: number | undefined;
  readonly lossFraction: number | undefined;
  /** LossBasedBweV2's state while its result is used (lossRule 'libwebrtc-v2'). */
  readonly lossState: LossBasedState | undefined;
}

export interface GccController extends RateController {
  snapshot(): GccSnapshot;
}

/** The throughput estimate, whichever the parameters choose. */
interface Throughput {
  add(arrivalMs: number, sizeBytes: number, inAlr?: boolean): void;
  bitrate(): number | undefined;
  expectFastRateChange?(): void;
}

/** The loss-based part, whichever rule. */
interface LossRule {
  update(input: LossInput): number;
  bitrate(): number;
  lossFraction(): number | undefined;
  state?(): LossBasedState | undefined;
}

function lossRule(options: RateControllerOptions, p: GccParameters): LossRule {
  if (p.lossRule === 'libwebrtc-v2') return new SendSideLossEstimator(options);
  if (p.lossRule === 'libwebrtc') {
    const classic = new LibwebrtcLossController(options);
    return {
      update: (i) => classic.update(i.lost, i.reported, i.nowMs, i.target, i.delayBased, i.rttMs),
      bitrate: () => classic.bitrate(),
      lossFraction: () => classic.lossFraction(),
    };
  }
  const draft = new LossBasedController(options, p.loss);
  return {
    update: (i) => draft.update(i.lost, i.reported, i.nowMs, i.target),
    bitrate: () => draft.bitrate(),
    lossFraction: () => draft.lossFraction(),
  };
}

export function createController(options: RateControllerOptions, parameters: Partial<GccParameters> = GCC_LIBWEBRTC, controllerName = name): GccController {
  const p = { ...GCC_DRAFT02, ...parameters };
  const sent = new Map<number, SentPacket>();
  const groups = new ArrivalGroupFilter(p.burstTimeMs, p.maxBurstMs);
  const trendline = new TrendlineEstimator(p.trendline);
  const detector = new OveruseDetector(p.detector);
  const throughput: Throughput = p.throughput === 'acknowledged' ? new AcknowledgedBitrateEstimator() : new ReceivedRateEstimator(p.receivedRateWindowMs);
  const delayBased = new AimdRateController(options, p.rateControl);
  const lossBased = lossRule(options, p);
  const prober = p.probing ? new ProbeController(options) : undefined;
  const probeEstimator = new ProbeBitrateEstimator();
  const alr = p.alr ? new AlrDetector() : undefined;
  /** When ALR last ended, until a packet sent after it is acknowledged. */
  let alrEndedMs: number | undefined;
  let modifiedTrend = 0;
  let rttMs: number | undefined;
  const clamp = (r: number) => Math.min(options.maxBitrate, Math.max(options.minBitrate, r));
  let target = clamp(options.initialBitrate);
  alr?.setEstimate(target);

  return {
    name: controllerName,
    targetBitrate: () => target,
    pacingBitrate: () => prober?.pacingBitrate() ?? target,
    onPacketSent(packet) {
      sent.set(packet.sequence, packet);
      prober?.onPacketSent(packet.sequence, packet.sizeBytes, packet.sendTimeMs);
      if (alr !== undefined) {
        alr.onPacketSent(packet.sizeBytes, packet.sendTimeMs);
        alrEndedMs = alr.takeEndedMs() ?? alrEndedMs;
      }
    },
    onFeedback(report: FeedbackReport, nowMs: number) {
      let lost = 0;
      let reported = 0;
      let newest: SentPacket | undefined;
      const results: LossPacketResult[] = [];
      for (const packet of report.packets) {
        const info = sent.get(packet.sequence);
        if (info === undefined) continue;
        sent.delete(packet.sequence);
        const cluster = prober?.clusterOf(packet.sequence);
        reported++;
        results.push({ sendTimeUs: Math.round(info.sendTimeMs * 1000), sizeBytes: info.sizeBytes, received: packet.arrivalTimeMs !== undefined });
        if (packet.arrivalTimeMs === undefined) {
          lost++;
          continue;
        }
        newest = info;
        if (cluster !== undefined) probeEstimator.add(cluster, info.sendTimeMs, packet.arrivalTimeMs, info.sizeBytes);
        if (alrEndedMs !== undefined && info.sendTimeMs > alrEndedMs) {
          throughput.expectFastRateChange?.();
          alrEndedMs = undefined;
        }
        throughput.add(packet.arrivalTimeMs, info.sizeBytes, alr?.inAlr() ?? false);
        const delta = groups.add({ sendTimeMs: info.sendTimeMs, arrivalTimeMs: packet.arrivalTimeMs, sizeBytes: info.sizeBytes });
        if (delta !== undefined) {
          modifiedTrend = trendline.update(delta).modifiedTrend;
          detector.detect(modifiedTrend, delta.sendDeltaMs, delta.arrivalTimeMs);
        }
      }
      if (reported === 0) return;
      if (newest !== undefined) {
        const sample = nowMs - newest.sendTimeMs;
        rttMs = rttMs === undefined ? sample : 0.875 * rttMs + 0.125 * sample;
        const probe = probeEstimator.fetchAndReset();
        if (probe !== undefined && detector.state() !== 'overuse') delayBased.setEstimate(probe, nowMs);
        else delayBased.update(detector.state(), throughput.bitrate(), nowMs, rttMs);
      }
      lossBased.update({
        lost, reported, nowMs, target, delayBased: delayBased.bitrate(), rttMs: rttMs ?? 0,
        packets: results, acknowledgedBitrate: throughput.bitrate(), inAlr: alr?.inAlr() ?? false,
      });
      target = clamp(Math.min(delayBased.bitrate(), lossBased.bitrate()));
      prober?.onEstimate(target, nowMs);
      alr?.setEstimate(target);
    },
    snapshot: () => ({
      target,
      delayBased: delayBased.bitrate(),
      lossBased: lossBased.bitrate(),
      state: delayBased.state(),
      usage: detector.state(),
      thresholdMs: detector.threshold(),
      modifiedTrendMs: modifiedTrend,
      receivedBitrate: throughput.bitrate(),
      rttMs,
      lossFraction: lossBased.lossFraction(),
      lossState: lossBased.state?.(),
    }),
  };
}

export const name = 'gcc';

/** libwebrtc's goog_cc (see above). */
export const gccController: RateControllerModule = { name: 'gcc', createController: (options) => createController(options, GCC_LIBWEBRTC, 'gcc') };
/** goog_cc with the classic loss rule alone (see above). */
export const gccClassicLossController: RateControllerModule = { name: 'gcc-classic-loss', createController: (options) => createController(options, GCC_LIBWEBRTC_CLASSIC_LOSS, 'gcc-classic-loss') };
/** draft-ietf-rmcat-gcc-02 as first modelled here (see above). */
export const gccDraft02Controller: RateControllerModule = { name: 'gcc-draft02', createController: (options) => createController(options, GCC_DRAFT02, 'gcc-draft02') };
