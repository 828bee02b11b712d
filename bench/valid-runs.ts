// The benches' one way of keeping the machine's figures out of a table: a
// call whose validity verdict (src/results/validity.ts, in its summary.json)
// is invalid is discarded and run again, up to --attempts times, and never
// averaged in; at the end the bench prints how many calls it discarded and
// why. Used by bench/webrtc.ts, bench/turn-tcp.ts and bench/gcc-vs-chromium.ts.
import type { Validity } from '../src/results/validity.ts';

/** Calls run per row at most (the first and two reruns) unless --attempts says otherwise. */
export const DEFAULT_ATTEMPTS = 3;

/** `--attempts N` taken out of `argv` (anywhere in it): N and the other arguments; a bad N is an error naming it. */
export function takeAttempts(argv: readonly string[]): { attempts: number; rest: string[] } {
  const rest = [...argv];
  const at = rest.indexOf('--attempts');
  if (at < 0) return { attempts: DEFAULT_ATTEMPTS, rest };
  const text = rest[at + 1];
  const attempts = Number(text);
  if (!(Number.isInteger(attempts) && attempts >= 1 && attempts <= 100)) throw new Error(`--attempts must be an integer from 1 to 100, got ${JSON.stringify(text)}`);
  rest.splice(at, 2);
  return { attempts, rest };
}

export interface Discarded {
  readonly label: string;
  readonly attempt: number;
  readonly reasons: readonly string[];
}

export class ValidRuns {
  readonly discarded: Discarded[] = [];
  private calls = 0;

  constructor(
    readonly attempts: number,
    private readonly log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  ) {}

  /**
   * Runs `run` (attempt 1, 2, ...) until its result's verdict is valid, at
   * most `attempts` times; returns the valid result, or undefined when every
   * attempt was invalid or failed (each is counted). A result without a
   * verdict is not trusted: discarded as such.
   */
  async firstValid<T>(label: string, run: (attempt: number) => Promise<T | undefined> | T | undefined, verdict: (result: T) => Validity | undefined): Promise<T | undefined> {
    for (let attempt = 1; attempt <= this.attempts; attempt++) {
      this.calls++;
      const result = await run(attempt);
      if (result === undefined) {
        this.discard(label, attempt, ['the call failed']);
        continue;
      }
      const v = verdict(result);
      if (v?.verdict === 'valid') return result;
      this.discard(label, attempt, v === undefined ? ['no validity verdict in its results'] : v.reasons);
    }
    this.log(`bench: ${label}: no valid call in ${this.attempts} attempt(s); the row is left out`);
    return undefined;
  }

  /** "discarded 2 of 9 calls: ..." with each one's label, attempt and reasons. */
  report(): string {
    const lines = [`bench: discarded ${this.discarded.length} of ${this.calls} call(s) as invalid (at most ${this.attempts} attempt(s) per call)`];
    for (const d of this.discarded) lines.push(`  ${d.label}, attempt ${d.attempt}: ${d.reasons.join('; ')}`);
    return lines.join('\n');
  }

  private discard(label: string, attempt: number, reasons: readonly string[]): void {
    this.discarded.push({ label, attempt, reasons });
    this.log(`bench: ${label}, attempt ${attempt}: discarded (${reasons.join('; ')})`);
  }
}

/** Trace seconds two runs' media started at differ by more than one frame interval: they cannot be set side by side. */
export function sameTraceStart(a: number | null | undefined, b: number | null | undefined, fps: number): boolean {
  return typeof a === 'number' && typeof b === 'number' && Math.abs(a - b) <= 1 / fps + 1e-9;
}
