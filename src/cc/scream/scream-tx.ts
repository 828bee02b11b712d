// SCReAM's sender (RFC 8298) for one stream, as EricssonResearch/scream's
// ScreamTx runs it (code/ScreamTx.cpp at d881890, 2017-12-19: the version
// of RFC 8298's publication; later versions became SCReAM v2, for L4S),
// with its defaults: no shared-bottleneck detection, no ECN, no L4S.
//
// Network congestion control (RFC 8298 Section 4.1.2): a congestion window
// of bytes in flight. Per feedback (highest received sequence number, a
// 64-bit vector of the packets received before it, and the receive time of
// the highest) it marks packets acknowledged or lost (a packet unacked 20 ms
// after a later one's acknowledged send), takes the one-way delay of the
// highest above its base (the least over 10 s buckets) as the queue delay,
// and at most every 10 ms updates the window: on a loss x BETA_LOSS (0.8);
// in fast start (queue-delay trend below 0.2) + the bytes newly acked; else
// + GAIN_UP x off_target x acked x MSS / cwnd, or - GAIN_DOWN x ... above the
// 100 ms target (at most a quarter window); bounded by 1.1 x the recent
// bytes in flight. A packet may leave while bytes in flight + its size fit
// the window (one MSS more below the target), paced at 1.5 x cwnd / sRTT
// when the queue delay is above 2 % of the target.
//
// Media rate control: media-rate.ts. Times are µs, sizes bytes, as in the
// reference; its unsigned-integer arithmetic is kept where it changes a
// result (integer divisions and truncations, time differences that would
// be negative).
import { MEDIA_RATE_DEFAULTS, StreamRate, type MediaRateParameters } from './media-rate.ts';
import type { SendQueueView } from './send-queue-view.ts';

export const SCREAM_DEFAULTS = {
  lossBeta: 0.8,
  queueDelayTargetMin: 0.1,
  gainUp: 1.0,
  gainDown: 2.0,
  bytesInFlightHistSize: 5,
  ...MEDIA_RATE_DEFAULTS,
} as const;

export type ScreamParameters = { readonly [K in keyof typeof SCREAM_DEFAULTS]: number };

const UINT32_MAX = 0xffffffff;
const PACING_HEADROOM = 1.5;
const MIN_PACE_INTERVAL = 0;
const MINIMUM_BANDWIDTH = 5000;
const INIT_MSS = 100;
const MIN_CWND_MSS = 3;
const BYTES_IN_FLIGHT_HIST_INTERVAL_US = 1_000_000;
const MAX_BYTES_IN_FLIGHT_HEADROOM = 1.1;
const QUEUE_DELAY_FRACTION_HIST_INTERVAL_US = 50_000;
const RATE_UPDATE_INTERVAL_US = 50_000;
const REORDER_TIME_US = 20_000;
const BASE_DELAY_UPDATE_INTERVAL_US = 10_000_000;
const BASE_OWD_HIST = 50;
const QUEUE_DELAY_FRACTION_HIST = 20;
const MAX_TX_PACKETS = 2048;
const ACK_VECTOR_BITS = 64;
const TIMESTAMP_RATE = 1000;

const f32 = Math.fround;

/** a - b for µs times as the reference's unsigned arithmetic sees it: a time "before" b is far away. */
const since = (a: number, b: number) => (a >= b ? a - b : Number.MAX_SAFE_INTEGER);

interface Transmitted {
  timestampMs: number;
  timeTxUs: number;
  size: number;
  seqNr: number;
  isAcked: boolean;
  isAfterReceivedEdge: boolean;
}

