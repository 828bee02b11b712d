// Seeded generators of Mahimahi traces.
//
// Rates are in Mbit/s counting BYTES_PER_OPPORTUNITY (1500) bytes per
// opportunity, the convention of Mahimahi's documentation and of the shared
// traces' README (a trace holding just "1" is "12 Mbit/s"). mm-link itself
// lets 1504 bytes through per opportunity, so on the wire a trace carries
// 1504/1500 of its nominal rate. Every generator takes `bytesPerOpportunity`
// to choose the other convention.
//
// Timestamps are whole milliseconds: an opportunity at continuous time t (ms)
// is written as ceil(t). The random generators produce opportunities in
// (0, durationMs]; since a Mahimahi trace's period is its last timestamp, their
// period is the time of the last opportunity, at most durationMs.
import { createRng, type Rng } from '../common/random.ts';
import type { Trace } from './trace.ts';

/** Nominal bytes per opportunity for rates (see above). */
export const BYTES_PER_OPPORTUNITY = 1500;

/** The most opportunities a generator will produce (80 MB of Float64Array). */
export const MAX_GENERATED_OPPORTUNITIES = 10_000_000;

interface CommonOptions {
  /** Bytes one opportunity counts for when converting rates (default 1500). */
  bytesPerOpportunity?: number;
}

interface RandomOptions extends CommonOptions {
  /** Length of the trace in ms (> 0). The period is the last opportunity, at most this. */
  durationMs: number;
  /** Seed of the generator: same options and seed, same trace. */
  seed: string | number;
}

function check(condition: boolean, message: string): void {
  if (!condition) throw new RangeError(message);
}

function positiveFinite(name: string, value: number): void {
  check(Number.isFinite(value) && value > 0, `${name} must be a finite number > 0, got ${value}`);
}

function bytesPer(options: CommonOptions): number {
  const bytes = options.bytesPerOpportunity ?? BYTES_PER_OPPORTUNITY;
  check(Number.isInteger(bytes) && bytes >= 1 && bytes <= 65536, `bytesPerOpportunity must be an integer in [1, 65536], got ${bytes}`);
  return bytes;
}

/** Opportunities per millisecond for a rate in Mbit/s. */
function perMs(rateMbps: number, bytes: number): number {
  return (rateMbps * 1000) / (8 * bytes);
}

function checkRandomOptions(options: RandomOptions): void {
  positiveFinite('durationMs', options.durationMs);
  check(Number.isInteger(options.durationMs), `durationMs must be a whole number of ms, got ${options.durationMs}`);
  check(typeof options.seed === 'number' || typeof options.seed === 'string', `seed must be a string or a number`);
}

function checkCount(expected: number, what: string): void {
  check(
    expected <= MAX_GENERATED_OPPORTUNITIES,
    `${what} would hold about ${Math.round(expected)} opportunities, over the limit of ${MAX_GENERATED_OPPORTUNITIES}; lower the rate or the duration`,
  );
}

