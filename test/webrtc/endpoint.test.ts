// salsify webrtc --endpoint salsify-1: our live Salsify sender and receiver
// over the same linkshell path a Chromium call takes, a 10 s run at 640x360
// 30 fps (VP8) over a constant 2 Mbit/s link, bounded at 3 minutes. Its
// records are complete, the delay is known for at least 90 % of the source
// frames, the summary has every field of the results schema, linkshell's
// logs show the traffic both ways, and nothing it started is left behind.
// Also: the options that are Chromium's alone are refused with a Salsify
// endpoint, and chromium and coturn are not needed for one.
// test-runner: slow
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseWebrtcArgs } from '../../src/cli/webrtc-command.ts';
import { parseLinkLog, LogEventKind } from '../../src/link-emu/link-log.ts';
import { runSalsifyEndpoint, type SalsifyEndpointResult } from '../../src/webrtc/salsify-endpoint.ts';
import { processesMentioning } from '../helpers/processes.ts';

const LIMIT_MS = 180_000;
const dir = mkdtempSync(join(tmpdir(), 'webrtc-endpoint-test-'));
const out = join(dir, 'out');
const ARGV = ['--endpoint', 'salsify-1', '--downlink', 'const:2', '--uplink', 'const:2', '--video', 'synthetic', '--duration', '10', '--out', out];

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function usageMessage(argv: string[]): string {
  try {
    parseWebrtcArgs(argv);
  } catch (error) {
    assert.is((error as { code?: string }).code, 'ERR_BAD_ARGUMENT');
    return (error as Error).message;
  }
  throw new Error(`${argv.join(' ')} was accepted`);
}