export class ScreamTx {
  readonly stream: StreamRate;
  private readonly p: ScreamParameters;
  private readonly queue: SendQueueView;
  // window and its bookkeeping
  cwnd = INIT_MSS * 2;
  private cwndMin = INIT_MSS * 2;
  private mss = INIT_MSS;
  bytesInFlight = 0;
  private bytesNewlyAcked = 0;
  private bytesInFlightMaxLo = 0;
  private bytesInFlightMaxHi = 0;
  private readonly bytesInFlightHistLo: number[];
  private readonly bytesInFlightHistHi: number[];
  private bytesInFlightHistPtr = 0;
  private bytesInFlightHistLoMem = 0;
  private bytesInFlightHistHiMem = 0;
  private accBytesInFlightMax = 0;
  private nAccBytesInFlightMax = 0;
  private maxBytesInFlight = 0;
  private readonly tx = new Map<number, Transmitted>();
  private hiSeqAck = 0;
  private timeTxAckUs = 0;
  private lastLossDetectIx = -1;
  // delay
  private sRttShUs = 0;
  private sRttUs = 0;
  sRtt = 0;
  private ackedOwd = 0;
  private baseOwd = UINT32_MAX;
  private readonly baseOwdHist = new Array<number>(BASE_OWD_HIST).fill(UINT32_MAX);
  private baseOwdHistPtr = 0;
  private baseOwdHistMin = UINT32_MAX;
  queueDelay = 0;
  private queueDelayMin = 1000;
  private queueDelayMinAvg = 0;
  private queueDelayFractionAvg = 0;
  private readonly queueDelayFractionHist = new Array<number>(QUEUE_DELAY_FRACTION_HIST).fill(0);
  private queueDelayFractionHistPtr = 0;
  private queueDelayTrendValue = 0;
  private readonly queueDelayTarget: number;
  // loss
  private lossEvent = false;
  private wasLossEvent = false;
  private lossEventRate = 0;
  inFastStart = true;
  /** Loss events the window reacted to (for tests and logs). */
  lossEvents = 0;
  // pacing and rates
  private paceInterval = 0;
  private paceIntervalUs = 0;
  private rateTransmittedAvg = 0;
  private rateTransmitted = 0;
  private rateAcked = 0;
  private maxRate = 0;
  // times
  private initialized = false;
  private initUs = 0;
  private lastSRttUpdateUs = 0;
  private lastBaseOwdAddUs = 0;
  private baseOwdResetUs = 0;
  private lastAddToQueueDelayFractionHistUs = 0;
  private lastLossEventUs = 0;
  private lastTransmitUs = 0;
  private nextTransmitUs = 0;
  private lastRateUpdateUs = 0;
  private lastRttUs = 0;
  private lastCwndUpdateUs = 0;
  private lastBaseDelayRefreshUs = 0;
  private lastCongestionDetectedUs = 0;
  private lastBytesInFlightUs = 0;

  constructor(queue: SendQueueView, rates: { minBitrate: number; startBitrate: number; maxBitrate: number }, parameters: Partial<ScreamParameters> = {}) {
    this.p = { ...SCREAM_DEFAULTS, ...parameters };
    this.queue = queue;
    this.queueDelayTarget = f32(this.p.queueDelayTargetMin);
    this.bytesInFlightHistLo = new Array<number>(this.p.bytesInFlightHistSize).fill(0);
    this.bytesInFlightHistHi = new Array<number>(this.p.bytesInFlightHistSize).fill(0);
    this.stream = new StreamRate(rates.minBitrate, rates.startBitrate, rates.maxBitrate, this.p as MediaRateParameters);
  }

  queueDelayTrend(): number {
    return this.queueDelayTrendValue;
  }

  /** Whether the queue-delay target was raised for competing flows (never, without shared-bottleneck detection). */
  isCompetingFlows(): boolean {
    return this.queueDelayTarget > f32(this.p.queueDelayTargetMin);
  }

  private initialize(nowUs: number): void {
    this.initialized = true;
    this.lastSRttUpdateUs = this.lastBaseOwdAddUs = this.baseOwdResetUs = this.lastAddToQueueDelayFractionHistUs = nowUs;
    this.lastLossEventUs = this.lastTransmitUs = this.nextTransmitUs = this.lastRateUpdateUs = this.lastRttUs = nowUs;
    this.lastBaseDelayRefreshUs = nowUs + 1_000_000;
    this.initUs = nowUs;
  }

  /** The source produced a frame of `bytes` (already in the queue). */
  newMediaFrame(nowUs: number, bytes: number): void {
    if (!this.initialized) this.initialize(nowUs);
    this.stream.updateTargetBitrate(nowUs, this.queue, this);
    if (since(nowUs, this.lastCwndUpdateUs) < 500_000) this.stream.updateTargetBitrate(nowUs, this.queue, this);
    if (since(nowUs, this.lastBaseDelayRefreshUs) < this.sRttUs * 2) {
      // Let the network queue drain for two RTTs so that the base delay is measured again.
      this.queue.clear();
    } else {
      this.stream.bytesRtp += bytes;
      this.mss = Math.max(this.mss, this.queue.sizeOfNext());
      this.cwndMin = 2 * this.mss;
      this.cwnd = Math.max(this.cwnd, this.cwndMin);
    }
  }

