// The WebRTC baseline of the paper's evaluation: Chromium's call measured over
// linkshell on the paper's scenarios (salsify webrtc), one call at a time,
// each repeated, beside the paper's WebRTC rows, our live Salsify over the
// same linkshell path (salsify webrtc --endpoint salsify-N, VP8) and Salsify-1
// simulated on the same traces (salsify sim, model codec).
//
//   npx tsx bench/webrtc.ts [SECONDS] [REPEATS] [SCENARIO[:CODEC[:SVC]|:salsify-N]...]
//       SECONDS   of each call (default 120)
//       REPEATS   calls per scenario (default 2)
//       SCENARIO  att-lte, tmobile-umts, on-off, wifi (default: all four with
//                 vp8 and with salsify-1, and att-lte:vp9:L2T3); :salsify-N
//                 runs our live Salsify instead of Chromium
//
// Until the scenario presets exist (issue 9), the scenarios are spelled out
// below from ../shared/reference/README.md: video on the .down trace, feedback
// on .up, 20 ms one-way delay each way, drop-tail 256 packets; on-off is a
// 12 Mbit/s link with exponential on periods of mean 5 s and off periods of
// mean 0.2 s (a generated trace, seed 1); wifi is 0.57mbps-poisson with 4.8 %
// loss on the video direction. Every call: 640x360 at 30 fps from the
// FourPeople clip. Results go to $WEBRTC_BENCH_OUT (default
// /tmp/salsify-webrtc-bench), one directory per call, and table-SECONDSs.md.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatTrace } from '../src/link-emu/trace-format.ts';
import { onOffTrace } from '../src/link-emu/trace-generators.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const traces = join(root, '../shared/traces');
const seconds = Number(process.argv[2] ?? 120);
const repeats = Number(process.argv[3] ?? 2);
if (!(seconds > 0) || !(Number.isInteger(repeats) && repeats >= 1)) throw new Error('usage: bench/webrtc.ts [SECONDS] [REPEATS] [SCENARIO[:CODEC[:SVC]]...]');
const results = process.env.WEBRTC_BENCH_OUT || '/tmp/salsify-webrtc-bench';
mkdirSync(results, { recursive: true });

const onOffPath = join(results, 'onoff-12mbps-5s-0.2s.trace');
if (!existsSync(onOffPath)) writeFileSync(onOffPath, formatTrace(onOffTrace({ rateMbps: 12, meanOnMs: 5000, meanOffMs: 200, durationMs: 900_000, seed: 1 })));

interface Scenario {
  readonly down: string;
  readonly up: string;
  readonly paperTrace: string;
  readonly args: readonly string[];
}

const COMMON = ['--delay', '20', '--queue', 'droptail', '--queue-args', 'packets=256'];
const SCENARIOS: Record<string, Scenario> = {
  'att-lte': { down: join(traces, 'ATT-LTE-driving.down'), up: join(traces, 'ATT-LTE-driving.up'), paperTrace: 'ATT-LTE-driving', args: COMMON },
  'tmobile-umts': { down: join(traces, 'TMobile-UMTS-driving.down'), up: join(traces, 'TMobile-UMTS-driving.up'), paperTrace: 'TMobile-UMTS-driving', args: COMMON },
  'on-off': { down: onOffPath, up: join(traces, '12mbps.up'), paperTrace: '12mbps (intermittent loss)', args: COMMON },
  wifi: { down: join(traces, '0.57mbps-poisson.down'), up: join(traces, '0.57mbps-poisson.up'), paperTrace: '0.57mbps-poisson', args: [...COMMON, '--downlink-loss', '0.048'] },
};

const wanted = process.argv.length > 4
  ? process.argv.slice(4)
  : ['att-lte:vp8', 'tmobile-umts:vp8', 'on-off:vp8', 'wifi:vp8', 'att-lte:vp9:L2T3', 'att-lte:salsify-1', 'tmobile-umts:salsify-1', 'on-off:salsify-1', 'wifi:salsify-1'];

interface Row {
  readonly scenario: string;
  readonly system: string;
  readonly delay: [number, number, number];
  readonly ssim: [number, number, number];
  readonly note: string;
}

const rows: Row[] = [];
const f = (x: number | null | undefined, d = 0) => (typeof x === 'number' && Number.isFinite(x) ? x.toFixed(d) : '-');
let browser = '';

