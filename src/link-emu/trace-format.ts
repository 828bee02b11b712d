// Writing a Trace in the Mahimahi format: one integer millisecond per line,
// each line ending with "\n" (so parseTrace(formatTrace(t)) reproduces t).
import { MAX_TRACE_TIMESTAMP_MS } from './trace-parse.ts';
import type { Trace } from './trace.ts';

/**
 * Checks what the Trace interface promises and the file format needs: at
 * least one entry, whole non-negative milliseconds (at most 2^53 - 1),
 * non-decreasing, the period equal to the last entry and > 0. Throws a
 * RangeError naming the trace, the entry and its value.
 */
export function assertValidTrace(trace: Trace): void {
  const { times, period, source } = trace;
  if (times.length === 0) throw new RangeError(`trace ${source}: no timestamps`);
  let previous = 0;
  for (let i = 0; i < times.length; i++) {
    const t = times[i]!;
    if (!Number.isInteger(t) || t < 0 || t > MAX_TRACE_TIMESTAMP_MS) {
      throw new RangeError(`trace ${source}: entry ${i} is ${t}, not a whole number of milliseconds in [0, 2^53 - 1]`);
    }
    if (t < previous) throw new RangeError(`trace ${source}: entry ${i} (${t}) is lower than entry ${i - 1} (${previous})`);
    previous = t;
  }
  if (previous === 0) throw new RangeError(`trace ${source}: the last timestamp is 0`);
  if (period !== previous) throw new RangeError(`trace ${source}: period ${period} differs from the last timestamp ${previous}`);
}

/** The trace as Mahimahi trace text. Throws a RangeError if the trace breaks its invariants. */
export function formatTrace(trace: Trace): string {
  assertValidTrace(trace);
  const { times } = trace;
  // Chunks keep the intermediate arrays small for traces of millions of lines.
  const chunks: string[] = [];
  const CHUNK = 65536;
  for (let start = 0; start < times.length; start += CHUNK) {
    const end = Math.min(times.length, start + CHUNK);
    let text = '';
    for (let i = start; i < end; i++) text += `${times[i]}\n`;
    chunks.push(text);
  }
  return chunks.join('');
}