  /** 0: the head packet may leave now; > 0: after that many seconds (pacing); -1: not now (window full or nothing queued). */
  isOkToTransmit(nowUs: number): number {
    if (!this.initialized) this.initialize(nowUs);
    this.updateRates(nowUs);
    this.bytesInFlightMaxHi = Math.max(this.bytesInFlight, this.bytesInFlightMaxHi);
    if (since(nowUs, this.lastBytesInFlightUs) > BYTES_IN_FLIGHT_HIST_INTERVAL_US) this.recordBytesInFlight(nowUs);
    const sizeOfNext = this.queue.sizeOfNext();
    if (sizeOfNext === -1) return -1;
    let blocked = this.queueDelay < this.queueDelayTarget ? this.bytesInFlight + sizeOfNext > this.cwnd + this.mss : this.bytesInFlight + sizeOfNext > this.cwnd;
    let wait = this.nextTransmitUs > nowUs ? (this.nextTransmitUs - nowUs) * 1e-6 : 0;
    if (since(nowUs, this.lastTransmitUs) > 500_000 && this.lastTransmitUs < nowUs) {
      // Nothing sent for 500 ms: forget what is in flight (a deadlock breaker).
      this.tx.clear();
      this.bytesInFlight = 0;
      blocked = false;
      wait = 0;
    }
    return blocked ? -1 : wait;
  }

  private updateRates(nowUs: number): void {
    const interval = this.rateAcked < 50_000 ? 2 * RATE_UPDATE_INTERVAL_US : RATE_UPDATE_INTERVAL_US;
    if (since(nowUs, this.lastRateUpdateUs) <= interval) return;
    this.stream.updateRate(nowUs);
    this.rateTransmitted = this.stream.rateTransmitted;
    this.rateTransmittedAvg = 0.9 * this.rateTransmittedAvg + 0.1 * this.rateTransmitted;
    this.rateAcked = this.stream.rateAcked;
    this.lastRateUpdateUs = nowUs;
    this.maxRate = this.stream.maxRate();
  }

  private recordBytesInFlight(nowUs: number): void {
    this.bytesInFlightMaxLo = this.nAccBytesInFlightMax > 0 ? Math.trunc(this.accBytesInFlightMax / this.nAccBytesInFlightMax) : 0;
    this.bytesInFlightHistLo[this.bytesInFlightHistPtr] = this.bytesInFlightMaxLo;
    this.bytesInFlightHistHi[this.bytesInFlightHistPtr] = this.bytesInFlightMaxHi;
    this.bytesInFlightHistPtr = (this.bytesInFlightHistPtr + 1) % this.p.bytesInFlightHistSize;
    this.lastBytesInFlightUs = nowUs;
    this.accBytesInFlightMax = this.nAccBytesInFlightMax = this.bytesInFlightMaxHi = 0;
    this.bytesInFlightHistLoMem = Math.max(0, ...this.bytesInFlightHistLo);
    this.bytesInFlightHistHiMem = Math.max(0, ...this.bytesInFlightHistHi);
    this.mss = INIT_MSS;
    this.cwndMin = MIN_CWND_MSS * this.mss;
    this.cwnd = Math.max(this.cwnd, this.cwndMin);
  }

  /** The head packet left: `size` bytes, sequence number `seqNr` (16 bits). Returns the pacing interval, s. */
  addTransmitted(nowUs: number, size: number, seqNr: number): number {
    if (!this.initialized) this.initialize(nowUs);
    const ix = seqNr % MAX_TX_PACKETS;
    if (this.tx.has(ix)) {
      // The list wrapped: throughput must have collapsed; start low again.
      this.tx.clear();
      this.bytesInFlight = 0;
      this.cwnd = this.cwndMin;
      this.stream.targetBitrate = this.stream.minBitrate;
    }
    this.tx.set(ix, { timestampMs: Math.floor(nowUs / 1000) >>> 0, timeTxUs: nowUs, size, seqNr, isAcked: false, isAfterReceivedEdge: false });
    this.bytesInFlight += size;
    this.stream.bytesTransmitted += size;
    this.lastTransmitUs = nowUs;
    this.mss = Math.max(this.mss, size);
    this.cwndMin = 2 * this.mss;
    this.cwnd = Math.max(this.cwnd, this.cwndMin);
    this.nextTransmitUs = nowUs + this.paceIntervalUs;
    return this.paceInterval;
  }

