// The WebRTC baseline of the paper's evaluation: Chromium's call measured over
// linkshell on the paper's scenarios (salsify webrtc), one call at a time,
// each repeated, beside the paper's WebRTC rows, our live Salsify over the
// same linkshell path (salsify webrtc --endpoint salsify-N, VP8) and Salsify-1
// simulated on the same traces (salsify sim, model codec).
//
//   node --import tsx bench/webrtc.ts [--attempts N] [SECONDS] [REPEATS] [SCENARIO[:CODEC[:SVC]|:salsify-N]...]
//       --attempts  calls run at most for each kept call: an invalid call
//                 (summary.json's validity) is discarded and run again
//                 (bench/valid-runs.ts; default 3)
//       SECONDS   of each call (default 120)
//       REPEATS   calls per scenario (default 2)
//       SCENARIO  att-lte, tmobile-umts, on-off, wifi (default: all four with
//                 vp8 and with salsify-1, and att-lte:vp9:L2T3); :salsify-N
//                 runs our live Salsify instead of Chromium
//
// Each scenario is `salsify webrtc --preset NAME` (src/salsify/presets.ts:
// video on the .down trace, feedback on .up, 20 ms one-way delay each way,
// drop-tail 256 packets, 1514-byte opportunities with 42 bytes of headers;
// on-off: 12mbps with mm-onoff periods of mean 5 s and 0.2 s on the video
// direction; wifi: 0.57mbps-poisson with 4.8 % loss on the video direction),
// started with --trace-start S: linkshell holds the traces until the media's
// first packet (Chromium's first RTP packet, Salsify's first datagram), which
// meets trace second S, so every system is measured over the same trace
// seconds however long its start-up took (summary.json: firstMediaAtTraceS).
// att-lte starts at its second 12, where the paper's WebRTC call on AT&T
// began; the others at 0 (the paper does not say). Runs of a scenario whose
// media started more than a frame interval apart are not set side by side:
// the bench leaves such a run out and says so.
// Every call: 640x360 at 30 fps from the FourPeople clip. Salsify-1 is also
// simulated (salsify sim --preset, model codec) over the same trace window as
// the first Chromium call measured: the rotated traces it used, from the
// second it connected, for SECONDS. Results go to $WEBRTC_BENCH_OUT (default
// /tmp/salsify-webrtc-bench), one directory per call, and table-SECONDSs.md;
// with WEBRTC_BENCH_REUSE=1 the calls already there are read, not run again.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sameTraceStart, takeAttempts, ValidRuns } from './valid-runs.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const traces = join(root, '../shared/traces');
const { attempts, rest: argv } = takeAttempts(process.argv.slice(2));
const seconds = Number(argv[0] ?? 120);
const repeats = Number(argv[1] ?? 2);
if (!(seconds > 0) || !(Number.isInteger(repeats) && repeats >= 1)) throw new Error('usage: bench/webrtc.ts [--attempts N] [SECONDS] [REPEATS] [SCENARIO[:CODEC[:SVC]]...]');
const FPS = 30;
const results = process.env.WEBRTC_BENCH_OUT || '/tmp/salsify-webrtc-bench';
mkdirSync(results, { recursive: true });

interface Scenario {
  /** Where linkshell starts the traces (salsify webrtc --trace-start). */
  readonly traceStartS: number;
}

const SCENARIOS: Record<string, Scenario> = {
  'att-lte': { traceStartS: 12 },
  'tmobile-umts': { traceStartS: 0 },
  'on-off': { traceStartS: 0 },
  wifi: { traceStartS: 0 },
};
/** WEBRTC_BENCH_REUSE=1: a call whose directory already holds a summary.json is not run again (its results are read). */
const reuse = process.env.WEBRTC_BENCH_REUSE === '1';
const env = { ...process.env, LINKSHELL_TRACES: process.env.LINKSHELL_TRACES || traces };

const wanted = argv.length > 2
  ? argv.slice(2)
  : ['att-lte:vp8', 'att-lte:salsify-1', 'tmobile-umts:vp8', 'tmobile-umts:salsify-1', 'on-off:vp8', 'on-off:salsify-1', 'wifi:vp8', 'wifi:salsify-1', 'att-lte:vp9:L2T3'];

