// The machine's CPU contention over an interval, for a real-time run's
// validity (validity.ts): Linux's pressure stall information (PSI,
// /proc/pressure/cpu, the "some" line's total: microseconds in which at least
// one runnable task waited for a CPU) and the load average. A kernel without
// PSI gives only the load average.
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';

export interface CpuSample {
  /** Monotonic ms when taken. */
  readonly atMs: number;
  /** PSI "some" total in µs, when the kernel has it. */
  readonly pressureUs?: number;
  readonly load1: number;
}

/** Parses /proc/pressure/cpu's text: the "some" line's total, in µs. */
export function parsePressureTotal(text: string): number | undefined {
  const match = /^some .*\btotal=(\d+)/m.exec(text);
  return match === null ? undefined : Number(match[1]);
}

export function sampleCpu(now: () => number = () => performance.timeOrigin + performance.now(), path = '/proc/pressure/cpu'): CpuSample {
  let pressureUs: number | undefined;
  try {
    pressureUs = parsePressureTotal(readFileSync(path, 'utf8'));
  } catch {
    pressureUs = undefined;
  }
  return { atMs: now(), ...(pressureUs === undefined ? {} : { pressureUs }), load1: loadavg()[0] };
}

/** The facts of the interval between two samples: wall seconds, the CPU pressure share, the load at both ends. */
export function cpuFacts(start: CpuSample, end: CpuSample, cores = availableParallelism()) {
  const wallS = Math.max(0, end.atMs - start.atMs) / 1000;
  const pressure = start.pressureUs !== undefined && end.pressureUs !== undefined && wallS > 0 ? Math.min(1, (end.pressureUs - start.pressureUs) / 1e6 / wallS) : undefined;
  return { wallS, ...(pressure === undefined ? {} : { cpuPressure: pressure }), load: { start: start.load1, end: end.load1, cores } };
}
