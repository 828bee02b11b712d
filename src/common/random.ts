// The one source of randomness in the toolkit: a seeded generator.
// Every random draw (loss, PIE's early drops, on/off periods, trace
// generators, endpoints) comes from an explicit Rng, never Math.random.
import seedrandom from 'seedrandom';

export interface Rng {
  /** The seed this generator was made from (a fork's is its parent's seed, "/" and the label): createRng(seed) repeats its draws. */
  readonly seed: string;
  /** Uniform in [0, 1). */
  next(): number;
  /** Exponentially distributed with the given mean (same unit as the mean). */
  exponential(mean: number): number;
  /** Integer uniform in [0, n). */
  int(n: number): number;
  /** A new, independent generator derived from this one's seed and a label. */
  fork(label: string): Rng;
}

/** A seeded generator (seedrandom's Alea: fast, good statistics, stable across versions). */
export function createRng(seed: string | number): Rng {
  const key = String(seed);
  const prng = seedrandom.alea(key);
  return {
    seed: key,
    next: () => prng(),
    exponential: (mean) => {
      if (!(mean > 0)) throw new RangeError(`exponential mean must be > 0, got ${mean}`);
      // 1 - u is in (0, 1], so the logarithm is finite.
      return -mean * Math.log(1 - prng());
    },
    int: (n) => Math.floor(prng() * n),
    fork: (label) => createRng(`${key}/${label}`),
  };
}