interface Row {
  readonly scenario: string;
  readonly system: string;
  readonly delay: [number, number, number];
  readonly ssim: [number, number, number];
  readonly note: string;
}

const rows: Row[] = [];
const runs = new ValidRuns(attempts);
/** Per scenario, the first call kept: its directory and the trace second its media started at (every other run's must match; the simulated run's window). */
const firstCall = new Map<string, { out: string; firstMediaAtTraceS: number | null }>();
/** Runs left out because their media started at another trace second than the scenario's first. */
const notSideBySide: string[] = [];
/** The wall time of the call in `out`, as this bench wrote it when it ran it. */
const wallS = (out: string, started: number) => (existsSync(join(out, 'bench-wall-s.txt')) ? readFileSync(join(out, 'bench-wall-s.txt'), 'utf8').trim() : ((Date.now() - started) / 1000).toFixed(1));
const f = (x: number | null | undefined, d = 0) => (typeof x === 'number' && Number.isFinite(x) ? x.toFixed(d) : '-');
let browser = '';

for (const spec of wanted) {
  const [name, codec = 'vp8', svc] = spec.split(':');
  const scenario = SCENARIOS[name!];
  if (!scenario) throw new Error(`unknown scenario ${name} (${Object.keys(SCENARIOS).join(', ')})`);
  for (let k = 1; k <= repeats; k++) {
    const base = join(results, `${name}-${codec}${svc ? `-${svc}` : ''}-${seconds}s-${k}`);
    const salsify = codec.startsWith('salsify-');
    const endpoint = salsify ? ['--endpoint', codec] : ['--codec', codec, ...(svc ? ['--svc', svc] : [])];
    let started = Date.now();
    const kept = await runs.firstValid(
      `${spec} #${k}`,
      (attempt) => {
        const out = attempt === 1 ? base : `${base}-attempt${attempt}`;
        const args = ['bin/salsify.js', 'webrtc', '--preset', name!, '--trace-start', String(scenario.traceStartS), ...endpoint, '--duration', String(seconds), '--out', out];
        started = Date.now();
        if (reuse && existsSync(join(out, 'summary.json'))) {
          process.stderr.write(`bench: ${spec} run ${k}: the results in ${out}\n`);
        } else {
          process.stderr.write(`bench: ${spec} run ${k}, attempt ${attempt}: node ${args.join(' ')}\n`);
          const run = spawnSync(process.execPath, args, { cwd: root, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
          if (run.status !== 0) {
            process.stderr.write(`bench: ${spec} run ${k} failed (status ${run.status}): ${run.stderr.trim().split('\n').pop()}\n`);
            return undefined;
          }
          writeFileSync(join(out, 'bench-wall-s.txt'), `${((Date.now() - started) / 1000).toFixed(1)}\n`);
        }
        return { out, summary: JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) };
      },
      (r) => r.summary.validity,
    );
    if (kept === undefined) continue;
    const { out, summary } = kept;
    const s = summary.summary;
    const firstMediaAtTraceS: number | null = (salsify ? summary.firstMediaAtTraceS : summary.config.firstMediaAtTraceS) ?? null;
    const first = firstCall.get(name!);
    if (first === undefined) firstCall.set(name!, { out, firstMediaAtTraceS });
    else if (!sameTraceStart(first.firstMediaAtTraceS, firstMediaAtTraceS, FPS)) {
      notSideBySide.push(`${spec} #${k} (${out}): media from trace second ${f(firstMediaAtTraceS, 3)}, the scenario's first run's from ${f(first.firstMediaAtTraceS, 3)} (more than a frame interval, ${(1000 / FPS).toFixed(1)} ms, apart)`);
      continue;
    }
    const verdict = `verdict ${summary.validity?.verdict ?? '-'}`;
    if (salsify) {
      rows.push({
        scenario: name!,
        system: `${summary.label} vp8 over linkshell #${k}`,
        delay: [s.signalDelayMs.mean, s.signalDelayMs.p5, s.signalDelayMs.p95],
        ssim: [s.ssimDb.mean, s.ssimDb.p5, s.ssimDb.p95],
        note: `media from trace second ${f(firstMediaAtTraceS, 3)}; ${verdict}; shown ${s.framesShown}/${s.framesCaptured}, skipped ${s.framesSkipped}, lost ${s.framesLost}, link use ${f(100 * s.linkUtilization)} %; ${wallS(out, started)} s wall`,
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
      note: `media from trace second ${f(firstMediaAtTraceS, 3)} (connected at ${f(summary.config.connectedAtTraceS, 1)}); ${verdict}; shown ${s.framesShown}/${s.framesCaptured}, SSIM of ${summary.counters.framesWithSsim} frames, link use ${f(100 * s.linkUtilization)} %, lost ${f(t.packetsLost)}, NACKs ${f(t.nackCount)}, PLIs ${f(t.pliCount)}, freezes ${f(t.freezeCount)}, jitter buffer ${f(t.meanJitterBufferMs)} ms, resolutions ${summary.stats.resolutions.map((r: { resolution: string }) => r.resolution).join('>')}; ${wallS(out, started)} s wall`,
    });
  }
}

// Salsify-1 simulated over the same trace window (model codec, 720p60 synthetic video, seed 1): the
// preset, with the traces the first Chromium call used (rotated), measured from the second it connected.
for (const name of [...new Set(wanted.map((w) => w.split(':')[0]!))]) {
  const scenario = SCENARIOS[name]!;
  const call = firstCall.get(name);
  const fromS = Math.max(0, (call?.firstMediaAtTraceS ?? scenario.traceStartS) - scenario.traceStartS);
  const traceArgs = scenario.traceStartS === 0 || call === undefined ? [] : ['--downlink', join(call.out, `downlink-from-${scenario.traceStartS}s.trace`), '--uplink', join(call.out, `uplink-from-${scenario.traceStartS}s.trace`)];
  const json = join(results, `${name}-sim-${seconds}s.json`);
  const simArgs = ['bin/salsify.js', 'sim', '--preset', name, ...traceArgs, '--duration', String(fromS + seconds), '--measure-from', String(fromS), '--measure-for', String(seconds), '--json', json];
  process.stderr.write(`bench: nice -n 19 node ${simArgs.join(' ')}\n`);
  const sim = spawnSync('nice', ['-n', '19', process.execPath, ...simArgs], { cwd: root, env, encoding: 'utf8' });
  if (sim.status !== 0) {
    process.stderr.write(`bench: salsify sim on ${name} failed: ${sim.stderr.trim().split('\n').pop()}\n`);
    continue;
  }
  const s = JSON.parse(readFileSync(json, 'utf8')).summary;
  rows.push({
    scenario: name,
    system: 'Salsify-1 (salsify sim --preset, model codec)',
    delay: [s.signalDelayMs.mean, s.signalDelayMs.p5, s.signalDelayMs.p95],
    ssim: [s.ssimDb.mean, s.ssimDb.p5, s.ssimDb.p95],
    note: `simulated, 720p60 synthetic, trace seconds [${f(scenario.traceStartS + fromS, 1)}, ${f(scenario.traceStartS + fromS + seconds, 1)})`,
  });
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
  `WebRTC bench: ${browser}, 640x360 at 30 fps, ${seconds} s per call, ${repeats} call(s) per row; salsify webrtc --preset NAME --trace-start S (att-lte 12, others 0): every system's media from trace second S; only valid calls (at most ${attempts} attempts each; ${runs.discarded.length} discarded)`,
  '',
  '| scenario | system | delay mean | p5 | p95 (ms) | SSIM mean | p5 | p95 (dB) | notes |',
  '|---|---|---|---|---|---|---|---|---|',
  ...rows.map((r) => `| ${r.scenario} | ${r.system} | ${f(r.delay[0])} | ${f(r.delay[1])} | ${f(r.delay[2])} | ${f(r.ssim[0], 2)} | ${f(r.ssim[1], 2)} | ${f(r.ssim[2], 2)} | ${r.note} |`),
];
writeFileSync(join(results, `table-${seconds}s.md`), lines.join('\n') + '\n');
process.stdout.write(lines.join('\n') + '\n');
process.stdout.write(runs.report() + '\n');
if (notSideBySide.length > 0) process.stdout.write(`bench: left out, not side by side with their scenario's first run:\n${notSideBySide.map((l) => `  ${l}`).join('\n')}\n`);