  /** Feedback: the receive time of the highest sequence number received (ms, 32 bits), that number, and the 64 before it. */
  incomingFeedback(nowUs: number, timestampMs: number, highestSeqNr: number, ackVector: bigint): void {
    if (!this.initialized) this.initialize(nowUs);
    const diff = (highestSeqNr - this.hiSeqAck) & 0xffff;
    if (diff > 65000 && this.hiSeqAck !== 0 && this.timeTxAckUs !== 0) return; // out of order
    this.accBytesInFlightMax += this.bytesInFlight;
    this.nAccBytesInFlightMax++;
    this.markAcked(nowUs, highestSeqNr, ackVector, timestampMs);
    this.detectLoss(nowUs, highestSeqNr);
    if (this.lossEvent) {
      this.lastLossEventUs = nowUs;
      this.stream.lossEventFlag = true;
    }
    if (this.lastCwndUpdateUs === 0) this.lastCwndUpdateUs = nowUs;
    if (since(nowUs, this.lastCwndUpdateUs) > 10_000) {
      this.updateCwnd(nowUs);
      this.lastCwndUpdateUs = nowUs;
    }
  }

  /** The packets from the last highest acknowledged up to `highestSeqNr`, by index in the 2048-entry list. */
  private indices(highestSeqNr: number): [number, number] {
    let ix1 = highestSeqNr % MAX_TX_PACKETS;
    const ix0 = (this.hiSeqAck + 1) & 0xffff;
    while (ix1 < ix0) ix1 += MAX_TX_PACKETS;
    return [ix0, ix1];
  }

  private markAcked(nowUs: number, highestSeqNr: number, ackVector: bigint, timestampMs: number): void {
    const [ix0, ix1] = this.indices(highestSeqNr);
    for (let m = ix0; m <= ix1; m++) {
      const packet = this.tx.get(m % MAX_TX_PACKETS);
      if (packet === undefined) continue;
      const diff = (((highestSeqNr - packet.seqNr) & 0xffff) - 1) & 0xffff;
      // The reference shifts a 64-bit one by diff; at diff 64 x86 takes the count modulo 64.
      if (diff <= ACK_VECTOR_BITS && (ackVector >> BigInt(diff % 64)) & 1n) packet.isAcked = true;
      if (packet.seqNr === highestSeqNr) {
        packet.isAcked = true;
        this.ackedOwd = (timestampMs - packet.timestampMs) >>> 0;
        const qDel = (this.estimateOwd(nowUs) - this.baseOwdNow()) >>> 0;
        this.queueDelay = f32(qDel / TIMESTAMP_RATE);
        const rttUs = nowUs - packet.timeTxUs;
        if (rttUs < 1_000_000) {
          this.sRttShUs = Math.floor((7 * this.sRttShUs + rttUs) / 8);
          if (since(nowUs, this.lastSRttUpdateUs) > this.sRttShUs) {
            this.sRttUs = Math.floor((7 * this.sRttUs + this.sRttShUs) / 8);
            this.lastSRttUpdateUs = nowUs;
            this.sRtt = this.sRttUs * 1e-6;
          }
        }
        this.timeTxAckUs = packet.timeTxUs;
      }
    }
  }

  private detectLoss(nowUs: number, highestSeqNr: number): void {
    const [ix0, ix1] = this.indices(highestSeqNr);
    this.hiSeqAck = highestSeqNr;
    const lose = (index: number, packet: Transmitted) => {
      if (since(nowUs, this.lastLossEventUs) > this.sRttUs && this.p.lossBeta < 1) this.lossEvent = true;
      this.stream.bytesLost += packet.size;
      this.tx.delete(index);
    };
    if (this.lastLossDetectIx >= 0) {
      // Packets older than the range this feedback covers are lost for good.
      const end = this.lastLossDetectIx > ix0 ? ix0 + MAX_TX_PACKETS : ix0;
      for (let m = this.lastLossDetectIx; m < end; m++) {
        const packet = this.tx.get(m % MAX_TX_PACKETS);
        if (packet !== undefined) lose(m % MAX_TX_PACKETS, packet);
      }
    }
    this.lastLossDetectIx = ix0;
    for (let m = ix0; m <= ix1; m++) {
      const index = m % MAX_TX_PACKETS;
      const packet = this.tx.get(index);
      if (packet === undefined) continue;
      let seqExt = packet.seqNr;
      let highestExt = highestSeqNr;
      if (seqExt < highestExt && highestExt - seqExt > 20000) seqExt += 65536;
      else if (seqExt > highestExt && seqExt - highestExt > 20000) highestExt += 65536;
      if (seqExt <= highestExt && !packet.isAfterReceivedEdge) {
        // At or below the highest received: out of flight, as SACK advances a window.
        this.bytesNewlyAcked += packet.size;
        this.bytesInFlight = Math.max(0, this.bytesInFlight - packet.size);
        this.stream.bytesAcked += packet.size;
        packet.isAfterReceivedEdge = true;
      }
      if (packet.timeTxUs + REORDER_TIME_US < this.timeTxAckUs && !packet.isAcked) lose(index, packet);
      else if (packet.isAcked) this.tx.delete(index);
    }
  }