test('the options of a Chromium call alone are refused with a Salsify endpoint, and an unknown endpoint names the choices', () => {
  const base = ['--downlink', 'const:2', '--uplink', 'const:2', '--video', 'synthetic', '--out', join(dir, 'refused')];
  assert.match(usageMessage([...base, '--endpoint', 'salsify-1', '--codec', 'vp9']), /--codec is Chromium's/);
  assert.match(usageMessage([...base, '--endpoint', 'salsify-1', '--svc', 'L1T3']), /--svc is Chromium's/);
  assert.match(usageMessage([...base, '--salsify-codec', 'model']), /--salsify-codec is for a Salsify --endpoint/);
  assert.match(usageMessage([...base, '--endpoint', 'firefox']), /salsify-1/);
  assert.match(usageMessage([...base, '--endpoint', 'salsify-1', '--salsify-codec', 'vp9']), /--salsify-codec/);
});

test('a Salsify endpoint needs neither chromium nor coturn, and runs VP8 at 640x360 30 fps on the same linkshell options', () => {
  const saved = { c: process.env.SALSIFY_CHROMIUM, t: process.env.SALSIFY_TURNSERVER };
  process.env.SALSIFY_CHROMIUM = '/nonexistent/chromium';
  process.env.SALSIFY_TURNSERVER = '/nonexistent/turnserver';
  try {
    const args = parseWebrtcArgs([...ARGV.slice(0, -1), join(dir, 'parsed'), '--delay', '20', '--downlink-loss', '0.01']);
    assert.is(args.call, undefined);
    const s = args.salsify!;
    assert.is(s.scheme, 'salsify-1');
    assert.is(s.codec, 'vp8');
    assert.equal([s.width, s.height, s.fps], [640, 360, 30]);
    // The scenario's downlink loss is linkshell's uplink loss (the video direction), as for Chromium.
    assert.equal(s.linkshellArgs, ['--uplink-queue', 'droptail', '--downlink-queue', 'droptail', '--uplink-queue-args', 'packets=256', '--downlink-queue-args', 'packets=256', '--delay', '20', '--uplink-loss', '0.01']);
  } finally {
    for (const [k, v] of [['SALSIFY_CHROMIUM', saved.c], ['SALSIFY_TURNSERVER', saved.t]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
});

let result: SalsifyEndpointResult;

test('a 10 s run of --endpoint salsify-1 over const:2 completes within the bound', async () => {
  const args = parseWebrtcArgs(ARGV);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`the run took more than ${LIMIT_MS} ms`)), LIMIT_MS);
  try {
    result = await runSalsifyEndpoint({ ...args.salsify!, signal: controller.signal });
  } finally {
    clearTimeout(timer);
  }
});

test("the records are complete: both end with an end record of the same run", () => {
  const lines = (name: string) => readFileSync(join(out, name), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const sender = lines('sender.jsonl');
  const receiver = lines('receiver.jsonl');
  assert.is(sender[sender.length - 1].type, 'end');
  assert.is(receiver[receiver.length - 1].type, 'end');
  assert.equal(result.analysis.notes, []);
  assert.is(result.analysis.ssimFrom, 'saved frames');
  assert.is(result.analysis.config.codec, 'vp8');
  assert.is(result.analysis.config.width, 640);
});

test('delay known for at least 90 % of the source frames, and plausible on an idle 2 Mbit/s link', () => {
  const s = result.analysis.summary;
  assert.ok(s.framesCaptured >= 290 && s.framesCaptured <= 310, `captured ${s.framesCaptured}`);
  assert.ok(result.delayKnownFraction >= 0.9, `delay known for ${(100 * result.delayKnownFraction).toFixed(1)} %`);
  assert.ok(s.signalDelayMs.p95 > 0 && s.signalDelayMs.p95 < 1000, `p95 ${s.signalDelayMs.p95} ms`);
  assert.ok(s.ssimDb.mean > 5 && s.ssimDb.mean < 60, `SSIM ${s.ssimDb.mean} dB`);
});

test("the summary has every field of the results pipeline's schema, and summary.json and frames.csv are written", () => {
  const fields = ['signalDelayMs', 'ssimDb', 'framesCaptured', 'framesSent', 'framesShown', 'framesNeverShown', 'framesLost', 'framesSkipped', 'framesSuperseded', 'framesNotCaughtUp', 'bytesSent', 'linkUtilization'];
  const s = result.analysis.summary;
  assert.equal(Object.keys(s).sort(), [...fields].sort());
  for (const [k, v] of Object.entries(s)) {
    if (typeof v === 'number') assert.ok(Number.isFinite(v), `${k} = ${v}`);
    else for (const [q, x] of Object.entries(v)) assert.ok(Number.isFinite(x), `${k}.${q} = ${x}`);
  }
  assert.ok(s.linkUtilization > 0.2 && s.linkUtilization <= 1, `link use ${s.linkUtilization}`);
  const json = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
  assert.is(json.endpoint, 'salsify (salsify-1)');
  assert.is(json.scheme, 'salsify-1');
  assert.is(json.label, 'salsify-1 (live)');
  assert.is(json.browser, undefined);
  assert.equal(json.summary, JSON.parse(JSON.stringify(s)));
  const csv = readFileSync(join(out, 'frames.csv'), 'utf8').trim().split('\n');
  assert.is(csv.length, result.analysis.frames.length + 1);
  assert.match(csv[0]!, /^source_index,capture_ms,fate,/);
});

test("linkshell's logs show the traffic: the video on the downlink trace, the acknowledgements back", () => {
  assert.is(result.linkshellStatus, 0);
  const video = parseLinkLog(readFileSync(join(out, 'video-link.log'), 'utf8'), 'video-link.log');
  let departures = 0;
  let bytes = 0;
  for (let i = 0; i < video.count; i++) {
    if (video.kind[i] === LogEventKind.Departure) {
      departures++;
      bytes += video.a[i]!;
    }
  }
  assert.ok(departures > 500, `video link departures: ${departures}`);
  assert.ok(bytes > 0.8 * result.analysis.bytesSent && bytes <= result.analysis.bytesSent * 1.2, `${bytes} bytes crossed the video link, the sender sent ${result.analysis.bytesSent}`);
  const feedback = readFileSync(join(out, 'feedback-link.log'), 'utf8');
  assert.ok((feedback.match(/^\d+ - /gm) ?? []).length > 500, 'the feedback direction carried the acknowledgements');
  assert.match(readFileSync(join(out, 'linkshell.txt'), 'utf8'), /departure/);
});

test('nothing started is left: the receiver, linkshell and sender ended, the temporary directory removed', () => {
  assert.is(result.processes.length, 3);
  for (const pid of result.processes) assert.not.ok(alive(pid), `pid ${pid} still runs`);
  assert.not.ok(existsSync(result.tempDir), `${result.tempDir} is left`);
});

test('aborted mid-run (a signal in the CLI), it rejects with the reason and ends the receiver, linkshell and sender first', async () => {
  const stopped = join(dir, 'stopped');
  const args = parseWebrtcArgs([...ARGV.slice(0, -3), '30', '--out', stopped]);
  const temporaryDirs = () => readdirSync(tmpdir()).filter((n) => n.startsWith('salsify-endpoint-'));
  const before = new Set(temporaryDirs());
  const controller = new AbortController();
  const bound = setTimeout(() => controller.abort(new Error('bound')), LIMIT_MS);
  const lines: string[] = [];
  const run = runSalsifyEndpoint({
    ...args.salsify!,
    signal: controller.signal,
    log: (line) => {
      lines.push(line);
      // Once the sender runs, stop it all a moment later.
      if (/^salsify send/.test(line)) setTimeout(() => controller.abort(new Error('interrupted by SIGINT')), 2000);
    },
  });
  try {
    await run.then(
      () => assert.unreachable('the run was not stopped'),
      (error: Error) => assert.is(error.message, 'interrupted by SIGINT'),
    );
  } finally {
    clearTimeout(bound);
  }
  assert.ok(lines.some((l) => /^salsify send/.test(l)), lines.join('; '));
  assert.equal(processesMentioning(stopped), [], 'processes of the stopped run still run');
  assert.equal(temporaryDirs().filter((n) => !before.has(n)), [], 'the temporary directory is left');
  // The sender, stopped by SIGINT, still ended its records.
  const sender = readFileSync(join(stopped, 'sender.jsonl'), 'utf8').trim().split('\n');
  assert.is(JSON.parse(sender[sender.length - 1]!).type, 'end');
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();
