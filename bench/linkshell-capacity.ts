// Capacity of linkshell on one core: 200-byte datagrams at increasing rates
// through an unconstrained trace (100 opportunities per millisecond, about
// 1.2 Gbit/s), each rate for a few seconds; a rate is sustained when the peer
// receives what was sent (>= 99.5%) and departures keep to their
// opportunities (p99 lateness <= 1 ms). Then linkshell's CPU use carrying
// traffic at the mean rate of the ATT LTE trace (5.19 Mbit/s of 1472-byte
// datagrams through ATT-LTE-driving.down) with each timer (plain setTimeout
// is the same-process baseline).
//
// Usage: npx tsx bench/linkshell-capacity.ts [seconds-per-rate=3] [att-seconds=30] [rates=10000,25000,50000,75000,100000]

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, runLoad, TIMERS } from './linkshell-run.ts';

const seconds = Number(process.argv[2] ?? 3);
const attSeconds = Number(process.argv[3] ?? 30);
const rates = (process.argv[4] ?? '10000,25000,50000,75000,100000').split(',').map(Number);
const dir = mkdtempSync(join(tmpdir(), 'linkshell-bench-'));
const unconstrained = join(dir, 'unconstrained.trace');
writeFileSync(unconstrained, '1\n'.repeat(100));

console.log(`linkshell capacity: 200-byte datagrams through ${unconstrained} (100 opportunities/ms), ${seconds} s per rate`);
console.log('| offered pkt/s | sent pkt/s | delivered / sent | lateness p50 / p99 / max ms | linkshell CPU | sustained |');
console.log('|---|---|---|---|---|---|');
let best = 0;
for (const pps of rates) {
  const run = await runLoad({ args: ['--trace', unconstrained], pps, size: 200, durationMs: seconds * 1000 });
  const up = run.report.directions[0].stats;
  const delivered = run.counts.received / run.counts.sent;
  const late = up.departureLatenessMs;
  const sustained = delivered >= 0.995 && late.quantile(0.99) <= 1;
  if (sustained) best = Math.max(best, pps);
  console.log(
    `| ${pps} | ${fmt(run.counts.sent / (seconds), 0)} | ${fmt(100 * delivered, 2)} % | ${fmt(late.quantile(0.5))} / ${fmt(late.quantile(0.99))} / ${fmt(late.max())} | ${fmt(100 * run.cpu, 1)} % | ${sustained ? 'yes' : 'no'} |`,
  );
}
console.log(`highest sustained rate: ${best} datagrams/s\n`);

const att = fileURLToPath(new URL('../../shared/traces/ATT-LTE-driving.down', import.meta.url));
const attPps = Math.round((5.187e6 / 8) / 1504);
console.log(`linkshell CPU at the ATT LTE rate: ${attPps} datagrams/s of 1472 bytes through ATT-LTE-driving.down, ${attSeconds} s`);
console.log('| timer | CPU | CPU vs baseline | lateness p50 / p99 / max ms | delivered / sent |');
console.log('|---|---|---|---|---|');
let baselineCpu = NaN;
for (const timer of TIMERS) {
  const run = await runLoad({ args: ['--trace', att, ...timer.args], pps: attPps, size: 1472, durationMs: attSeconds * 1000 });
  const late = run.report.directions[0].stats.departureLatenessMs;
  if (timer === TIMERS[0]) baselineCpu = run.cpu;
  console.log(
    `| ${timer.label} | ${fmt(100 * run.cpu, 1)} % | ${fmt(run.cpu / baselineCpu, 2)} | ${fmt(late.quantile(0.5))} / ${fmt(late.quantile(0.99))} / ${fmt(late.max())} | ${fmt((100 * run.counts.received) / run.counts.sent, 2)} % |`,
  );
}
