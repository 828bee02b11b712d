import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  capacityScheduleTrace,
  cellularTrace,
  constantRateTrace,
  onOffTrace,
  poissonTrace,
  MAX_GENERATED_OPPORTUNITIES,
} from '../../src/link-emu/trace-generators.ts';
import { assertValidTrace, formatTrace } from '../../src/link-emu/trace-format.ts';
import { parseTrace } from '../../src/link-emu/trace-parse.ts';
import { traceMeanRateMbps, type Trace } from '../../src/link-emu/trace.ts';

/** Mean rate over the period in Mbit/s at `bytes` per opportunity. */
function mbps(trace: Trace, bytes = 1500): number {
  return (trace.times.length * bytes * 8) / (trace.period * 1000);
}

/** Opportunities per bin of `binMs` over the period. */
function counts(trace: Trace, binMs: number): number[] {
  const out = new Array<number>(Math.ceil(trace.period / binMs)).fill(0);
  for (const t of trace.times) out[Math.min(out.length - 1, Math.floor(t / binMs))]!++;
  return out;
}

function meanOf(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

function cv(xs: number[]): number {
  const m = meanOf(xs);
  return Math.sqrt(meanOf(xs.map((x) => (x - m) ** 2))) / m;
}

function lag1(xs: number[]): number {
  const m = meanOf(xs);
  let num = 0;
  let den = 0;
  for (let i = 0; i < xs.length; i++) {
    den += (xs[i]! - m) ** 2;
    if (i > 0) num += (xs[i]! - m) * (xs[i - 1]! - m);
  }
  return num / den;
}

/** Valid, and survives the file format unchanged. */
function roundTrips(trace: Trace): void {
  assertValidTrace(trace);
  const again = parseTrace(formatTrace(trace), 'again');
  assert.equal(Array.from(again.times), Array.from(trace.times));
  assert.is(again.period, trace.period);
}

test('constant: the shortest exact period, opportunities evenly spread', () => {
  const cases: Array<[number, number[]]> = [
    [12, [1]],
    [6, [2]],
    [2, [6]],
    [2.4, [5]],
    [24, [1, 1]],
    [1.6, [8, 15]],
    [18, [1, 2, 2]], // 3 in 2 ms
  ];
  for (const [rate, times] of cases) {
    const trace = constantRateTrace({ rateMbps: rate });
    assert.equal(Array.from(trace.times), times, `${rate} Mbit/s`);
    assert.is(trace.period, times[times.length - 1]);
  }
});

test('constant: the rate is exact over the period, for awkward rates too', () => {
  for (const rate of [0.57, 0.5, 1, 3.3, 7.77, 12, 13.5, 100, 1000, 0.000008]) {
    for (const bytes of [1500, 1504]) {
      const trace = constantRateTrace({ rateMbps: rate, bytesPerOpportunity: bytes });
      // count * bytes * 8 bits in `period` ms equals rate bit/s exactly (integer arithmetic).
      const bitsPerSecond = Math.round(rate * 1e6);
      assert.is(trace.times.length * bytes * 8 * 1000, bitsPerSecond * trace.period, `${rate} Mbit/s, ${bytes} B`);
      roundTrips(trace);
      // Evenly spread: consecutive gaps differ by at most 1 ms (counting the wrap-around).
      const gaps = Array.from(trace.times, (t, i) => t - (i === 0 ? trace.times[trace.times.length - 1]! - trace.period : trace.times[i - 1]!));
      assert.ok(Math.max(...gaps) - Math.min(...gaps) <= 1, `${rate}: gaps ${Math.min(...gaps)}..${Math.max(...gaps)}`);
    }
  }
  const fast = constantRateTrace({ rateMbps: 100 });
  assert.equal(Array.from(fast.times.subarray(0, 9)), [1, 1, 1, 1, 1, 1, 1, 1, 2]); // repeated timestamps
});

test('traceMeanRateMbps: opportunities x bytes over the period', () => {
  assert.is(traceMeanRateMbps(constantRateTrace({ rateMbps: 2.4 })), 2.4);
  assert.is(traceMeanRateMbps({ source: 's', times: Float64Array.from([1]), period: 1 }, 1504), 12.032);
  assert.is(traceMeanRateMbps({ source: 's', times: Float64Array.from([0, 3, 3, 4]), period: 4 }), 12);
});

test('constant: a duration is rounded up to whole exact periods', () => {
  const trace = constantRateTrace({ rateMbps: 2, durationMs: 20 });
  assert.equal(Array.from(trace.times), [6, 12, 18, 24]);
  assert.is(trace.period, 24);
  assert.is(constantRateTrace({ rateMbps: 12, durationMs: 1000 }).times.length, 1000);
});

test('constant: bad arguments are RangeErrors naming the option and value', () => {
  assert.throws(() => constantRateTrace({ rateMbps: 0 }), /rateMbps must be a finite number > 0, got 0/);
  assert.throws(() => constantRateTrace({ rateMbps: NaN }), /rateMbps .* got NaN/);
  assert.throws(() => constantRateTrace({ rateMbps: 1e-7 }), /whole number of bit\/s/);
  assert.throws(() => constantRateTrace({ rateMbps: 12, bytesPerOpportunity: 0 }), /bytesPerOpportunity must be an integer/);
  assert.throws(() => constantRateTrace({ rateMbps: 12, durationMs: -1 }), /durationMs/);
  assert.throws(() => constantRateTrace({ rateMbps: 120000, durationMs: 1e6 }), /over the limit of 10000000/);
  assert.is(MAX_GENERATED_OPPORTUNITIES, 10_000_000);
});

test('poisson: deterministic per seed; mean rate and dispersion of a Poisson process', () => {
  const a = poissonTrace({ rateMbps: 2, durationMs: 600_000, seed: 7 });
  const b = poissonTrace({ rateMbps: 2, durationMs: 600_000, seed: 7 });
  const c = poissonTrace({ rateMbps: 2, durationMs: 600_000, seed: 8 });
  assert.equal(a.times, b.times);
  assert.not.equal(a.times, c.times);
  roundTrips(a);
  assert.ok(a.period <= 600_000 && a.period > 599_000, String(a.period));
  // 100,000 expected opportunities: the standard deviation of the mean is 0.3%.
  assert.ok(Math.abs(mbps(a) / 2 - 1) < 0.015, `mean ${mbps(a)}`);
  // Counts in 100 ms bins: variance / mean is 1 for a Poisson process.
  const bins = counts(a, 100);
  const m = meanOf(bins);
  const dispersion = meanOf(bins.map((x) => (x - m) ** 2)) / m;
  assert.ok(dispersion > 0.93 && dispersion < 1.07, `dispersion ${dispersion}`);
});

test('poisson: bad arguments and an empty result are errors', () => {
  assert.throws(() => poissonTrace({ rateMbps: 2, durationMs: 0, seed: 1 }), /durationMs must be a finite number > 0/);
  assert.throws(() => poissonTrace({ rateMbps: 2, durationMs: 10.5, seed: 1 }), /durationMs must be a whole number of ms/);
  assert.throws(() => poissonTrace({ rateMbps: -1, durationMs: 10, seed: 1 }), /rateMbps/);
  assert.throws(() => poissonTrace({ rateMbps: 0.001, durationMs: 10, seed: 1 }), /no opportunity fell in the duration/);
});

test('onoff: on fraction, rate while on, deterministic per seed', () => {
  const options = { rateMbps: 12, meanOnMs: 200, meanOffMs: 50, durationMs: 600_000, seed: 'x' };
  const trace = onOffTrace(options);
  assert.equal(trace.times, onOffTrace(options).times);
  roundTrips(trace);
  // At 12 Mbit/s an on link has one opportunity per ms: the ms with one are the on time.
  const ms = counts(trace, 1);
  const onFraction = ms.filter((n) => n > 0).length / ms.length;
  assert.ok(Math.abs(onFraction - 0.8) < 0.03, `on fraction ${onFraction}`);
  assert.ok(ms.every((n) => n <= 2), 'more than the on rate in one ms');
  assert.ok(Math.abs(mbps(trace) / (12 * 0.8) - 1) < 0.04, `mean ${mbps(trace)}`);
  // About one off period per 250 ms cycle: gaps longer than 1 ms.
  let offPeriods = 0;
  for (let i = 1; i < trace.times.length; i++) if (trace.times[i]! - trace.times[i - 1]! > 1) offPeriods++;
  assert.ok(offPeriods > 2400 * 0.85 && offPeriods < 2400 * 1.05, `off periods ${offPeriods}`);
});

test('onoff: the rate while on carries over between on periods; start state', () => {
  const slow = onOffTrace({ rateMbps: 0.6, meanOnMs: 100, meanOffMs: 100, durationMs: 400_000, seed: 3 });
  // 0.6 Mbit/s = one opportunity per 20 ms of on time: over the on time the count is exact.
  const onTime = 400_000 * 0.5;
  assert.ok(Math.abs(slow.times.length / (onTime / 20) - 1) < 0.05, `${slow.times.length}`);
  const off = onOffTrace({ rateMbps: 12, meanOnMs: 100, meanOffMs: 1000, durationMs: 10_000, seed: 4, start: 'off' });
  const on = onOffTrace({ rateMbps: 12, meanOnMs: 100, meanOffMs: 1000, durationMs: 10_000, seed: 4, start: 'on' });
  assert.is(on.times[0], 1);
  assert.ok(off.times[0]! > 1, String(off.times[0]));
  let startsOn = 0;
  for (let seed = 0; seed < 200; seed++) {
    const t = onOffTrace({ rateMbps: 12, meanOnMs: 300, meanOffMs: 100, durationMs: 2000, seed, start: 'random' });
    if (t.times[0] === 1) startsOn++;
  }
  assert.ok(startsOn > 120 && startsOn < 180, `random start on ${startsOn}/200 (expected 150)`);
  assert.throws(() => onOffTrace({ rateMbps: 12, meanOnMs: 0, meanOffMs: 1, durationMs: 10, seed: 1 }), /meanOnMs must be/);
  assert.throws(() => onOffTrace({ rateMbps: 0.01, meanOnMs: 1e-6, meanOffMs: 1e-6, durationMs: 1e6, seed: 1 }), /on\/off cycles, over the limit/);
  assert.throws(() => onOffTrace({ rateMbps: 12, meanOnMs: 1, meanOffMs: 1, durationMs: 10, seed: 1, start: 'maybe' as 'on' }), /start must be on, off or random/);
});

test('cellular: exact mean, deterministic per seed, period within the duration', () => {
  const options = { meanMbps: 6, durationMs: 300_000, seed: 11 };
  const trace = cellularTrace(options);
  assert.equal(trace.times, cellularTrace(options).times);
  assert.not.equal(trace.times, cellularTrace({ ...options, seed: 12 }).times);
  roundTrips(trace);
  assert.ok(trace.period <= 300_000 && trace.period > 299_000, String(trace.period));
  // The rate path averages exactly 6 Mbit/s; arrivals add Poisson noise (150,000 expected: 0.26%).
  assert.ok(Math.abs(mbps(trace) / 6 - 1) < 0.015, `mean ${mbps(trace)}`);
});

test('cellular: variability and time scale shape the rate', () => {
  const base = { meanMbps: 6, durationMs: 300_000, seed: 5 };
  const perSecond = (t: Trace) => counts(t, 1000);
  const flat = cv(perSecond(cellularTrace({ ...base, variability: 0 })));
  const mild = cv(perSecond(cellularTrace({ ...base, variability: 0.3 })));
  const strong = cv(perSecond(cellularTrace({ ...base, variability: 1 })));
  // variability 0 is a Poisson process: 500 per second, CV 1/sqrt(500) = 0.045.
  assert.ok(flat < 0.07, `flat ${flat}`);
  assert.ok(mild > 0.15 && mild < 0.4, `mild ${mild}`);
  assert.ok(strong > 0.7 && strong < 2, `strong ${strong}`);
  const slow = lag1(counts(cellularTrace({ ...base, timeScaleMs: 5000 }), 100));
  const fast = lag1(counts(cellularTrace({ ...base, timeScaleMs: 20 }), 100));
  assert.ok(slow > 0.7, `slow lag-1 ${slow}`);
  assert.ok(fast < 0.3, `fast lag-1 ${fast}`);
});

test('cellular: without exactMean the mean is only expected', () => {
  const means = [1, 2, 3, 4, 5, 6, 7, 8].map((seed) => mbps(cellularTrace({ meanMbps: 6, durationMs: 60_000, seed, exactMean: false })));
  assert.ok(new Set(means.map((m) => m.toFixed(2))).size === means.length);
  const average = meanOf(means);
  assert.ok(average > 4.5 && average < 7.5, `average ${average}`);
});

test('cellular: bad arguments are RangeErrors', () => {
  const ok = { meanMbps: 6, durationMs: 1000, seed: 1 };
  assert.throws(() => cellularTrace({ ...ok, variability: -1 }), /variability must be in \[0, 3\], got -1/);
  assert.throws(() => cellularTrace({ ...ok, variability: 4 }), /variability/);
  assert.throws(() => cellularTrace({ ...ok, timeScaleMs: 0 }), /timeScaleMs must be/);
  assert.throws(() => cellularTrace({ ...ok, stepMs: 2000 }), /stepMs \(2000\) must not exceed durationMs/);
  assert.throws(() => cellularTrace({ ...ok, meanMbps: Infinity }), /meanMbps must be a finite number/);
  assert.throws(() => cellularTrace({ ...ok, durationMs: 1e9, stepMs: 1 }), /rate steps, over the limit/);
});

test('sources describe the generator and its parameters', () => {
  assert.is(constantRateTrace({ rateMbps: 2.4 }).source, 'constant(rate=2.4Mbps, bytes=1500, period=5ms)');
  assert.match(poissonTrace({ rateMbps: 2, durationMs: 1000, seed: 'abc' }).source, /^poisson\(rate=2Mbps, .*seed=abc\)$/);
  assert.match(cellularTrace({ meanMbps: 6, durationMs: 1000, seed: 1 }).source, /variability=0.8, timeScale=1000ms/);
});

test.run();

test('capacity schedule: each piece delivers exactly its rate, to the opportunity', () => {
  const steps = [
    { atMs: 0, rateMbps: 1 },
    { atMs: 40_000, rateMbps: 2.5 },
    { atMs: 60_000, rateMbps: 0.6 },
    { atMs: 80_000, rateMbps: 1 },
  ];
  for (const bytes of [1500, 1504]) {
    const trace = capacityScheduleTrace({ steps, durationMs: 100_000, bytesPerOpportunity: bytes });
    roundTrips(trace);
    const bounds = [0, 40_000, 60_000, 80_000, 100_000];
    for (let i = 0; i < steps.length; i++) {
      const [a, b] = [bounds[i]!, bounds[i + 1]!];
      const inPiece = Array.from(trace.times).filter((t) => t > a && t <= b);
      const exact = ((b - a) * steps[i]!.rateMbps * 1e6) / (8000 * bytes);
      // The piece holds floor(exact) opportunities: less than one short of its rate, never more.
      assert.is(inPiece.length, Math.floor(exact), `piece ${i} at ${bytes} bytes`);
      // And any prefix of it too: by time a + x, floor(x * R / (8000 * bytes)) opportunities.
      for (const x of [1, 7, 999, 12_345, b - a - 1]) {
        const seen = inPiece.filter((t) => t <= a + x).length;
        assert.is(seen, Math.floor((x * steps[i]!.rateMbps * 1e6) / (8000 * bytes)), `piece ${i}, ${x} ms in`);
      }
    }
  }
});

test('capacity schedule: a constant schedule equals the constant-rate trace over whole periods', () => {
  const schedule = capacityScheduleTrace({ steps: [{ atMs: 0, rateMbps: 2 }], durationMs: 600 });
  const constant = constantRateTrace({ rateMbps: 2, durationMs: 600 });
  assert.equal(Array.from(schedule.times), Array.from(constant.times));
});

test('capacity schedule: bad steps are refused with the step named', () => {
  assert.throws(() => capacityScheduleTrace({ steps: [], durationMs: 10 }), /at least one step/);
  assert.throws(() => capacityScheduleTrace({ steps: [{ atMs: 5, rateMbps: 1 }], durationMs: 10 }), /first step .* at 0 ms/);
  assert.throws(() => capacityScheduleTrace({ steps: [{ atMs: 0, rateMbps: 1 }, { atMs: 0, rateMbps: 2 }], durationMs: 10 }), /step 1: atMs 0 must be later/);
  assert.throws(() => capacityScheduleTrace({ steps: [{ atMs: 0, rateMbps: 1 }, { atMs: 20, rateMbps: 2 }], durationMs: 10 }), /step 1: atMs 20 must be before/);
  assert.throws(() => capacityScheduleTrace({ steps: [{ atMs: 0, rateMbps: 1e-7 }], durationMs: 10 }), /step 0: rateMbps must be a whole number/);
  assert.throws(() => capacityScheduleTrace({ steps: [{ atMs: 0, rateMbps: 0 }], durationMs: 10 }), /step 0: rateMbps must be a finite number > 0/);
});
