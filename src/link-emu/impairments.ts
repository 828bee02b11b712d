// The per-packet impairments of Mahimahi's other shells, as pure state
// machines driven by a seeded generator and the time they are given:
// independent loss (mm-loss), Gilbert-Elliott bursty loss, and an
// intermittent link (mm-onoff: exponentially distributed on and off periods,
// packets arriving while off are lost).

import type { Rng } from '../common/random.ts';

function checkProbability(name: string, value: number): void {
  if (!(value >= 0 && value <= 1)) throw new RangeError(`${name} must be a probability in [0, 1], got ${value}`);
}

/** mm-loss: each packet is lost independently with probability `rate`. */
export class IndependentLoss {
  constructor(private readonly rate: number, private readonly rng: Rng) {
    checkProbability('loss rate', rate);
  }
  drops(): boolean {
    return this.rate > 0 && this.rng.next() < this.rate;
  }
}

export interface GilbertElliottParams {
  /** Probability, per packet, of moving from the good to the bad state. */
  goodToBad: number;
  /** Probability, per packet, of moving from the bad to the good state. */
  badToGood: number;
  /** Loss probability in the good state (default 0). */
  lossInGood?: number;
  /** Loss probability in the bad state (default 1). */
  lossInBad?: number;
}

/**
 * Gilbert-Elliott loss: a two-state Markov chain stepped once per packet; the
 * state decides the packet's loss probability. The mean loss rate is
 * (pG*b + pB*g) / (g + b) with g = goodToBad, b = badToGood, and the mean
 * burst length in the bad state is 1 / badToGood packets.
 */
export class GilbertElliottLoss {
  private bad = false;
  private readonly lossInGood: number;
  private readonly lossInBad: number;

  constructor(private readonly params: GilbertElliottParams, private readonly rng: Rng) {
    checkProbability('Gilbert-Elliott goodToBad', params.goodToBad);
    checkProbability('Gilbert-Elliott badToGood', params.badToGood);
    this.lossInGood = params.lossInGood ?? 0;
    this.lossInBad = params.lossInBad ?? 1;
    checkProbability('Gilbert-Elliott lossInGood', this.lossInGood);
    checkProbability('Gilbert-Elliott lossInBad', this.lossInBad);
  }

  /** The long-run loss rate of these parameters. */
  static meanLossRate(p: GilbertElliottParams): number {
    const g = p.goodToBad;
    const b = p.badToGood;
    if (g + b === 0) return p.lossInGood ?? 0;
    return ((p.lossInGood ?? 0) * b + (p.lossInBad ?? 1) * g) / (g + b);
  }

  drops(): boolean {
    const p = this.params;
    this.bad = this.bad ? this.rng.next() >= p.badToGood : this.rng.next() < p.goodToBad;
    const loss = this.bad ? this.lossInBad : this.lossInGood;
    return loss > 0 && this.rng.next() < loss;
  }
}

/**
 * mm-onoff: the link alternates between on and off periods with exponentially
 * distributed lengths; mm-intermittent (`periodic`): periods of exactly these
 * lengths. State is advanced lazily to the time asked about, so the process
 * is the same whatever the packet pattern. As both Mahimahi tools accept, one
 * of the two may be 0: on 0 is always off, off 0 always on (not both).
 */
export class OnOffProcess {
  private on: boolean;
  private nextSwitch: number;
  private readonly startMs: number;
  private readonly startOn: boolean;
  /** Every switch so far, in order (the state alternates from startOn). */
  private readonly switches: number[] = [];
  /** Switches after nextSwitch already drawn by onAt, in order. */
  private readonly ahead: number[] = [];

  constructor(
    private readonly meanOnMs: number,
    private readonly meanOffMs: number,
    private readonly rng: Rng,
    startMs = 0,
    startOn = true,
    private readonly periodic = false,
  ) {
    if (!(meanOnMs >= 0) || !(meanOffMs >= 0)) throw new RangeError(`on/off times must be >= 0 ms, got on ${meanOnMs}, off ${meanOffMs}`);
    if (meanOnMs === 0 && meanOffMs === 0) throw new RangeError('on/off: the on and off times cannot both be 0 ms');
    // A zero-length state is never in force: the other one holds for ever.
    this.on = meanOnMs === 0 ? false : meanOffMs === 0 ? true : startOn;
    this.nextSwitch = meanOnMs === 0 || meanOffMs === 0 ? Infinity : startMs + this.draw(this.on);
    this.startMs = startMs;
    this.startOn = this.on;
  }

  isOn(now: number): boolean {
    while (now >= this.nextSwitch) {
      this.switches.push(this.nextSwitch);
      this.on = !this.on;
      this.nextSwitch = this.ahead.shift() ?? this.nextSwitch + this.draw(this.on);
    }
    return this.on;
  }

  /**
   * Whether the process will be on at `t` (a time at or after the last one
   * asked of isOn), without advancing it: the switches it draws to answer
   * are kept and taken in order later, so the process is the same whether or
   * not it is asked ahead (the simulator's oracles ask it).
   */
  onAt(t: number): boolean {
    let on = this.on;
    let next = this.nextSwitch;
    for (let i = 0; t >= next; i++) {
      on = !on;
      if (i === this.ahead.length) this.ahead.push(next + this.draw(on));
      next = this.ahead[i]!;
    }
    return on;
  }

  /**
   * The off periods [from, to) before `untilMs` (clipped to it). Advances the
   * process to `untilMs`, drawing from its random source: read it once the
   * run is over, or the draws of whatever shares that source change.
   */
  offPeriods(untilMs: number): [number, number][] {
    this.isOn(untilMs);
    const edges = [this.startMs, ...this.switches, untilMs];
    const periods: [number, number][] = [];
    for (let i = 0; i + 1 < edges.length; i++) {
      const off = this.startOn ? i % 2 === 1 : i % 2 === 0;
      const from = edges[i]!;
      const to = Math.min(edges[i + 1]!, untilMs);
      if (off && to > from) periods.push([from, to]);
    }
    return periods;
  }

  /** When the state will next change (after advancing to `now`). */
  nextChange(now: number): number {
    this.isOn(now);
    return this.nextSwitch;
  }

  /** The length of a period in state `on`. */
  private draw(on: boolean): number {
    const mean = on ? this.meanOnMs : this.meanOffMs;
    return this.periodic ? mean : this.rng.exponential(mean);
  }
}
