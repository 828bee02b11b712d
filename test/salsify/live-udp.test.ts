// Salsify over real UDP on loopback: `salsify receive` as linkshell's peer,
// `salsify send` as linkshell's command (or sending straight to the receiver),
// then `salsify analyze` on what both recorded. Real processes and sockets on
// 127.0.0.1 only; every process is waited for (or killed) before a test ends.
// Nothing here asserts how fast the machine is: tests wait for events (a line
// on stderr, a process's exit), each bounded by a generous timeout, so that
// they pass on a loaded machine too.
// test-runner: slow
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readReceiverRecords, readSenderRecords } from '../../src/salsify/live/records.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const salsify = join(root, 'bin', 'salsify.js');
const linkshell = join(root, 'bin', 'linkshell.js');
const work = mkdtempSync(join(tmpdir(), 'salsify-live-udp-'));
const children = new Set<ChildProcess>();
/** Bounds of the waits below: generous, for a loaded machine; they only bound a test that hangs. */
const START_MS = 60_000;
const RUN_MS = 180_000;

interface Running {
  readonly child: ChildProcess;
  stderr: string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function start(args: string[], options: { env?: NodeJS.ProcessEnv; nodeArgs?: string[] } = {}): Running {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: options.env ?? process.env });
  children.add(child);
  const running: Running = {
    child,
    stderr: '',
    exited: new Promise((resolve) => child.on('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    })),
  };
  child.stderr!.on('data', (d) => (running.stderr += d));
  child.stdout!.resume();
  return running;
}

/** Resolves with the first match of `pattern` in the process's stderr (rejects after `ms`). */
async function waitForStderr(p: Running, pattern: RegExp, ms: number): Promise<RegExpExecArray> {
  const until = Date.now() + ms;
  for (;;) {
    const m = pattern.exec(p.stderr);
    if (m) return m;
    if (Date.now() > until || p.child.exitCode !== null) throw new Error(`no ${pattern} on stderr within ${ms} ms: ${p.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Resolves once `holds()` (checked every 20 ms), or rejects after `ms`. */
async function waitFor(holds: () => boolean, ms: number, what: string): Promise<void> {
  const until = Date.now() + ms;
  while (!holds()) {
    if (Date.now() > until) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Waits for the exit of `p`, killing it if it takes longer than `ms`. */
async function exitOf(p: Running, ms: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const timer = setTimeout(() => p.child.kill('SIGKILL'), ms);
  try {
    return await p.exited;
  } finally {
    clearTimeout(timer);
  }
}

function receiver(dir: string, ...extra: string[]): Running {
  return start([salsify, 'receive', '--port', '0', '--bind', '127.0.0.1', '--out', dir, '--idle-timeout', '1', ...extra]);
}

function analyze(dir: string, ...extra: string[]) {
  const json = join(dir, 'analysis.json');
  const r = spawnSync(process.execPath, [salsify, 'analyze', dir, '--json', json, ...extra], { cwd: root, encoding: 'utf8', timeout: RUN_MS });
  assert.is(r.status, 0, `analyze: ${r.stderr}`);
  return { stdout: r.stdout, out: JSON.parse(readFileSync(json, 'utf8')) };
}

/** A constant-rate trace made by linkshell's generator, as a user would. */
function constantTrace(mbps: number): string {
  const path = join(work, `const-${mbps}.trace`);
  const r = spawnSync(process.execPath, [linkshell, 'gen-trace', 'constant', '--rate', String(mbps), '-o', path], { cwd: root, encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  return path;
}

/** The receiver, then the sender inside linkshell (video on linkshell's uplink), then both exits. */
async function runThroughLinkshell(dir: string, trace: string, receiverArgs: string[], senderArgs: string[], linkArgs: string[] = []) {
  const rx = receiver(dir, ...receiverArgs);
  const [, port] = await waitForStderr(rx, /listening on 127\.0\.0\.1:(\d+)/, START_MS);
  const upLog = join(dir, 'uplink.log');
  // No --to: the sender reads linkshell's listen address from $LINKSHELL_ADDR.
  const shell = start([
    linkshell, '--trace', trace, '--connect', `127.0.0.1:${port}`, '--uplink-queue', 'droptail', '--uplink-queue-args', 'packets=256', '--uplink-log', upLog, ...linkArgs,
    '--', process.execPath, salsify, 'send', '--out', dir, ...senderArgs,
  ]);
  const shellExit = await exitOf(shell, RUN_MS);
  assert.is(shellExit.code, 0, `linkshell + send: ${shell.stderr}`);
  const rxExit = await exitOf(rx, RUN_MS);
  assert.is(rxExit.code, 0, `receive: ${rx.stderr}`);
  return { upLog, senderStderr: shell.stderr, receiverStderr: rx.stderr };
}

test('model codec through linkshell at 4 Mbit/s: frames shown, delay bounded, link used', async () => {
  const dir = join(work, 'model');
  const { upLog, senderStderr } = await runThroughLinkshell(dir, constantTrace(4), [], ['--duration', '3', '--video', 'synthetic:640x360@30']);
  assert.match(senderStderr, /inside applications send to 127\.0\.0\.1:\d+/);
  const sender = readSenderRecords(join(dir, 'sender.jsonl'));
  const rx = readReceiverRecords(join(dir, 'receiver.jsonl'));
  assert.is(sender.captures.length, 90);
  assert.is(sender.end?.reason, 'duration');
  assert.is(rx.run?.runId, sender.header.runId);
  assert.is(rx.end?.reason, 'idle');
  // Captures paced at the frame rate on the monotonic clock: frame i no sooner than captureStartMs + i x 33.3 ms
  // (how much later depends on the machine's load, and is reported by analyze, not asserted).
  sender.captures.forEach((t, i) => {
    const late = t - (sender.header.captureStartMs + (i * 1000) / 30);
    assert.ok(late >= -0.5, `capture ${i} ${-late} ms early`);
  });
  // The receiver recorded the arrival of every frame it showed.
  for (const shown of rx.shown) assert.ok(rx.arrivals.get(shown.frameNumber)?.lastMs! <= shown.t, `frame ${shown.frameNumber}`);

  const { stdout, out } = analyze(dir, '--link-log', upLog);
  assert.match(stdout, /salsify-1 \(live\)/);
  assert.match(stdout, /│ run +│ +delay │ +delay │/);
  const s = out.summary;
  assert.is(s.framesCaptured, 90);
  // Every source frame has one fate; "skipped" is the sender's choice only, as the sender counts it.
  assert.is(s.framesShown + s.framesNeverShown + s.framesLost + s.framesSkipped + s.framesSuperseded, 90);
  assert.is(s.framesSkipped, sender.skipped.size);
  assert.is(s.framesSkipped, (sender.end!.counters as Record<string, number>).skipped);
  assert.is(s.framesSuperseded, (sender.end!.counters as Record<string, number>).superseded);
  assert.is(s.framesShown, rx.shown.length);
  assert.ok(s.framesShown > 0, 'no frame shown');
  assert.ok(s.signalDelayMs.p5 > 0 && s.signalDelayMs.p5 <= s.signalDelayMs.mean && s.signalDelayMs.mean <= s.signalDelayMs.p95, JSON.stringify(s.signalDelayMs));
  assert.ok(s.ssimDb.mean > 5 && s.ssimDb.mean < 40, `SSIM ${s.ssimDb.mean} dB`);
  assert.is(out.ssimFrom, 'model');
  // The link log gives the utilisation: a share of the link, counted as in the simulator.
  assert.ok(s.linkUtilization > 0 && s.linkUtilization <= 1, `utilisation ${s.linkUtilization}`);
  assert.ok(out.link.capacityBytes > 0 && out.link.departedBytes > 0, JSON.stringify(out.link));
  assert.is(s.bytesSent, (sender.end!.counters as Record<string, number>).bytesSent);
  assert.equal(out.notes, []);
  assert.ok(out.captureLatenessMs.mean >= 0, 'capture timers are never early');
});

test('datagrams lost on the link: the sender notices and recovers over real UDP', async () => {
  const dir = join(work, 'loss');
  await runThroughLinkshell(dir, constantTrace(4), [], ['--duration', '3', '--video', 'synthetic:320x180@30'], ['--uplink-loss', '0.03', '--seed', '5']);
  const sender = readSenderRecords(join(dir, 'sender.jsonl'));
  const rx = readReceiverRecords(join(dir, 'receiver.jsonl'));
  assert.ok(sender.losses >= 1, `losses detected: ${sender.losses}`);
  assert.ok(sender.recoveries >= 1, `recoveries: ${sender.recoveries}`);
  // Frames keep being shown after the first recovery.
  const counters = rx.end!.counters as Record<string, number>;
  assert.ok(counters.framesAbandoned + counters.framesConcealed + counters.missingReference > 0, 'the receiver saw incomplete or unreachable frames');
  const { out } = analyze(dir);
  // Frames the link dropped datagrams of are lost; the sender detected it and recovered: frames are shown after the recovery.
  assert.ok(out.summary.framesLost >= 1, `frames lost ${out.summary.framesLost}`);
  const recoveredAt = (readFileSync(join(dir, 'sender.jsonl'), 'utf8').split('\n').map((l) => (l ? JSON.parse(l) : {})).find((r) => r.type === 'recovery') as { t: number }).t;
  const shownAfter = rx.shown.filter((s) => s.t > recoveredAt).length;
  assert.ok(shownAfter > 0, 'no frame shown after the first recovery');
});

test('VP8 at 320x180 through linkshell, pictures saved: SSIM computed against the source', async () => {
  const dir = join(work, 'vp8');
  await runThroughLinkshell(dir, join(root, 'traces', 'const-12mbps.trace'), ['--codec', 'vp8', '--save-video'], ['--duration', '1.5', '--codec', 'vp8', '--video', 'synthetic:320x180@30', '--seed', '7']);
  assert.ok(existsSync(join(dir, 'received.y4m')));
  const { out } = analyze(dir);
  const s = out.summary;
  assert.is(out.ssimFrom, 'saved pictures');
  assert.is(out.config.codec, 'vp8');
  assert.is(out.config.seed, 7);
  assert.ok(s.framesShown > 0, `frames shown ${s.framesShown}`);
  assert.ok(Number.isFinite(s.signalDelayMs.p95), `p95 delay ${s.signalDelayMs.p95} ms`);
  // Real VP8 pictures against the synthetic source: clearly similar, not identical.
  assert.ok(s.ssimDb.mean > 10 && s.ssimDb.mean < 60, `SSIM ${s.ssimDb.mean} dB`);

  // Without the pictures, analyze decodes the saved compressed frames again: the same pictures, the same SSIM.
  const csv = (path: string) => readFileSync(path, 'utf8');
  const a = join(dir, 'from-pictures.csv'), b = join(dir, 'from-frames.csv');
  analyze(dir, '--csv', a);
  rmSync(join(dir, 'received.y4m'));
  const again = analyze(dir, '--csv', b);
  assert.is(again.out.ssimFrom, 'saved frames');
  assert.equal(again.out.summary, out.summary);
  assert.is(csv(b), csv(a));

  // A saved frame altered after the run no longer decodes to the state the receiver reached: refused.
  const ivf = join(dir, 'received.ivf');
  const bytes = readFileSync(ivf);
  bytes[32 + 12 + 40] ^= 0x55; // inside the first frame's data
  writeFileSync(ivf, bytes);
  const r = spawnSync(process.execPath, [salsify, 'analyze', dir], { cwd: root, encoding: 'utf8', timeout: RUN_MS });
  assert.is(r.status, 2, r.stderr);
  assert.match(r.stderr, /received\.ivf: frame 0 decodes to state [0-9a-f]{16}, but the receiver reached [0-9a-f]{16}/);
});

test('signals end both ends cleanly, records complete; a second receiver of another run does not match', async () => {
  const dir = join(work, 'signals');
  const rx = receiver(dir, '--idle-timeout', '300');
  const [, port] = await waitForStderr(rx, /listening on 127\.0\.0\.1:(\d+)/, START_MS);
  // No --duration: the sender runs until a signal.
  const tx = start([salsify, 'send', '--to', `127.0.0.1:${port}`, '--video', 'synthetic:320x180@30', '--out', dir, '--scheme', 'conventional-1s']);
  await waitForStderr(rx, /run [0-9a-f]{8} from/, START_MS);
  // Once the receiver has recorded a few frames shown.
  await waitFor(() => (readFileSync(join(dir, 'receiver.jsonl'), 'utf8').match(/"type":"shown"/g) ?? []).length >= 3, RUN_MS, 'three frames shown');
  tx.child.kill('SIGINT');
  assert.is((await exitOf(tx, RUN_MS)).code, 0, tx.stderr);
  rx.child.kill('SIGTERM');
  assert.is((await exitOf(rx, RUN_MS)).code, 0, rx.stderr);
  const sender = readSenderRecords(join(dir, 'sender.jsonl'));
  const records = readReceiverRecords(join(dir, 'receiver.jsonl'));
  assert.is(sender.end?.reason, 'signal SIGINT');
  assert.is(records.end?.reason, 'signal SIGTERM');
  assert.ok(sender.captures.length >= 3, `${sender.captures.length} captures`);
  assert.is(sender.skipped.size, 0, 'the conventional scheme never skips');
  const { out } = analyze(dir);
  assert.ok(out.summary.framesShown > 0);
  assert.is(out.config.scheme, 'conventional-1s');

  // The receiver's records of another run next to this sender's: refused.
  const other = join(work, 'model', 'receiver.jsonl');
  writeFileSync(join(dir, 'receiver.jsonl'), readFileSync(other));
  const r = spawnSync(process.execPath, [salsify, 'analyze', dir], { cwd: root, encoding: 'utf8' });
  assert.is(r.status, 2);
  assert.match(r.stderr, /records run [0-9a-f]{8} but .*sender\.jsonl records run [0-9a-f]{8}: the records are of different runs/);
});

/**
 * Starts `salsify COMMAND ARGS` held while it loads (test/helpers/hold-loading.mjs: the
 * launcher has started, the program is not loaded yet), signals it there, lets it load on,
 * and returns its exit.
 */
async function signalWhileLoading(dir: string, signal: NodeJS.Signals, args: string[]) {
  const hold = { HOLD_REACHED: join(dir, `${args[0]}.reached`), HOLD_RELEASE: join(dir, `${args[0]}.release`) };
  const p = start([salsify, ...args], { env: { ...process.env, ...hold }, nodeArgs: ['--import', join(root, 'test', 'helpers', 'hold-loading.mjs')] });
  await waitFor(() => existsSync(hold.HOLD_REACHED) || p.child.exitCode !== null, START_MS, `${args[0]} to start loading`);
  p.child.kill(signal);
  writeFileSync(hold.HOLD_RELEASE, '');
  return { p, exit: await exitOf(p, RUN_MS) };
}

test('a signal while the program still loads: both ends exit 0 with complete records of an empty run', async () => {
  const dir = join(work, 'early');
  mkdirSync(dir, { recursive: true });
  const rx = await signalWhileLoading(dir, 'SIGTERM', ['receive', '--port', '0', '--out', dir]);
  assert.equal(rx.exit, { code: 0, signal: null }, rx.p.stderr);
  const received = readReceiverRecords(join(dir, 'receiver.jsonl'));
  assert.is(received.end?.reason, 'signal SIGTERM');
  assert.is(received.run, undefined);
  const tx = await signalWhileLoading(dir, 'SIGINT', ['send', '--to', '127.0.0.1:9', '--out', dir, '--video', 'synthetic:320x180@30']);
  assert.equal(tx.exit, { code: 0, signal: null }, tx.p.stderr);
  const sent = readSenderRecords(join(dir, 'sender.jsonl'));
  assert.is(sent.end?.reason, 'signal SIGINT');
  assert.is(sent.captures.length, 0, 'the signal came before the run started');
  assert.is(sent.header.fps, 30);
});

test('a signal in the first frames of a run: both ends leave complete records that analyze reads', async () => {
  const dir = join(work, 'first-frames');
  const rx = receiver(dir, '--idle-timeout', '300');
  const [, port] = await waitForStderr(rx, /listening on 127\.0\.0\.1:(\d+)/, START_MS);
  const tx = start([salsify, 'send', '--to', `127.0.0.1:${port}`, '--video', 'synthetic:320x180@30', '--out', dir]);
  // As soon as the first datagram of the run reached the receiver.
  await waitForStderr(rx, /run [0-9a-f]{8} from/, START_MS);
  tx.child.kill('SIGTERM');
  assert.equal(await exitOf(tx, RUN_MS), { code: 0, signal: null }, tx.stderr);
  rx.child.kill('SIGINT');
  assert.equal(await exitOf(rx, RUN_MS), { code: 0, signal: null }, rx.stderr);
  const sender = readSenderRecords(join(dir, 'sender.jsonl'));
  const records = readReceiverRecords(join(dir, 'receiver.jsonl'));
  assert.is(sender.end?.reason, 'signal SIGTERM');
  assert.is(records.end?.reason, 'signal SIGINT');
  assert.is(records.run?.runId, sender.header.runId);
  const { out } = analyze(dir);
  assert.is(out.summary.framesCaptured, sender.captures.length);
  assert.ok(out.summary.framesSent >= 1);
  assert.equal(out.notes, []);
});

test('examples/salsify-over-linkshell.sh runs the three commands together', () => {
  const dir = join(work, 'example');
  const r = spawnSync('sh', [join(root, 'examples', 'salsify-over-linkshell.sh'), dir], {
    cwd: root, encoding: 'utf8', timeout: RUN_MS,
    env: { ...process.env, DURATION: '1', VIDEO: 'synthetic:320x180@30', TRACE: 'traces/const-12mbps.trace' },
  });
  assert.is(r.status, 0, r.stderr + r.stdout);
  assert.match(r.stdout, /salsify-1 \(live\)/);
  const out = JSON.parse(readFileSync(join(dir, 'analysis.json'), 'utf8'));
  assert.is(out.summary.framesCaptured, 30);
  assert.ok(out.summary.framesShown > 0);
  assert.ok(out.summary.linkUtilization > 0);
});

test.after(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

test.run();
