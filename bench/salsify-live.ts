// Salsify over real UDP through linkshell against the same scenario in the
// simulator: the live run's figures next to the simulated ones, their ratios,
// and what the live endpoints cost in CPU. Same trace both ways (video on the
// trace-driven link with a drop-tail queue of 256 packets, acknowledgements on
// the other direction), same video, codec and seed; the live sender runs inside
// linkshell, the receiver is linkshell's peer, all on loopback.
//
//   node --import tsx bench/salsify-live.ts [SECONDS] [TRACE] [CODEC] [VIDEO]
//       SECONDS  of video (default 10)
//       TRACE    default traces/cellular-6mbps.trace
//       CODEC    model (default) or vp8 (SSIM: analyze decodes the receiver's saved frames again)
//       VIDEO    default synthetic (1280x720 at 60 fps)
//
// Ratios, against the simulator run in the same process (the baseline):
// live / sim for delay, SSIM (in linear 1 - SSIM: above 1 means worse
// pictures), frames shown and link utilisation. CPU: the sender's and the
// receiver's process CPU time per second of video (1 = one core busy).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { analyzeLiveRun } from '../src/salsify/live/analyze.ts';
import type { Scheme } from '../src/salsify/sender.ts';
import { runSalsifySim } from '../src/salsify/sim-runner.ts';
import { formatResultsTable, type TableRow } from '../src/results/table.ts';

const seconds = Number(process.argv[2] ?? 10);
if (!(seconds > 0)) throw new Error(`SECONDS must be > 0, got ${process.argv[2]}`);
const trace = process.argv[3] ?? 'traces/cellular-6mbps.trace';
const codec = (process.argv[4] ?? 'model') as 'model' | 'vp8';
if (codec !== 'model' && codec !== 'vp8') throw new Error(`CODEC must be model or vp8, got ${process.argv[4]}`);
const video = process.argv[5] ?? 'synthetic';
const SCHEMES: Scheme[] = ['salsify-1', 'conventional-1s'];
const root = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'salsify-live-bench-'));

function run(args: string[], onStderr?: (text: string) => void): Promise<number | null> {
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  let text = '';
  child.stderr.on('data', (d) => {
    text += d;
    onStderr?.(text);
  });
  return new Promise((resolve) => child.on('exit', (code) => {
    if (code !== 0) process.stderr.write(text);
    resolve(code);
  }));
}

async function live(scheme: Scheme) {
  const dir = join(work, scheme);
  let port: string | undefined;
  const receiver = run(
    ['bin/salsify.js', 'receive', '--port', '0', '--out', dir, '--codec', codec, '--idle-timeout', '1'],
    (text) => (port ??= /listening on 127\.0\.0\.1:(\d+)/.exec(text)?.[1]),
  );
  while (port === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
  const upLog = join(dir, 'uplink.log');
  const started = performance.now();
  const code = await run([
    'bin/linkshell.js', '--trace', trace, '--connect', `127.0.0.1:${port}`, '--uplink-queue', 'droptail', '--uplink-queue-args', 'packets=256',
    '--uplink-log', upLog, '--', process.execPath, 'bin/salsify.js', 'send', '--out', dir, '--duration', String(seconds),
    '--video', video, '--codec', codec, '--scheme', scheme,
  ]);
  const wallMs = performance.now() - started;
  if (code !== 0 || (await receiver) !== 0) throw new Error(`live ${scheme} run failed`);
  return { analysis: await analyzeLiveRun(dir, { linkLog: upLog }), wallMs };
}

const rows: TableRow[] = [];
const lines: string[] = [];
for (const scheme of SCHEMES) {
  const t = performance.now();
  const sim = await runSalsifySim({ downlink: trace, uplink: trace, scheme, durationS: seconds, codec, video });
  const simWall = performance.now() - t;
  const { analysis, wallMs } = await live(scheme);
  rows.push({ label: sim.label, summary: sim.summary, wallMs: simWall });
  rows.push({ label: analysis.label, summary: analysis.summary, wallMs });
  const a = analysis.summary, b = sim.summary;
  const r = (x: number, y: number) => (x / y).toFixed(2);
  const cpu = (c: Record<string, unknown> | null) => (typeof c?.cpuMs === 'number' ? (c.cpuMs / 1000 / seconds).toFixed(2) : '-');
  lines.push(
    `${scheme}: live / sim: delay mean ${r(a.signalDelayMs.mean, b.signalDelayMs.mean)}, p95 ${r(a.signalDelayMs.p95, b.signalDelayMs.p95)}; ` +
      `1 - SSIM ${r(1 - 10 ** (-a.ssimDb.mean / 10), 1 - 10 ** (-b.ssimDb.mean / 10))}; frames shown ${r(a.framesShown, b.framesShown)}; ` +
      `link use ${r(a.linkUtilization, b.linkUtilization)}. CPU per second of video: sender ${cpu(analysis.counters.sender)}, receiver ${cpu(analysis.counters.receiver)}; ` +
      `capture timers late ${analysis.captureLatenessMs?.mean.toFixed(2)} ms on average (max ${analysis.captureLatenessMs?.max.toFixed(1)})`,
  );
}
console.log(`${trace} both ways, drop-tail 256 packets, ${seconds} s of ${video}, ${codec} codec (wall: sim = simulation time, live = linkshell + send)`);
console.log(formatResultsTable(rows));
for (const line of lines) console.log(line);
rmSync(work, { recursive: true, force: true });
