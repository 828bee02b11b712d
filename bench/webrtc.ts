// The WebRTC baseline of the paper's evaluation: Chromium's call measured over
// linkshell on the paper's scenarios (salsify webrtc), one call at a time,
// each repeated, beside the paper's WebRTC rows, our live Salsify over the
// same linkshell path (salsify webrtc --endpoint salsify-N, VP8) and Salsify-1
// simulated on the same traces (salsify sim, model codec).
//
//   node --import tsx bench/webrtc.ts [--attempts N] [SECONDS] [REPEATS] [SCENARIO[:CODEC[:SVC]|:salsify-N|:firefox]...]
//   node --import tsx bench/webrtc.ts --paper-window [--attempts N] [REPEATS] [SCENARIO[:...]...]
//       --paper-window  the paper's window: each call 702 s of trace from
//                 second 0, measured over [62, 702) s (--measure-from 62
//                 --measure-for 640); default rows: Chromium, Firefox,
//                 live Salsify-1 and -2 on att-lte, tmobile-umts,
//                 verizon-lte, on-off and wifi (about 12 min of real time per
//                 call); then, per scenario, whether live Salsify-1's p95 is
//                 lower at an equal or higher SSIM than each browser's, beside
//                 the paper's answer
//       --attempts  calls run at most for each kept call: an invalid call
//                 (summary.json's validity) is discarded and run again
//                 (bench/valid-runs.ts; default 3)
//       SECONDS   of each call (default 120)
//       REPEATS   calls per scenario (default 2)
//       SCENARIO  att-lte, tmobile-umts, on-off, wifi (default: all four with
//                 vp8 and with salsify-1, and att-lte:vp9:L2T3); :salsify-N
//                 runs our live Salsify instead of Chromium, :firefox Firefox (VP8)
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
const { attempts, rest: options } = takeAttempts(process.argv.slice(2));
/** The paper's window: 702 s of trace from second 0, measured over [62, 702) s. */
const paperWindow = options[0] === '--paper-window';
const PAPER_WINDOW = { durationS: 702, measureFromS: 62, measureForS: 640 };
const argv = paperWindow ? ['702', ...options.slice(1)] : options;
const seconds = Number(argv[0] ?? 120);
const repeats = Number(argv[1] ?? (paperWindow ? 1 : 2));
/** A bad argument: one line, status 2. */
function usage(problem: string): never {
  process.stderr.write(`bench/webrtc.ts: ${problem}\nusage: bench/webrtc.ts [--attempts N] [SECONDS] [REPEATS] [SCENARIO[:CODEC[:SVC]|:salsify-N|:firefox]...]\n       bench/webrtc.ts --paper-window [--attempts N] [REPEATS] [SCENARIO...]\n`);
  process.exit(2);
}
if (!(seconds > 0) || !(Number.isInteger(repeats) && repeats >= 1)) usage(`SECONDS must be > 0 and REPEATS a whole number >= 1, got ${JSON.stringify(argv[0])} and ${JSON.stringify(argv[1])}`);
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
  'verizon-lte': { traceStartS: 0 },
};
/** The arguments that set a call's window: the paper's, or the whole call. */
const windowArgs = paperWindow ? ['--measure-from', String(PAPER_WINDOW.measureFromS), '--measure-for', String(PAPER_WINDOW.measureForS)] : [];
const traceStartOf = (scenario: Scenario) => (paperWindow ? 0 : scenario.traceStartS);
/** WEBRTC_BENCH_REUSE=1: a call whose directory already holds a summary.json is not run again (its results are read). */
const reuse = process.env.WEBRTC_BENCH_REUSE === '1';
const env = { ...process.env, LINKSHELL_TRACES: process.env.LINKSHELL_TRACES || traces };

