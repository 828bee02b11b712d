// Frame rates and aspect ratios as the containers store them: integer ratios.

export interface Rational {
  readonly num: number;
  readonly den: number;
}

/** A rate given as a number or a ratio, as an integer ratio (60 is 60:1, 30000/1001 is 30000:1001, 29.97 is 2997:100). */
export function toRational(value: number | Rational, what: string): Rational {
  if (typeof value === 'object' && value !== null) {
    const { num, den } = value;
    if (!Number.isSafeInteger(num) || !Number.isSafeInteger(den) || num <= 0 || den <= 0 || num > 0xffffffff || den > 0xffffffff) {
      throw new RangeError(`${what} must be a ratio of positive 32-bit integers, got ${num}:${den}`);
    }
    return { num, den };
  }
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > 1e6) {
    throw new RangeError(`${what} must be a positive number up to 1e6, got ${value}`);
  }
  if (Number.isInteger(value)) return { num: value, den: 1 };
  for (const den of [1001, 1000, 100000]) {
    const num = Math.round(value * den);
    if (Math.abs(num / den - value) < 1e-9 * value) return reduce(num, den);
  }
  return reduce(Math.round(value * 1e6), 1e6);
}

function reduce(num: number, den: number): Rational {
  let a = num;
  let b = den;
  while (b !== 0) [a, b] = [b, a % b];
  return { num: num / a, den: den / a };
}
