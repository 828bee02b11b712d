// mm-link's "pie" queue: Proportional Integral controller Enhanced (RFC 8033)
// on top of a packet/byte limited FIFO, as Mahimahi implements it (after
// Linux 4.4's PIE), with its random early drops drawn from a seeded Rng.
//
// - Enqueue: first bring the drop probability up to date; refuse the packet if
//   the limit would be exceeded; otherwise drop it early with the current
//   probability, unless a burst allowance remains, or the delay is low
//   (previous estimate < qdelay_ref / 2 and probability < 0.2), or less than
//   two maximum-size packets (2 x 1504 bytes) are queued. The Rng is drawn
//   only when none of these exemptions applies.
// - Dequeue: measure the departure rate. A measurement cycle starts when the
//   backlog is at least 16384 bytes; once more than 16384 bytes have left,
//   the rate sample (bytes / elapsed ms, integer) feeds an average
//   (avg = avg - avg/8 + sample/8, the first sample taken as is), the burst
//   allowance shrinks by the elapsed time, and a new cycle starts if the
//   backlog is still at least the threshold. Then update the probability.
// - Probability update, every 30 ms (Mahimahi has no timer: at each enqueue
//   and dequeue it runs every update period missed since the last one, while
//   now - lastUpdate > 30, all with the current backlog): the delay estimate is backlog / average rate
//   (integer ms, 0 without a rate); p = 0.125 (delay - qdelay_ref) +
//   1.25 (delay - previous delay), divided by 128 when the probability is
//   below 0.01, by 32 below 0.1, else by 16; the probability is clamped to
//   [0, 1] and decays by 2% when both delays are 0 and the queue is empty;
//   the burst allowance shrinks by 30 ms; and when the probability is 0, both delays are below
//   qdelay_ref / 2 and a rate is known, the rate measurement resets and the
//   burst allowance is refilled to max_burst.
// As in Mahimahi, the burst allowance starts at 0 (RFC 8033 starts it at
// max_burst), and the update schedule starts at `startTime` (Mahimahi: the
// time the queue is created, i.e. the link clock's zero). The clock is the
// `now` of each call: the arrival time at enqueue and the delivery
// opportunity's time at dequeue (Mahimahi reads the wall clock at both).

import type { DropListener, QueuedPacket } from '../queue.ts';
import type { Rng } from '../../common/random.ts';
import { DroppingQueue } from './dropping-queue.ts';
import type { SizeLimit } from './size-limit.ts';

/** Mahimahi's fixed PIE parameters. */
export const PIE_ALPHA = 0.125;
export const PIE_BETA = 1.25;
/** Probability update period, ms. */
export const PIE_T_UPDATE = 30;
/** Backlog (bytes) needed to start a departure-rate measurement, and bytes per measurement. */
export const PIE_DQ_THRESHOLD = 16384;
/** The maximum packet size Mahimahi's PIE assumes, bytes. */
export const PIE_MAX_PACKET = 1504;

const NO_MEASUREMENT = -1;

export interface PieOptions extends SizeLimit {
  /** Target queueing delay, ms (> 0). mm-link requires it; RFC 8033 suggests 15. */
  readonly qdelayRef: number;
  /** Burst allowance refill, ms (> 0). mm-link requires it; RFC 8033 suggests 150. */
  readonly maxBurst: number;
  /** Source of the early-drop decisions. */
  readonly rng: Rng;
  /** Link-clock time at which the 30 ms update schedule starts (default 0). */
  readonly startTime?: number;
}

export class PieQueue<T = unknown> extends DroppingQueue<T> {
  readonly qdelayRef: number;
  readonly maxBurst: number;
  private readonly rng: Rng;
  private dropProb = 0;
  private burstAllowance = 0;
  private qdelayOld = 0;
  private currentQdelay = 0;
  /** Bytes dequeued in the current rate measurement, or NO_MEASUREMENT. */
  private dqCount = NO_MEASUREMENT;
  private dqStart = 0;
  /** Average departure rate, bytes per ms (integer); 0 when unknown. */
  private avgDqRate = 0;
  private lastUpdate: number;

  constructor(options: PieOptions) {
    super('pie', options);
    this.qdelayRef = positiveInteger('qdelay_ref', options.qdelayRef);
    this.maxBurst = positiveInteger('max_burst', options.maxBurst);
    this.rng = options.rng;
    const start = options.startTime ?? 0;
    if (!Number.isFinite(start)) throw new RangeError(`pie queue: startTime=${start} must be a finite time`);
    this.lastUpdate = start;
  }

  /** The current drop probability, in [0, 1]. */
  get dropProbability(): number {
    return this.dropProb;
  }

  /** The latest queueing-delay estimate, ms. */
  get queueDelay(): number {
    return this.currentQdelay;
  }