const PAPER_WINDOW_ROWS = ['att-lte', 'tmobile-umts', 'verizon-lte', 'on-off', 'wifi'].flatMap((n) => [`${n}:vp8`, `${n}:firefox`, `${n}:salsify-1`, `${n}:salsify-2`]);
const wanted = argv.length > 2
  ? argv.slice(2)
  : paperWindow ? PAPER_WINDOW_ROWS : ['att-lte:vp8', 'att-lte:salsify-1', 'tmobile-umts:vp8', 'tmobile-umts:salsify-1', 'on-off:vp8', 'on-off:salsify-1', 'wifi:vp8', 'wifi:salsify-1', 'att-lte:vp9:L2T3'];

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
  if (!scenario) usage(`unknown scenario ${JSON.stringify(name)} (${Object.keys(SCENARIOS).join(', ')})`);
  for (let k = 1; k <= repeats; k++) {
    const base = join(results, `${name}-${codec}${svc ? `-${svc}` : ''}-${seconds}s-${k}`);
    const salsify = codec.startsWith('salsify-');
    const endpoint = salsify ? ['--endpoint', codec] : codec === 'firefox' ? ['--browser', 'firefox', '--codec', 'vp8'] : ['--codec', codec, ...(svc ? ['--svc', svc] : [])];
    let started = Date.now();
    const kept = await runs.firstValid(
      `${spec} #${k}`,
      (attempt) => {
        const out = attempt === 1 ? base : `${base}-attempt${attempt}`;
        const args = ['bin/salsify.js', 'webrtc', '--preset', name!, '--trace-start', String(traceStartOf(scenario)), ...endpoint, '--duration', String(seconds), ...windowArgs, '--out', out];
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

// Salsify-1 simulated over the same trace window, in the calls' format (model codec, synthetic video at
// the calls' 640x360 and 30 fps, seed 1): the preset, with the traces the first call used (rotated),
// measured from the second its media started; with --paper-window, the preset's own window.
const CALL_FORMAT = { size: '640x360', fps: FPS };
for (const name of [...new Set(wanted.map((w) => w.split(':')[0]!))]) {
  const scenario = SCENARIOS[name]!;
  const call = firstCall.get(name);
  const traceStartS = traceStartOf(scenario);
  const fromS = paperWindow ? PAPER_WINDOW.measureFromS : Math.max(0, (call?.firstMediaAtTraceS ?? traceStartS) - traceStartS);
  const forS = paperWindow ? PAPER_WINDOW.measureForS : seconds;
  const traceArgs = traceStartS === 0 || call === undefined ? [] : ['--downlink', join(call.out, `downlink-from-${traceStartS}s.trace`), '--uplink', join(call.out, `uplink-from-${traceStartS}s.trace`)];
  const json = join(results, `${name}-sim-${seconds}s.json`);
  const video = `synthetic:${CALL_FORMAT.size}@${CALL_FORMAT.fps}`;
  const simArgs = ['bin/salsify.js', 'sim', '--preset', name, ...traceArgs, '--video', video, '--duration', String(fromS + forS), '--measure-from', String(fromS), '--measure-for', String(forS), '--json', json];
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
    note: `simulated, ${video} (the calls' format; synthetic, not the clip), trace seconds [${f(traceStartS + fromS, 1)}, ${f(traceStartS + fromS + forS, 1)})`,
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
  paperWindow
    ? `WebRTC bench, the paper's window: ${browser}, 640x360 at 30 fps (the paper: 720p60), ${seconds} s per call from trace second 0, measured over [${PAPER_WINDOW.measureFromS}, ${PAPER_WINDOW.measureFromS + PAPER_WINDOW.measureForS}) s; ${repeats} call(s) per row; only valid calls (at most ${attempts} attempts each; ${runs.discarded.length} discarded)`
    : `WebRTC bench: ${browser}, 640x360 at 30 fps, ${seconds} s per call, ${repeats} call(s) per row; salsify webrtc --preset NAME --trace-start S (att-lte 12, others 0): every system's media from trace second S; only valid calls (at most ${attempts} attempts each; ${runs.discarded.length} discarded)`,
  '',
  '| scenario | system | delay mean | p5 | p95 (ms) | SSIM mean | p5 | p95 (dB) | notes |',
  '|---|---|---|---|---|---|---|---|---|',
  ...rows.map((r) => `| ${r.scenario} | ${r.system} | ${f(r.delay[0])} | ${f(r.delay[1])} | ${f(r.delay[2])} | ${f(r.ssim[0], 2)} | ${f(r.ssim[1], 2)} | ${f(r.ssim[2], 2)} | ${r.note} |`),
];
writeFileSync(join(results, `table-${seconds}s.md`), lines.join('\n') + '\n');
process.stdout.write(lines.join('\n') + '\n');
process.stdout.write(runs.report() + '\n');
if (paperWindow) process.stdout.write(paperFinding(rows) + '\n');
if (notSideBySide.length > 0) process.stdout.write(`bench: left out, not side by side with their scenario's first run:\n${notSideBySide.map((l) => `  ${l}`).join('\n')}\n`);

/**
 * The paper's central comparison, per scenario: is live Salsify-1's p95 delay lower than each
 * browser's, at an equal or higher mean SSIM? Beside the paper's answer for its WebRTC row (which
 * on on-off is no: its WebRTC had the lower p95 there).
 */
function paperFinding(all: readonly Row[]): string {
  const lines = ["Salsify-1 against WebRTC (p95 delay lower at an equal or higher mean SSIM):"];
  for (const name of [...new Set(all.map((r) => r.scenario))]) {
    const mine = all.filter((r) => r.scenario === name);
    const salsify = mine.find((r) => r.system.startsWith('salsify-1 (live)'));
    const paperSalsify = mine.find((r) => r.system === 'paper: Salsify-1');
    const paperWebrtc = mine.find((r) => r.system === 'paper: WebRTC');
    const answer = (a: Row | undefined, b: Row | undefined) => (a === undefined || b === undefined ? 'not measured' : a.delay[2] < b.delay[2] && a.ssim[0] >= b.ssim[0] ? 'yes' : 'no');
    const paperSays = answer(paperSalsify, paperWebrtc);
    for (const browserRow of mine.filter((r) => r.system.startsWith('webrtc ('))) {
      const ours = answer(salsify, browserRow);
      lines.push(`  ${name}, against ${browserRow.system}: ${ours} (p95 ${f(salsify?.delay[2])} vs ${f(browserRow.delay[2])} ms, SSIM ${f(salsify?.ssim[0], 2)} vs ${f(browserRow.ssim[0], 2)} dB); the paper: ${paperSays}${ours === paperSays ? '' : ' (differs)'}`);
    }
  }
  return lines.join('\n');
}

