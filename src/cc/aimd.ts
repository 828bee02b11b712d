// A simple rate-based AIMD reference controller, loss- and delay-based: the
// baseline the RFC 8867 suite runs beside GCC, and the smallest example of a
// RateControllerModule.
//
// Per feedback report it takes, over the packets the report covers:
// - the loss fraction (packets reported not received / packets reported);
// - the queueing delay: the mean one-way delay of the received packets minus
//   the least one-way delay seen so far in the flow (the two clocks' offset
//   and the propagation delay cancel out).
// Congestion is a loss fraction above `lossThreshold` (2 %) or a queueing
// delay above `delayThresholdMs` (50 ms). On congestion the rate is cut to
// `beta` (0.85) times itself, at most once per `decreaseHoldMs` (300 ms) so
// that one episode, seen by the next few reports, counts once. Otherwise the
// rate grows by `increaseBitsPerS` (50 kbit/s) per second since the last
// report (at most 1 s counted: after a pause the first report must not jump
// by the pause's length). The rate stays within the options' [min, max].
import type { FeedbackReport, RateController, RateControllerModule, RateControllerOptions, SentPacket } from './controller.ts';

export interface AimdParameters {
  readonly lossThreshold: number;
  readonly delayThresholdMs: number;
  readonly beta: number;
  readonly decreaseHoldMs: number;
  readonly increaseBitsPerS: number;
}

export const AIMD_DEFAULTS: AimdParameters = {
  lossThreshold: 0.02,
  delayThresholdMs: 50,
  beta: 0.85,
  decreaseHoldMs: 300,
  increaseBitsPerS: 50_000,
};

export const name = 'aimd';

export function createController(options: RateControllerOptions, parameters: Partial<AimdParameters> = {}): RateController {
  const p = { ...AIMD_DEFAULTS, ...parameters };
  let rate = options.initialBitrate;
  const sendTimes = new Map<number, number>();
  let minOneWayMs = Infinity;
  let lastReportMs: number | undefined;
  let lastDecreaseMs = -Infinity;
  const clamp = (r: number) => Math.min(options.maxBitrate, Math.max(options.minBitrate, r));

  return {
    name,
    targetBitrate: () => rate,
    onPacketSent(packet: SentPacket) {
      sendTimes.set(packet.sequence, packet.sendTimeMs);
    },
    onFeedback(report: FeedbackReport, nowMs: number) {
      let reported = 0;
      let lost = 0;
      let delaySum = 0;
      let received = 0;
      const oneWay: number[] = [];
      for (const packet of report.packets) {
        const sent = sendTimes.get(packet.sequence);
        if (sent === undefined) continue;
        sendTimes.delete(packet.sequence);
        reported++;
        if (packet.arrivalTimeMs === undefined) lost++;
        else {
          const d = packet.arrivalTimeMs - sent;
          oneWay.push(d);
          if (d < minOneWayMs) minOneWayMs = d;
        }
      }
      if (reported === 0) return;
      for (const d of oneWay) {
        delaySum += d - minOneWayMs;
        received++;
      }
      const lossFraction = lost / reported;
      const queueingMs = received > 0 ? delaySum / received : 0;
      const elapsedS = lastReportMs === undefined ? 0 : Math.min(1, Math.max(0, nowMs - lastReportMs) / 1000);
      lastReportMs = nowMs;
      if (lossFraction > p.lossThreshold || queueingMs > p.delayThresholdMs) {
        if (nowMs - lastDecreaseMs >= p.decreaseHoldMs) {
          rate = clamp(rate * p.beta);
          lastDecreaseMs = nowMs;
        }
      } else {
        rate = clamp(rate + p.increaseBitsPerS * elapsedS);
      }
    },
  };
}

export const aimdController: RateControllerModule = { name, createController: (options) => createController(options) };