/** Collects whole-millisecond timestamps into a growing Float64Array. */
class TimesBuilder {
  private times = new Float64Array(1024);
  length = 0;
  push(t: number): void {
    if (this.length === this.times.length) {
      const grown = new Float64Array(this.times.length * 2);
      grown.set(this.times);
      this.times = grown;
    }
    this.times[this.length++] = t;
  }
  toTrace(source: string): Trace {
    check(this.length > 0 && this.times[this.length - 1]! > 0, `${source}: no opportunity fell in the duration; raise the rate or the duration`);
    const times = this.times.slice(0, this.length);
    return { source, times, period: times[times.length - 1]! };
  }
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

function fmt(x: number): string {
  return String(Number(x.toPrecision(12)));
}

// ---------------------------------------------------------------- constant

export interface ConstantRateOptions extends CommonOptions {
  /** Rate in Mbit/s; must be a whole number of bit/s (e.g. 12, 2.4, 0.57). */
  rateMbps: number;
  /** Minimum length in ms (default: one exact period); rounded up to whole exact periods. */
  durationMs?: number;
}

/**
 * A constant-rate trace whose rate is exact over its period: with the rate
 * reduced to N opportunities in D ms (the lowest terms of
 * bit/s / (8000 * bytesPerOpportunity)), opportunity k of each period is at
 * ceil(k * D / N) ms, so the last is at D and several may share a millisecond.
 * 12 Mbit/s is one opportunity at 1 ms; 2 Mbit/s one at 6 ms; 0.57 Mbit/s 19
 * in 400 ms. Deterministic (no seed).
 */
export function constantRateTrace(options: ConstantRateOptions): Trace {
  positiveFinite('rateMbps', options.rateMbps);
  const bytes = bytesPer(options);
  const bitsPerSecond = Math.round(options.rateMbps * 1e6);
  check(
    bitsPerSecond > 0 && Math.abs(options.rateMbps * 1e6 - bitsPerSecond) <= 1e-6 * bitsPerSecond,
    `rateMbps must be a whole number of bit/s, got ${options.rateMbps} Mbit/s`,
  );
  check(bitsPerSecond <= 1e12, `rateMbps must be at most 1,000,000 Mbit/s, got ${options.rateMbps}`);
  const denominator = 8000 * bytes;
  const g = gcd(bitsPerSecond, denominator);
  const perPeriod = bitsPerSecond / g;
  const periodMs = denominator / g;
  const periods = options.durationMs === undefined ? 1 : (positiveFinite('durationMs', options.durationMs), Math.ceil(options.durationMs / periodMs));
  checkCount(perPeriod * periods, `a constant ${options.rateMbps} Mbit/s trace of ${periods} x ${periodMs} ms`);
  const times = new Float64Array(perPeriod * periods);
  for (let k = 1; k <= perPeriod; k++) times[k - 1] = Math.ceil((k * periodMs) / perPeriod);
  for (let p = 1; p < periods; p++) {
    const offset = p * periodMs;
    for (let k = 0; k < perPeriod; k++) times[p * perPeriod + k] = times[k]! + offset;
  }
  const source = `constant(rate=${fmt(options.rateMbps)}Mbps, bytes=${bytes}, period=${periodMs * periods}ms)`;
  return { source, times, period: periodMs * periods };
}

// ---------------------------------------------------------------- poisson

export interface PoissonOptions extends RandomOptions {
  /** Mean rate in Mbit/s. */
  rateMbps: number;
}

/** Opportunities form a Poisson process of the given mean rate. */
export function poissonTrace(options: PoissonOptions): Trace {
  positiveFinite('rateMbps', options.rateMbps);
  checkRandomOptions(options);
  const bytes = bytesPer(options);
  const lambda = perMs(options.rateMbps, bytes);
  const { durationMs } = options;
  checkCount(lambda * durationMs, `a ${options.rateMbps} Mbit/s Poisson trace of ${durationMs} ms`);
  const rng = createRng(options.seed);
  const out = new TimesBuilder();
  const meanGap = 1 / lambda;
  for (let t = rng.exponential(meanGap); t <= durationMs; t += rng.exponential(meanGap)) out.push(Math.ceil(t));
  return out.toTrace(
    `poisson(rate=${fmt(options.rateMbps)}Mbps, bytes=${bytes}, duration=${fmt(durationMs)}ms, seed=${options.seed})`,
  );
}

// ---------------------------------------------------------------- on/off

export interface OnOffOptions extends RandomOptions {
  /** Rate while on, in Mbit/s (opportunities evenly spaced in on-time). */
  rateMbps: number;
  /** Mean length of an on period, ms (exponentially distributed). */
  meanOnMs: number;
  /** Mean length of an off period, ms (exponentially distributed). */
  meanOffMs: number;
  /** State at time 0: 'on' (default), 'off', or 'random' (on with probability meanOn / (meanOn + meanOff)). */
  start?: 'on' | 'off' | 'random';
}

/**
 * An intermittent link: alternating on and off periods of exponentially
 * distributed lengths; while on, opportunities at the given rate, evenly
 * spaced in on-time (the spacing carries over from one on period to the next);
 * while off, none. The long-run mean rate is rate * meanOn / (meanOn + meanOff).
 */
export function onOffTrace(options: OnOffOptions): Trace {
  positiveFinite('rateMbps', options.rateMbps);
  positiveFinite('meanOnMs', options.meanOnMs);
  positiveFinite('meanOffMs', options.meanOffMs);
  checkRandomOptions(options);
  const start = options.start ?? 'on';
  check(start === 'on' || start === 'off' || start === 'random', `start must be on, off or random, got ${String(start)}`);
  const bytes = bytesPer(options);
  const lambda = perMs(options.rateMbps, bytes);
  const { durationMs, meanOnMs, meanOffMs } = options;
  checkCount(lambda * durationMs, `a ${options.rateMbps} Mbit/s on/off trace of ${durationMs} ms`);
  const cycles = durationMs / (meanOnMs + meanOffMs);
  check(
    cycles <= MAX_GENERATED_OPPORTUNITIES,
    `meanOnMs + meanOffMs (${meanOnMs + meanOffMs} ms) is too short for durationMs ${durationMs}: about ${Math.round(cycles)} on/off cycles, over the limit of ${MAX_GENERATED_OPPORTUNITIES}`,
  );
  const periods = createRng(options.seed).fork('periods');
  const spacing = 1 / lambda;
  let on = start === 'random' ? periods.next() < meanOnMs / (meanOnMs + meanOffMs) : start === 'on';
  const out = new TimesBuilder();
  let t = 0;
  let onTime = 0; // on-time elapsed before the current period
  let k = 1; // index of the next opportunity, at on-time k * spacing
  while (t < durationMs) {
    const end = Math.min(durationMs, t + periods.exponential(on ? meanOnMs : meanOffMs));
    if (on) {
      const onTimeAtEnd = onTime + (end - t);
      // Clamped so rounding error never pushes an opportunity past the period's end.
      const last = Math.ceil(end);
      for (; k * spacing <= onTimeAtEnd; k++) out.push(Math.min(last, Math.ceil(t + (k * spacing - onTime))));
      onTime = onTimeAtEnd;
    }
    t = end;
    on = !on;
  }
  return out.toTrace(
    `onoff(rate=${fmt(options.rateMbps)}Mbps, on=${fmt(meanOnMs)}ms, off=${fmt(meanOffMs)}ms, start=${start}, bytes=${bytes}, duration=${fmt(durationMs)}ms, seed=${options.seed})`,
  );
}

// ---------------------------------------------------------------- cellular

export interface CellularOptions extends RandomOptions {
  /** Mean rate in Mbit/s. */
  meanMbps: number;
  /** Standard deviation of the natural log of the rate (0: a Poisson trace; 1: strong fades and peaks). Default 0.8. */
  variability?: number;
  /** Correlation time of the log-rate, ms: how long fades and peaks last. Default 1000. */
  timeScaleMs?: number;
  /** The rate changes in steps of this many ms. Default 10. */
  stepMs?: number;
  /** Scale the drawn rate path so its time average is exactly meanMbps (default true); otherwise meanMbps is only the expectation. */
  exactMean?: boolean;
}

/** A standard normal draw (Box-Muller, one of the pair). */
function gaussian(rng: Rng): number {
  const u = 1 - rng.next(); // (0, 1]
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
}

/**
 * A cellular-like variable-rate trace: the rate is exp(X) where X is an
 * Ornstein-Uhlenbeck process (mean-reverting, stationary standard deviation
 * `variability`, correlation time `timeScaleMs`), held constant over steps of
 * `stepMs`, centred so the rate's mean is `meanMbps`; opportunities are a
 * Poisson process driven by that rate (a Cox process), so they are bursty at
 * short time scales too.
 */
export function cellularTrace(options: CellularOptions): Trace {
  positiveFinite('meanMbps', options.meanMbps);
  checkRandomOptions(options);
  const variability = options.variability ?? 0.8;
  const timeScaleMs = options.timeScaleMs ?? 1000;
  const stepMs = options.stepMs ?? 10;
  const exactMean = options.exactMean ?? true;
  check(Number.isFinite(variability) && variability >= 0 && variability <= 3, `variability must be in [0, 3], got ${variability}`);
  positiveFinite('timeScaleMs', timeScaleMs);
  positiveFinite('stepMs', stepMs);
  const { durationMs } = options;
  check(stepMs <= durationMs, `stepMs (${stepMs}) must not exceed durationMs (${durationMs})`);
  const steps = Math.ceil(durationMs / stepMs);
  check(steps <= MAX_GENERATED_OPPORTUNITIES, `durationMs / stepMs is ${steps} rate steps, over the limit of ${MAX_GENERATED_OPPORTUNITIES}`);
  const bytes = bytesPer(options);
  const meanPerMs = perMs(options.meanMbps, bytes);
  checkCount(meanPerMs * durationMs, `a ${options.meanMbps} Mbit/s cellular trace of ${durationMs} ms`);

  // The rate path: log-rate X is OU with mean mu chosen so E[exp(X)] = mean.
  const rateRng = createRng(options.seed).fork('rate');
  const arrivalRng = createRng(options.seed).fork('arrivals');
  const sigma = variability;
  const mu = Math.log(meanPerMs) - (sigma * sigma) / 2;
  const a = Math.exp(-stepMs / timeScaleMs);
  const innovation = sigma * Math.sqrt(1 - a * a);
  const rates = new Float64Array(steps);
  let x = mu + sigma * gaussian(rateRng);
  let weighted = 0;
  for (let i = 0; i < steps; i++) {
    rates[i] = Math.exp(x);
    weighted += rates[i]! * (Math.min(durationMs, (i + 1) * stepMs) - i * stepMs);
    x = mu + a * (x - mu) + innovation * gaussian(rateRng);
  }
  if (exactMean) {
    const scale = (meanPerMs * durationMs) / weighted;
    for (let i = 0; i < steps; i++) rates[i]! *= scale;
  }

  // Poisson arrivals of the piecewise-constant rate: each gap is an Exp(1) amount of integrated rate.
  const out = new TimesBuilder();
  let step = 0;
  let t = 0; // continuous time of the last arrival
  let need = arrivalRng.exponential(1);
  while (step < steps) {
    const stepEnd = Math.min(durationMs, (step + 1) * stepMs);
    const available = rates[step]! * (stepEnd - t);
    if (need <= available) {
      t = Math.min(stepEnd, t + need / rates[step]!);
      out.push(Math.ceil(t));
      need = arrivalRng.exponential(1);
    } else {
      need -= available;
      t = stepEnd;
      step++;
    }
  }
  return out.toTrace(
    `cellular(mean=${fmt(options.meanMbps)}Mbps, variability=${fmt(variability)}, timeScale=${fmt(timeScaleMs)}ms, step=${fmt(stepMs)}ms, exactMean=${exactMean}, bytes=${bytes}, duration=${fmt(durationMs)}ms, seed=${options.seed})`,
  );
}

// ---------------------------------------------------------------- capacity schedule

export interface CapacityStep {
  /** When this rate takes effect, ms from the trace's start (the first step at 0). */
  readonly atMs: number;
  /** Rate from then on, in Mbit/s; a whole number of bit/s. */
  readonly rateMbps: number;
}

export interface CapacityScheduleOptions extends CommonOptions {
  /** Piecewise-constant rates, in increasing order of atMs, the first at 0. */
  readonly steps: readonly CapacityStep[];
  /** Length of the trace in ms (a whole number, after the last step). */
  readonly durationMs: number;
}

/** ceil(a / b) for non-negative integers a, b > 0 below 2^53, exact (float division can round across an integer). */
function ceilDiv(a: number, b: number): number {
  let q = Math.floor(a / b);
  if (q * b > a) q--;
  if (q * b < a) q++;
  return q;
}

/**
 * A capacity schedule (piecewise-constant rates with change times, as the RFC
 * 8867 test cases give them) as a Mahimahi trace, exact to the opportunity:
 * in the piece [a, b) at R bit/s, opportunity k (k = 1, 2, ...) falls at
 * a + ceil(k * 8000 * bytes / R) ms for as long as that is at most b, so the
 * piece holds floor((b - a) * R / (8000 * bytes)) opportunities, the count
 * its rate gives, and no opportunity of one piece spills into the next.
 * The period is the last opportunity (Mahimahi's rule), at most durationMs:
 * a run that uses the schedule once should make durationMs cover it.
 */
export function capacityScheduleTrace(options: CapacityScheduleOptions): Trace {
  const { steps, durationMs } = options;
  const bytes = bytesPer(options);
  positiveFinite('durationMs', durationMs);
  check(Number.isInteger(durationMs), `durationMs must be a whole number of ms, got ${durationMs}`);
  check(steps.length > 0, 'a capacity schedule needs at least one step');
  check(steps[0]!.atMs === 0, `the first step of a capacity schedule must be at 0 ms, got ${steps[0]!.atMs}`);
  const bitRates = steps.map((step, i) => {
    check(Number.isInteger(step.atMs) && step.atMs >= 0, `step ${i}: atMs must be a whole number of ms >= 0, got ${step.atMs}`);
    if (i > 0) check(step.atMs > steps[i - 1]!.atMs, `step ${i}: atMs ${step.atMs} must be later than step ${i - 1}'s (${steps[i - 1]!.atMs})`);
    check(step.atMs < durationMs, `step ${i}: atMs ${step.atMs} must be before durationMs ${durationMs}`);
    positiveFinite(`step ${i}: rateMbps`, step.rateMbps);
    const bps = Math.round(step.rateMbps * 1e6);
    check(bps > 0 && Math.abs(step.rateMbps * 1e6 - bps) <= 1e-6 * bps, `step ${i}: rateMbps must be a whole number of bit/s, got ${step.rateMbps}`);
    check(bps <= 1e12, `step ${i}: rateMbps must be at most 1,000,000 Mbit/s, got ${step.rateMbps}`);
    return bps;
  });
  const bitsPerOpportunity = 8000 * bytes; // in bit-ms per second: an opportunity every bitsPerOpportunity / R ms
  let expected = 0;
  for (let i = 0; i < steps.length; i++) expected += ((steps[i + 1]?.atMs ?? durationMs) - steps[i]!.atMs) * bitRates[i]! / bitsPerOpportunity;
  checkCount(expected, `a capacity schedule of ${durationMs} ms`);
  const out = new TimesBuilder();
  for (let i = 0; i < steps.length; i++) {
    const from = steps[i]!.atMs;
    const to = steps[i + 1]?.atMs ?? durationMs;
    const count = Math.floor(((to - from) * bitRates[i]!) / bitsPerOpportunity);
    for (let k = 1; k <= count; k++) out.push(from + ceilDiv(k * bitsPerOpportunity, bitRates[i]!));
  }
  const described = steps.map((s) => `${fmt(s.rateMbps)}Mbps@${s.atMs}ms`).join(',');
  return out.toTrace(`schedule(${described}, bytes=${bytes}, duration=${durationMs}ms)`);
}
