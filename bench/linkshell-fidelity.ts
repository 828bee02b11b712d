// Fidelity of linkshell's real-time link: a sender saturating the uplink
// (1472-byte datagrams, 1504 bytes on the link: one whole opportunity each)
// on a constant 12 Mbit/s trace and on a cellular trace. Reports delivered
// throughput against the capacity the trace offered during the run, and how
// late departures were against their delivery opportunities, for each of
// linkshell's timers: the worker-thread alarm, setTimeout with the
// last millisecond spun, and plain setTimeout (the default, and the
// same-process baseline).
//
// Usage: node --import tsx bench/linkshell-fidelity.ts [seconds=30]

import { fileURLToPath } from 'node:url';
import { throughputFigures } from '../src/linkshell/summary.ts';
import { fmt, runLoad, TIMERS } from './linkshell-run.ts';

const seconds = Number(process.argv[2] ?? 30);
const shared = (name: string) => fileURLToPath(new URL(`../../shared/traces/${name}`, import.meta.url));
const traces = [
  { label: 'constant 12 Mbit/s', path: shared('12mbps.down') },
  { label: 'Verizon-LTE-short.down', path: shared('Verizon-LTE-short.down') },
];
const payload = 1472;
const offeredMbps = 30; // above both traces' peak rates: the queue never empties
const pps = Math.round((offeredMbps * 1e6) / 8 / payload);

console.log(`linkshell fidelity: ${seconds} s per run, ${pps} datagrams/s of ${payload} bytes offered (${offeredMbps} Mbit/s), droptail 1000 packets`);
const rows: string[][] = [];
for (const trace of traces) {
  let baselineP99 = NaN;
  for (const timer of TIMERS) {
    const run = await runLoad({
      args: ['--trace', trace.path, '--uplink-queue', 'droptail', '--uplink-queue-args', 'packets=1000', ...timer.args],
      pps,
      size: payload,
      durationMs: seconds * 1000,
    });
    const up = run.report.directions[0].stats;
    const t = throughputFigures(up, run.report.durationMs);
    const deliveredLinkBytes = run.counts.receivedBytes + 32 * run.counts.received;
    const lateness = up.departureLatenessMs;
    const p99 = lateness.quantile(0.99);
    if (timer === TIMERS[0]) baselineP99 = p99;
    rows.push([
      trace.label,
      timer.label,
      fmt(t.capacityMbps),
      fmt(t.throughputMbps),
      `${fmt(100 * t.utilization, 2)} %`,
      `${fmt((100 * deliveredLinkBytes) / up.capacityBytes, 2)} %`,
      `${fmt(lateness.quantile(0.5))} / ${fmt(p99)} / ${fmt(lateness.max())}`,
      fmt(p99 / baselineP99, 2),
      `${fmt(100 * run.cpu, 1)} %`,
      `${up.drops.queue}`,
    ]);
    console.log(rows[rows.length - 1].join(' | '));
  }
}
console.log('\n| trace | timer | capacity Mbit/s | link throughput Mbit/s | link utilization | delivered at peer / capacity | departure lateness p50 / p99 / max ms | p99 vs baseline | linkshell CPU | queue drops |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const row of rows) console.log(`| ${row.join(' | ')} |`);
