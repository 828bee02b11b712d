// Precision of the wall-clock scheduler alone (no traffic): a callback due
// every millisecond for N seconds, each scheduled at an absolute time, with
// plain setTimeout sleeps (--spin 0, the same-process baseline) and with the
// last 0.5 or 1 ms before each due time polled, and with the worker-thread
// alarm (src/net/thread-alarm.ts). Prints lateness percentiles,
// p99 against the baseline, and CPU use.
//
// Usage: node --import tsx bench/linkshell-timer.ts [seconds=3]

import { Histogram } from '../src/linkshell/histogram.ts';
import { WallClockScheduler } from '../src/net/wall-clock.ts';

const seconds = Number(process.argv[2] ?? 3);
const ticks = seconds * 1000;
let baselineP99 = NaN;
console.log(`wall-clock scheduler: ${ticks} callbacks, one per ms`);
console.log('| timer | lateness p50 ms | p99 ms | max ms | p99 vs baseline | CPU |');
console.log('|---|---|---|---|---|---|');
for (const spin of [0, 0.5, 1, -1]) {
  const lateness = new Histogram();
  const scheduler = new WallClockScheduler({ spinMs: Math.max(0, spin), timer: spin < 0 ? 'thread' : 'timeout', onLateness: (ms) => lateness.add(ms) });
  const t0 = Math.ceil(scheduler.now());
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  await new Promise<void>((resolve) => {
    const tick = (k: number) => {
      if (k === ticks) return resolve();
      scheduler.at(t0 + k + 1, () => tick(k + 1));
    };
    tick(0);
  });
  const cpu = process.cpuUsage(cpu0);
  const wall = performance.now() - wall0;
  scheduler.close();
  const p99 = lateness.quantile(0.99);
  if (spin === 0) baselineP99 = p99;
  const label = spin === 0 ? 'setTimeout only (baseline)' : spin < 0 ? 'worker-thread alarm' : `setTimeout, spin ${spin} ms`;
  console.log(`| ${label} | ${lateness.quantile(0.5).toFixed(3)} | ${p99.toFixed(3)} | ${lateness.max().toFixed(3)} | ${(p99 / baselineP99).toFixed(2)} | ${((cpu.user + cpu.system) / 10 / wall).toFixed(1)} % |`);
}