  /** The average departure rate, bytes per ms (0 while unknown). */
  get departureRate(): number {
    return this.avgDqRate;
  }

  /** Remaining burst allowance, ms. */
  get burstAllowanceLeft(): number {
    return this.burstAllowance;
  }

  enqueue(packet: QueuedPacket<T>, now: number, onDrop: DropListener<T>): void {
    this.updateDropProbability(now);
    if (!this.fits(packet) || this.dropEarly()) {
      onDrop(packet, now);
      return;
    }
    this.ring.push(packet);
  }

  dequeue(now: number, _onDrop: DropListener<T>): QueuedPacket<T> | undefined {
    const packet = this.ring.shift();
    if (packet === undefined) return undefined;
    this.measureDeparture(packet.size, now);
    this.updateDropProbability(now);
    return packet;
  }

  private dropEarly(): boolean {
    if (this.burstAllowance > 0) return false;
    if (this.qdelayOld < Math.floor(this.qdelayRef / 2) && this.dropProb < 0.2) return false;
    if (this.ring.bytes < 2 * PIE_MAX_PACKET) return false;
    return this.rng.next() < this.dropProb;
  }

  private measureDeparture(size: number, now: number): void {
    const backlog = this.ring.bytes;
    if (backlog >= PIE_DQ_THRESHOLD && this.dqCount === NO_MEASUREMENT) {
      this.dqStart = now;
      this.dqCount = 0;
    }
    if (this.dqCount === NO_MEASUREMENT) return;
    this.dqCount += size;
    if (this.dqCount <= PIE_DQ_THRESHOLD) return;
    const elapsed = now - this.dqStart;
    if (elapsed <= 0) return;
    const sample = Math.floor(this.dqCount / elapsed);
    this.avgDqRate = this.avgDqRate === 0 ? sample : this.avgDqRate - Math.floor(this.avgDqRate / 8) + Math.floor(sample / 8);
    if (backlog < PIE_DQ_THRESHOLD) {
      this.dqCount = NO_MEASUREMENT;
    } else {
      this.dqCount = 0;
      this.dqStart = now;
    }
    this.burstAllowance = this.burstAllowance > elapsed ? this.burstAllowance - elapsed : 0;
  }

  /** Runs every 30 ms update that fell due up to `now`. */
  private updateDropProbability(now: number): void {
    while (now - this.lastUpdate > PIE_T_UPDATE) {
      const { dropProb, burstAllowance, qdelayOld, currentQdelay, dqCount, avgDqRate } = this;
      this.updateOnce();
      const unchanged =
        dropProb === this.dropProb && burstAllowance === this.burstAllowance && qdelayOld === this.qdelayOld &&
        currentQdelay === this.currentQdelay && dqCount === this.dqCount && avgDqRate === this.avgDqRate;
      if (unchanged) {
        // A fixed point: every remaining update would change nothing but the schedule.
        const remaining = Math.ceil((now - this.lastUpdate) / PIE_T_UPDATE) - 1;
        if (remaining > 0) this.lastUpdate += remaining * PIE_T_UPDATE;
      }
    }
  }

  private updateOnce(): void {
    const backlog = this.ring.bytes;
    let updateProb = true;
    this.qdelayOld = this.currentQdelay;
    this.currentQdelay = this.avgDqRate > 0 ? Math.floor(backlog / this.avgDqRate) : 0;
    if (this.currentQdelay === 0 && backlog !== 0) updateProb = false;

    let p = PIE_ALPHA * (this.currentQdelay - this.qdelayRef) + PIE_BETA * (this.currentQdelay - this.qdelayOld);
    if (this.dropProb < 0.01) p /= 128;
    else if (this.dropProb < 0.1) p /= 32;
    else p /= 16;
    this.dropProb += p;
    if (this.dropProb < 0) {
      this.dropProb = 0;
    } else if (this.dropProb > 1) {
      this.dropProb = 1;
      updateProb = false;
    }
    if (this.currentQdelay === 0 && this.qdelayOld === 0 && updateProb) this.dropProb *= 0.98;

    this.burstAllowance = Math.max(0, this.burstAllowance - PIE_T_UPDATE);
    this.lastUpdate += PIE_T_UPDATE;

    const half = Math.floor(this.qdelayRef / 2);
    if (this.dropProb === 0 && this.currentQdelay < half && this.qdelayOld < half && this.avgDqRate > 0) {
      this.dqCount = NO_MEASUREMENT;
      this.avgDqRate = 0;
      this.burstAllowance = this.maxBurst;
    }
  }
}

function positiveInteger(field: string, value: number): number {
  if (!Number.isInteger(value) || value <= 0 || value > 0xffffffff) {
    throw new RangeError(`pie queue: ${field}=${value} must be a positive integer (milliseconds)`);
  }
  return value;
}