  private estimateOwd(nowUs: number): number {
    this.baseOwd = Math.min(this.baseOwd, this.ackedOwd);
    if (since(nowUs, this.lastBaseOwdAddUs) >= BASE_DELAY_UPDATE_INTERVAL_US) {
      this.baseOwdHist[this.baseOwdHistPtr] = this.baseOwd;
      this.baseOwdHistPtr = (this.baseOwdHistPtr + 1) % BASE_OWD_HIST;
      this.lastBaseOwdAddUs = nowUs;
      this.baseOwd = UINT32_MAX;
      this.baseOwdHistMin = Math.min(...this.baseOwdHist);
      if (since(nowUs, this.lastBaseDelayRefreshUs) > BASE_DELAY_UPDATE_INTERVAL_US * (BASE_OWD_HIST - 1)) this.lastBaseDelayRefreshUs = nowUs;
    }
    return this.ackedOwd;
  }

  private baseOwdNow(): number {
    return Math.min(this.baseOwd, this.baseOwdHistMin);
  }

  private queueDelayFraction(): number {
    return this.queueDelay / this.queueDelayTarget;
  }

  /** The queue-delay trend: the lag-1 autocorrelation of the last 20 delay fractions (every 50 ms), times their average. */
  private computeQueueDelayTrend(): void {
    this.queueDelayTrendValue = 0;
    const n = QUEUE_DELAY_FRACTION_HIST;
    const at = (k: number) => this.queueDelayFractionHist[(this.queueDelayFractionHistPtr + k) % n]!;
    let avg = 0;
    for (let k = 0; k < n; k++) avg += at(k);
    avg /= n;
    let x2 = 0;
    let a0 = 0;
    let a1 = 0;
    for (let k = 0; k < n; k++) {
      const x1 = at(k) - avg;
      a0 += x1 * x1;
      a1 += x1 * x2;
      x2 = x1;
    }
    if (a0 > 0) this.queueDelayTrendValue = Math.max(0, Math.min(1, (a1 / a0) * this.queueDelayFractionAvg));
  }

