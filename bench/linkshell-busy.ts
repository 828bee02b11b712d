// linkshell at exactly a link's capacity on a busy machine: 1,000 datagrams/s
// of 1,000 bytes through a 12 Mbit/s trace (one 1504-byte opportunity per
// millisecond: one datagram per opportunity) into a droptail queue of 100
// packets, once on the machine as it is and once with N busy processes
// (`yes > /dev/null`, this benchmark's priority) beside it, the two
// interleaved --pairs times. Reported per run, from linkshell's own
// --summary-json: queue drops, departure lateness p99, the verdict, and the
// bytes delivered against the quiet run's.
//
// Usage: node --import tsx bench/linkshell-busy.ts [--seconds 8] [--yes 2] [--pairs 2]
import { spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { option, refuseUnknownOptions } from './options.ts';

refuseUnknownOptions(['pairs', 'seconds', 'yes']);

const seconds = Number(option('seconds', '8'));
const busy = Number(option('yes', '2'));
const pairs = Number(option('pairs', '2'));
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'linkshell-busy-'));
const trace = join(dir, '12mbps.trace');
writeFileSync(trace, '1\n');
const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

const sink = createSocket('udp4');
let bytes = 0;
sink.on('message', (m) => (bytes += m.length));
await new Promise<void>((resolve) => sink.bind(0, '127.0.0.1', () => resolve()));

async function run(withBusy: boolean) {
  const yes = withBusy ? Array.from({ length: busy }, () => spawn('sh', ['-c', 'exec yes > /dev/null'], { stdio: 'ignore' })) : [];
  const summary = join(dir, `summary-${Date.now()}.json`);
  const before = bytes;
  const startAt = Date.now() + 4000;
  // The load runs as linkshell's command: it starts after linkshell is ready; linkshell ends a second after it (what is still in the queue leaves first).
  const load = ['node', '--import', 'tsx', here('./udp-load.ts'), '127.0.0.1', '$PORT', '1000', '1000', String(startAt), String(seconds * 1000)];
  const child = spawn('node', [here('../bin/linkshell.js'), '--trace', trace, '--listen', '127.0.0.1:0', '--connect', `127.0.0.1:${sink.address().port}`,
    '--uplink-queue', 'droptail', '--uplink-queue-args', 'packets=100', '--summary-json', summary, '--', 'sh', '-c', `PORT=\${LINKSHELL_ADDR##*:}; ${load.join(' ')}; sleep 1`], { cwd: here('..'), stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  await new Promise((resolve) => child.on('close', resolve));
  await new Promise((resolve) => setTimeout(resolve, 300));
  for (const y of yes) y.kill('SIGKILL');
  const doc = JSON.parse(readFileSync(summary, 'utf8'));
  const report = JSON.parse(out.trim().split('\n').pop() ?? '{}');
  const up = doc.directions[0];
  return { sent: report.sent as number, lateStartMs: report.lateStartMs as number, queueDrops: up.drops.queue as number, kernelDrops: doc.kernelDrops, p99: up.departureLatenessMs.p99 as number, verdict: doc.verdict as string, delivered: bytes - before };
}

console.log(`linkshell at exactly the link's capacity: 1000 x 1000 B/s through one opportunity per ms, droptail 100, ${seconds} s per run; busy: ${busy} x yes > /dev/null`);
console.log(`load average at the start: ${loadavg()}`);
console.log('| run | sent | load started late (ms) | queue drops | kernel drops | lateness p99 (ms) | verdict | bytes delivered | vs the quiet run of the pair |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (let pair = 1; pair <= pairs; pair++) {
  const quiet = await run(false);
  const loaded = await run(true);
  for (const [name, r] of [['quiet', quiet], [`${busy} busy`, loaded]] as const) {
    console.log(`| ${name} (pair ${pair}) | ${r.sent} | ${r.lateStartMs} | ${r.queueDrops} | ${r.kernelDrops} | ${r.p99?.toFixed(2)} | ${r.verdict} | ${r.delivered} | ${((100 * r.delivered) / quiet.delivered).toFixed(2)} % |`);
  }
}
console.log(`load average at the end: ${loadavg()}`);
sink.close();
