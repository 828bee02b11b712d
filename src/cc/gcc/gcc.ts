// Google Congestion Control as draft-ietf-rmcat-gcc-02 describes it, sender
// side over transport-wide feedback (as libwebrtc's goog_cc runs it): per
// feedback report, the received packets (in sequence order) go through the
// arrival-time groups (arrival-groups.ts), each inter-group delay variation
// into the trendline estimator (trendline.ts), its scaled trend into the
// over-use detector (overuse-detector.ts); the detector's signal after the
// report, the received rate over the last 500 ms (received-rate.ts) and the
// RTT drive the delay-based AIMD controller (rate-controller.ts); the
// report's lost and received counts drive the loss-based controller
// (loss-controller.ts). The target is the minimum of the two.
//
// The RTT is the time from a packet's sending to the report of it reaching
// the sender, for the newest packet of each report (it includes up to one
// feedback interval of waiting at the receiver), smoothed (1/8 weight).
import type { FeedbackReport, RateController, RateControllerModule, RateControllerOptions, SentPacket } from '../controller.ts';
import { ArrivalGroupFilter } from './arrival-groups.ts';
import { LossBasedController, type LossParameters } from './loss-controller.ts';
import { OveruseDetector, type DetectorParameters, type Usage } from './overuse-detector.ts';
import { ReceivedRateEstimator } from './received-rate.ts';
import { AimdRateController, type RateControlParameters, type RateControlState } from './rate-controller.ts';
import { TrendlineEstimator, type TrendlineParameters } from './trendline.ts';

export interface GccParameters {
  readonly burstTimeMs: number;
  readonly receivedRateWindowMs: number;
  readonly trendline: Partial<TrendlineParameters>;
  readonly detector: Partial<DetectorParameters>;
  readonly rateControl: Partial<RateControlParameters>;
  readonly loss: Partial<LossParameters>;
}

export const GCC_DEFAULTS: GccParameters = { burstTimeMs: 5, receivedRateWindowMs: 500, trendline: {}, detector: {}, rateControl: {}, loss: {} };

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
}

export interface GccController extends RateController {
  snapshot(): GccSnapshot;
}

export const name = 'gcc';

export function createController(options: RateControllerOptions, parameters: Partial<GccParameters> = {}): GccController {
  const p = { ...GCC_DEFAULTS, ...parameters };
  const sent = new Map<number, SentPacket>();
  const groups = new ArrivalGroupFilter(p.burstTimeMs);
  const trendline = new TrendlineEstimator(p.trendline);
  const detector = new OveruseDetector(p.detector);
  const receivedRate = new ReceivedRateEstimator(p.receivedRateWindowMs);
  const delayBased = new AimdRateController(options, p.rateControl);
  const lossBased = new LossBasedController(options, p.loss);
  let modifiedTrend = 0;
  let rttMs: number | undefined;
  const clamp = (r: number) => Math.min(options.maxBitrate, Math.max(options.minBitrate, r));
  let target = clamp(options.initialBitrate);

  return {
    name,
    targetBitrate: () => target,
    onPacketSent(packet) {
      sent.set(packet.sequence, packet);
    },
    onFeedback(report: FeedbackReport, nowMs: number) {
      let lost = 0;
      let reported = 0;
      let newest: SentPacket | undefined;
      for (const packet of report.packets) {
        const info = sent.get(packet.sequence);
        if (info === undefined) continue;
        sent.delete(packet.sequence);
        reported++;
        if (packet.arrivalTimeMs === undefined) {
          lost++;
          continue;
        }
        newest = info;
        receivedRate.add(packet.arrivalTimeMs, info.sizeBytes);
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
        delayBased.update(detector.state(), receivedRate.bitrate(), nowMs, rttMs);
      }
      lossBased.update(lost, reported, nowMs, target);
      target = clamp(Math.min(delayBased.bitrate(), lossBased.bitrate()));
    },
    snapshot: () => ({
      target,
      delayBased: delayBased.bitrate(),
      lossBased: lossBased.bitrate(),
      state: delayBased.state(),
      usage: detector.state(),
      thresholdMs: detector.threshold(),
      modifiedTrendMs: modifiedTrend,
      receivedBitrate: receivedRate.bitrate(),
      rttMs,
      lossFraction: lossBased.lossFraction(),
    }),
  };
}

export const gccController: RateControllerModule = { name, createController: (options) => createController(options) };