for (const spec of wanted) {
  const [name, codec = 'vp8', svc] = spec.split(':');
  const scenario = SCENARIOS[name!];
  if (!scenario) throw new Error(`unknown scenario ${name} (${Object.keys(SCENARIOS).join(', ')})`);
  for (let k = 1; k <= repeats; k++) {
    const out = join(results, `${name}-${codec}${svc ? `-${svc}` : ''}-${seconds}s-${k}`);
    const salsify = codec.startsWith('salsify-');
    const endpoint = salsify ? ['--endpoint', codec] : ['--codec', codec, ...(svc ? ['--svc', svc] : [])];
    const args = ['bin/salsify.js', 'webrtc', '--downlink', scenario.down, '--uplink', scenario.up, ...scenario.args, ...endpoint, '--duration', String(seconds), '--out', out];
    const started = Date.now();
    process.stderr.write(`bench: ${spec} run ${k}: node ${args.join(' ')}\n`);
    const run = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    if (run.status !== 0) {
      process.stderr.write(`bench: ${spec} run ${k} failed (status ${run.status}): ${run.stderr.trim().split('\n').pop()}\n`);
      continue;
    }
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    const s = summary.summary;
    if (salsify) {
      rows.push({
        scenario: name!,
        system: `${summary.label} vp8 over linkshell #${k}`,
        delay: [s.signalDelayMs.mean, s.signalDelayMs.p5, s.signalDelayMs.p95],
        ssim: [s.ssimDb.mean, s.ssimDb.p5, s.ssimDb.p95],
        note: `shown ${s.framesShown}/${s.framesCaptured}, skipped ${s.framesSkipped}, lost ${s.framesLost}, link use ${f(100 * s.linkUtilization)} %; ${((Date.now() - started) / 1000).toFixed(0)} s wall`,
      });
      continue;
    }
    browser = summary.browser;
    const t = summary.stats.totals;
    rows.push({
      scenario: name!,
      system: `${summary.label} ${codec}${svc ? `-${svc}` : ''} #${k}`,
      delay: [s.signalDelayMs.mean, s.signalDelayMs.p5, s.signalDelayMs.p95],
      ssim: [s.ssimDb.mean, s.ssimDb.p5, s.ssimDb.p95],
      note: `shown ${s.framesShown}/${s.framesCaptured}, link use ${f(100 * s.linkUtilization)} %, lost ${f(t.packetsLost)}, NACKs ${f(t.nackCount)}, PLIs ${f(t.pliCount)}, freezes ${f(t.freezeCount)}, jitter buffer ${f(t.meanJitterBufferMs)} ms, resolutions ${summary.stats.resolutions.map((r: { resolution: string }) => r.resolution).join('>')}; ${((Date.now() - started) / 1000).toFixed(0)} s wall`,
    });
  }
}

// Salsify-1 simulated on the same traces (model codec, 720p60 synthetic video, seed 1).
for (const name of [...new Set(wanted.map((w) => w.split(':')[0]!))]) {
  const scenario = SCENARIOS[name]!;
  const extra = scenario.args.includes('--downlink-loss') ? ['--downlink-loss', '0.048'] : [];
  const sim = spawnSync(process.execPath, ['bin/salsify.js', 'sim', '--downlink', scenario.down, '--uplink', scenario.up, '--delay', '20', '--duration', String(seconds), ...extra, '--json', join(results, `${name}-sim.json`)], { cwd: root, encoding: 'utf8' });
  if (sim.status !== 0) {
    process.stderr.write(`bench: salsify sim on ${name} failed: ${sim.stderr.trim().split('\n').pop()}\n`);
    continue;
  }
  const s = JSON.parse(readFileSync(join(results, `${name}-sim.json`), 'utf8')).summary;
  rows.push({ scenario: name, system: 'Salsify-1 (salsify sim, model codec)', delay: [s.signalDelayMs.mean, s.signalDelayMs.p5, s.signalDelayMs.p95], ssim: [s.ssimDb.mean, s.ssimDb.p5, s.ssimDb.p95], note: 'simulated, 720p60 synthetic' });
}

// The paper's rows for the same scenarios.
const paper = readFileSync(join(root, '../shared/reference/salsify-paper-results.csv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split(','));
for (const name of [...new Set(wanted.map((w) => w.split(':')[0]!))]) {
  for (const p of paper) {
    if (p[0] !== name || !/^(WebRTC|WebRTC-SVC|Salsify-1)$/.test(p[2]!)) continue;
    rows.push({ scenario: name, system: `paper: ${p[2]}`, delay: [Number(p[3]), Number(p[4]), Number(p[5])], ssim: [Number(p[6]), Number(p[7]), Number(p[8])], note: '720p60, bench latency 66.7 ms subtracted' });
  }
}

rows.sort((a, b) => a.scenario.localeCompare(b.scenario));
const lines = [
  `WebRTC bench: ${browser}, 640x360 at 30 fps, ${seconds} s per call, ${repeats} call(s) per row`,
  '',
  '| scenario | system | delay mean | p5 | p95 (ms) | SSIM mean | p5 | p95 (dB) | notes |',
  '|---|---|---|---|---|---|---|---|---|',
  ...rows.map((r) => `| ${r.scenario} | ${r.system} | ${f(r.delay[0])} | ${f(r.delay[1])} | ${f(r.delay[2])} | ${f(r.ssim[0], 2)} | ${f(r.ssim[1], 2)} | ${f(r.ssim[2], 2)} | ${r.note} |`),
];
writeFileSync(join(results, `table-${seconds}s.md`), lines.join('\n') + '\n');
process.stdout.write(lines.join('\n') + '\n');