  private updateCwnd(nowUs: number): void {
    // In 32-bit floats, as the reference computes what it truncates to whole bytes.
    const dT = this.lastCwndUpdateUs === 0 ? f32(0.001) : f32(f32(nowUs - this.lastCwndUpdateUs) * f32(1e-6));
    const ackedLimited = this.maxRate > 1e5 ? Math.min(this.bytesNewlyAcked, f32(f32(f32(1.25 * this.maxRate) * dT) / 8)) : 2 * this.mss;
    this.queueDelayMin = Math.min(this.queueDelayMin, this.queueDelay);
    if (this.queueDelay > 10000 || (this.queueDelayMinAvg > 0.25 * this.queueDelayTarget && since(nowUs, this.baseOwdResetUs) > 20_000_000)) {
      // The base delay is likely wrong (a path change, clock drift): start its history again.
      this.queueDelayMinAvg = 0;
      this.queueDelay = 0;
      this.baseOwdHist.fill(UINT32_MAX);
      this.baseOwd = this.baseOwdHistMin = UINT32_MAX;
      this.baseOwdResetUs = nowUs;
    }
    this.queueDelayFractionAvg = 0.9 * this.queueDelayFractionAvg + 0.1 * this.queueDelayFraction();
    if (since(nowUs, this.lastAddToQueueDelayFractionHistUs) > QUEUE_DELAY_FRACTION_HIST_INTERVAL_US) this.everyFiftyMs(nowUs);
    const offTarget = f32(f32(this.queueDelayTarget - this.queueDelay) / this.queueDelayTarget);
    if (this.lossEvent) {
      this.cwnd = Math.max(this.cwndMin, Math.trunc(f32(f32(this.p.lossBeta) * this.cwnd)));
      this.lossEvent = false;
      this.lossEvents++;
      this.lastCongestionDetectedUs = nowUs;
      this.inFastStart = false;
      this.wasLossEvent = true;
    } else {
      if (since(nowUs, this.lastRttUs) > this.sRttUs) {
        this.lossEventRate = this.wasLossEvent ? 0.99 * this.lossEventRate + 0.01 : this.lossEventRate * 0.99;
        this.wasLossEvent = false;
        this.lastRttUs = nowUs;
      }
      if (this.inFastStart) {
        if (this.queueDelayTrendValue < 0.2) {
          if (this.bytesInFlight * 1.5 + this.bytesNewlyAcked > this.cwnd) this.cwnd = Math.trunc(f32(this.cwnd + ackedLimited));
        } else {
          this.inFastStart = false;
        }
      } else if (offTarget > 0) {
        if (this.bytesInFlight * 1.2 + this.bytesNewlyAcked > this.cwnd) {
          const increment = f32(f32(f32(f32(this.p.gainUp * offTarget) * ackedLimited) * this.mss) / this.cwnd);
          this.cwnd += Math.trunc(f32(increment + 0.5));
        }
      } else {
        let delta = -f32(f32(f32(f32(this.p.gainDown * offTarget) * this.bytesNewlyAcked) * this.mss) / this.cwnd);
        delta = Math.min(Math.trunc(delta), Math.trunc(this.cwnd / 4));
        this.cwnd -= Math.trunc(delta);
        if (this.stream.maxRate() < 1e5) {
          const factor = 1 - delta / this.cwnd;
          const s = this.stream;
          s.targetBitrate = Math.max(s.minBitrate, Math.min(s.maxBitrate, s.targetBitrate * factor));
        }
        this.lastCongestionDetectedUs = nowUs;
      }
    }
    if (this.maxBytesInFlight > 5000) this.cwnd = Math.min(this.cwnd, Math.trunc(this.maxBytesInFlight));
    if (this.sRtt < 0.01 && this.queueDelayTrendValue < 0.1) {
      this.cwnd = Math.max(this.cwnd, Math.max(Math.trunc((this.rateTransmitted * 0.01) / 8), Math.trunc(this.maxBytesInFlight * 1.5)));
    }
    this.cwnd = Math.max(this.cwndMin, this.cwnd);
    if (this.queueDelayTrendValue > 0.2) {
      this.lastCongestionDetectedUs = nowUs;
    } else if (since(nowUs, this.lastCongestionDetectedUs) > 5_000_000 && !this.inFastStart) {
      // Queue delay low for 5 s: fast start again.
      this.inFastStart = true;
      this.lastCongestionDetectedUs = nowUs;
    }
    this.bytesNewlyAcked = 0;
  }

  /** Pacing, the delay-fraction history and trend, and the bytes-in-flight limit: every 50 ms of feedback. */
  private everyFiftyMs(nowUs: number): void {
    let paceInterval = MIN_PACE_INTERVAL;
    if (this.queueDelayFractionAvg > 0.02) {
      const pacingBitrate = PACING_HEADROOM * Math.max(MINIMUM_BANDWIDTH, (this.cwnd * 8) / Math.max(0.001, this.sRtt));
      paceInterval = Math.max(MIN_PACE_INTERVAL, (this.mss * 8) / pacingBitrate);
    }
    this.paceInterval = paceInterval;
    this.paceIntervalUs = Math.trunc(paceInterval * 1_000_000);
    this.queueDelayMinAvg = this.queueDelayMin < this.queueDelayMinAvg ? this.queueDelayMin : 0.001 * this.queueDelayMin + 0.999 * this.queueDelayMinAvg;
    this.queueDelayMin = 1000;
    const nIter = Math.trunc((nowUs - this.lastAddToQueueDelayFractionHistUs) / QUEUE_DELAY_FRACTION_HIST_INTERVAL_US);
    for (let k = 0; k < nIter; k++) {
      this.queueDelayFractionHist[this.queueDelayFractionHistPtr] = this.queueDelayFraction();
      this.queueDelayFractionHistPtr = (this.queueDelayFractionHistPtr + 1) % QUEUE_DELAY_FRACTION_HIST;
    }
    if (nowUs - this.initUs > 2_000_000) this.computeQueueDelayTrend();
    const hi = Math.max(this.bytesInFlightMaxHi, this.bytesInFlightHistHiMem);
    const lo = Math.max(this.bytesInFlight, this.bytesInFlightHistLoMem);
    const alpha = this.queueDelayTrendValue;
    this.maxBytesInFlight = (hi * (1 - alpha) + lo * alpha) * MAX_BYTES_IN_FLIGHT_HEADROOM;
    this.lastAddToQueueDelayFractionHistUs = nowUs;
  }
}
