// A fixed-memory histogram of non-negative millisecond values (queueing
// delays, timer lateness) with exact count, mean and maximum and quantiles
// to 10 microseconds below 100 ms and to 0.5% above. Memory stays flat
// however long linkshell runs.

const LINEAR_LIMIT_MS = 100;
const LINEAR_STEP_MS = 0.01;
const LINEAR_BUCKETS = Math.round(LINEAR_LIMIT_MS / LINEAR_STEP_MS);
const LOG_RATIO = 1.005;
const LOG_BUCKETS = 4096; // up to 100 ms * 1.005^4096, far beyond any run

export interface HistogramSummary {
  count: number;
  mean: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export class Histogram {
  private readonly buckets = new Uint32Array(LINEAR_BUCKETS + LOG_BUCKETS);
  private total = 0;
  private sum = 0;
  private minimum = Infinity;
  private maximum = -Infinity;

  add(valueMs: number): void {
    if (!(valueMs >= 0) || !Number.isFinite(valueMs)) throw new RangeError(`histogram value must be a finite number >= 0, got ${valueMs}`);
    this.buckets[bucketOf(valueMs)]++;
    this.total++;
    this.sum += valueMs;
    if (valueMs < this.minimum) this.minimum = valueMs;
    if (valueMs > this.maximum) this.maximum = valueMs;
  }

  count(): number {
    return this.total;
  }

  max(): number {
    return this.total > 0 ? this.maximum : NaN;
  }

  mean(): number {
    return this.total > 0 ? this.sum / this.total : NaN;
  }

  /** The q-quantile (0..1): the value below which a fraction q of the samples lie (NaN when empty). */
  quantile(q: number): number {
    if (!(q >= 0 && q <= 1)) throw new RangeError(`quantile must be in [0, 1], got ${q}`);
    if (this.total === 0) return NaN;
    const rank = Math.max(1, Math.ceil(q * this.total));
    let seen = 0;
    const buckets = this.buckets;
    for (let i = 0; i < buckets.length; i++) {
      seen += buckets[i];
      if (seen >= rank) return Math.min(this.maximum, Math.max(this.minimum, valueOf(i)));
    }
    return this.maximum;
  }

  summary(): HistogramSummary {
    return { count: this.total, mean: this.mean(), p50: this.quantile(0.5), p95: this.quantile(0.95), p99: this.quantile(0.99), max: this.max() };
  }
}

function bucketOf(v: number): number {
  if (v < LINEAR_LIMIT_MS) return Math.floor(v / LINEAR_STEP_MS + 1e-9);
  const i = Math.floor(Math.log(v / LINEAR_LIMIT_MS) / Math.log(LOG_RATIO));
  return LINEAR_BUCKETS + Math.min(i, LOG_BUCKETS - 1);
}

/** A representative value of bucket i: its lower bound in the linear range, its geometric middle above. */
function valueOf(i: number): number {
  if (i < LINEAR_BUCKETS) return i * LINEAR_STEP_MS;
  return LINEAR_LIMIT_MS * Math.pow(LOG_RATIO, i - LINEAR_BUCKETS + 0.5);
}
