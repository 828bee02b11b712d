// NADA, Network-Assisted Dynamic Adaptation (RFC 8698), sender side over
// per-packet feedback, as cisco/ns3-rmcat's NadaController runs it.
//
// Per feedback report the received packets go into the packet history
// (packet-history.ts). At most once per 50 ms (half the target interval
// DELTA, 100 ms, as the reference does with batched feedback) the sender
// updates its reference rate r_ref:
//
// - the aggregate congestion signal x_curr (Section 4.2, Eq. 1-2): the
//   queueing delay d_queue, warped (d_tilde = QTH exp(-LAMBDA (d_queue - QTH)
//   / QTH) above QTH) while losses are recent (the open inter-loss interval
//   shorter than MULTILOSS times the average; blended back over one more
//   average interval), plus DLOSS (p_loss / PLRREF)^2 with p_loss the loss
//   ratio smoothed with weight ALPHA; clipped at XMAX (the reference's; the
//   RFC names no bound);
// - accelerated ramp-up (Eq. 3-4) while no packet in the window was lost and
//   none waited more than QEPS: r_ref = max(r_ref, (1 + gamma) r_recv) with
//   gamma = min(GAMMA_MAX, QBOUND / (rtt + DELTA + DFILT));
// - gradual update (Eq. 5-7) otherwise: r_ref -= KAPPA (delta / TAU)
//   (x_offset / TAU) r_ref + KAPPA ETA (x_diff / TAU) r_ref, with x_offset =
//   x_curr - PRIO XREF RMAX / r_ref and x_diff = x_curr - x_prev;
// - r_ref clipped to [RMIN, RMAX] (the options' min and max bitrates).
//
// The target is r_ref: the media flow's source is ideal (no encoder, no
// rate-shaping buffer), so Section 5.2's r_vin and r_send both equal r_ref,
// as in the reference when it runs without its buffer. No ECN marking (the
// bottleneck marks none; the reference does not read it either).
import type { FeedbackReport, RateController, RateControllerModule, RateControllerOptions, SentPacket } from '../controller.ts';
import { PacketHistory } from './packet-history.ts';

/** RFC 8698 Figure 3's defaults (and the reference's XMAX and update leniency). */
export const NADA_DEFAULTS = {
  prio: 1.0,
  xrefMs: 10,
  kappa: 0.5,
  eta: 2.0,
  tauMs: 500,
  deltaMs: 100,
  /** Fraction of DELTA that must have passed since the last update (the reference's 50 % leniency). */
  updateLeniency: 0.5,
  qepsMs: 10,
  dfiltMs: 120,
  gammaMax: 0.5,
  qboundMs: 50,
  multiloss: 7,
  qthMs: 50,
  lambda: 0.5,
  dlossMs: 10,
  plrref: 0.01,
  alpha: 0.1,
  xmaxMs: 500,
} as const;

export type NadaParameters = { readonly [K in keyof typeof NADA_DEFAULTS]: number };

/** What NADA holds after its last update (for tests, plots and logs). */
export interface NadaSnapshot {
  readonly referenceRate: number;
  readonly mode: 'accelerated-ramp-up' | 'gradual';
  readonly xCurrMs: number;
  readonly queueingDelayMs: number;
  readonly rttMs: number;
  readonly lossRatio: number;
  readonly receiveRate: number;
  readonly warped: boolean;
}

export interface NadaController extends RateController {
  snapshot(): NadaSnapshot;
}

export const name = 'nada';

export function createController(options: RateControllerOptions, parameters: Partial<NadaParameters> = {}): NadaController {
  const p: NadaParameters = { ...NADA_DEFAULTS, ...parameters };
  const sent = new Map<number, SentPacket>();
  const history = new PacketHistory();
  const clamp = (r: number) => Math.min(options.maxBitrate, Math.max(options.minBitrate, r));
  let rate = clamp(options.initialBitrate);
  let lastUpdateMs: number | undefined;
  let mode: NadaSnapshot['mode'] = 'accelerated-ramp-up';
  let queueingDelayMs = 0;
  let rttMs = 0;
  let receiveRate = 0;
  let lost = 0;
  let lossRatio = 0;
  let lossIntervals: { average: number; current: number } | undefined;
  let xCurr = 0;
  let xPrev = 0;
  let warped = false;

  /** d_tilde (Eq. 1). */
  const warpedDelay = (d: number) => (d > p.qthMs ? p.qthMs * Math.exp((-p.lambda * (d - p.qthMs)) / p.qthMs) : d);

  const congestionSignal = (): number => {
    let x = queueingDelayMs;
    warped = false;
    if (lossIntervals !== undefined) {
      const { average, current } = lossIntervals;
      if (current < p.multiloss * average) {
        x = warpedDelay(queueingDelayMs);
        warped = true;
      } else if (current < (p.multiloss + 1) * average) {
        const a = (current - p.multiloss * average) / average;
        x = a * queueingDelayMs + (1 - a) * warpedDelay(queueingDelayMs);
        warped = true;
      }
    }
    x += p.dlossMs * (lossRatio / p.plrref) ** 2;
    return Math.min(x, p.xmaxMs);
  };

  const updateMetrics = () => {
    const qdelay = history.queueingDelayMs();
    if (qdelay !== undefined) queueingDelayMs = qdelay;
    rttMs = history.rttMs() ?? rttMs;
    receiveRate = history.receiveRate() ?? receiveRate;
    const loss = history.loss();
    if (loss !== undefined) {
      lost = loss.lost;
      lossRatio += p.alpha * (loss.ratio - lossRatio);
    }
    lossIntervals = history.lossIntervals();
    xPrev = xCurr;
    if (qdelay !== undefined) xCurr = congestionSignal();
  };

  const rampUpAllowed = () => lost === 0 && (history.maxQueueingDelayMs() ?? 0) <= p.qepsMs;

  const updateRate = (deltaMs: number) => {
    if (rampUpAllowed()) {
      mode = 'accelerated-ramp-up';
      const gamma = Math.min(p.gammaMax, p.qboundMs / (rttMs + p.deltaMs + p.dfiltMs));
      rate = Math.max(rate, (1 + gamma) * receiveRate);
    } else {
      mode = 'gradual';
      const xOffset = xCurr - (p.prio * p.xrefMs * options.maxBitrate) / rate;
      const xDiff = xCurr - xPrev;
      rate -= p.kappa * (deltaMs / p.tauMs) * (xOffset / p.tauMs) * rate + p.kappa * p.eta * (xDiff / p.tauMs) * rate;
    }
    rate = clamp(rate);
  };

  return {
    name,
    targetBitrate: () => rate,
    onPacketSent(packet) {
      sent.set(packet.sequence, packet);
      // As the reference: the first update may come with the first report.
      lastUpdateMs ??= packet.sendTimeMs;
    },
    onFeedback(report: FeedbackReport, nowMs: number) {
      let received = 0;
      for (const packet of report.packets) {
        const info = sent.get(packet.sequence);
        if (info === undefined) continue;
        sent.delete(packet.sequence);
        if (packet.arrivalTimeMs === undefined) continue;
        received++;
        history.add({ sequence: info.sequence, sendTimeMs: info.sendTimeMs, sizeBytes: info.sizeBytes, oneWayMs: packet.arrivalTimeMs - info.sendTimeMs, rttMs: nowMs - info.sendTimeMs });
      }
      if (received === 0) return;
      if (lastUpdateMs === undefined) {
        lastUpdateMs = nowMs;
        return;
      }
      const deltaMs = nowMs - lastUpdateMs;
      if (deltaMs < p.deltaMs * p.updateLeniency) return;
      updateMetrics();
      updateRate(deltaMs);
      lastUpdateMs = nowMs;
    },
    snapshot: () => ({ referenceRate: rate, mode, xCurrMs: xCurr, queueingDelayMs, rttMs, lossRatio, receiveRate, warped }),
  };
}

export const nadaController: RateControllerModule = { name, createController: (options) => createController(options) };
