// The live commands' records: reading them back (every field checked, errors
// naming file, line and field), analysing a hand-made run with known figures,
// refusing mismatched runs, fuzzed files, and the commands' argument errors.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRng } from '../../src/common/random.ts';
import { analyzeLiveRun } from '../../src/salsify/live/analyze.ts';
import { readReceiverRecords, readSenderRecords, runIdOf } from '../../src/salsify/live/records.ts';
import { parseReceiveArgs } from '../../src/cli/salsify-receive.ts';
import { parseSendArgs } from '../../src/cli/salsify-send.ts';
import { ssimToDb } from '../../src/codec-bridge/ssim-db.ts';
import { formatY4mHeader } from '../../src/codec-bridge/video/y4m.ts';
import { openVideo } from '../../src/salsify/open-inputs.ts';
import { rejects } from '../helpers/rejects.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin', 'salsify.js');
const work = mkdtempSync(join(tmpdir(), 'salsify-live-records-'));
let dirs = 0;

const START = 1_700_000_000_000;
const CONNECTION = 0x0badcafe;
const STATE = ['0000000000000000', '1111111111111111', '2222222222222222'];

function senderHeader(overrides: Record<string, unknown> = {}) {
  return {
    type: 'sender', version: 2, runId: runIdOf(CONNECTION), connectionId: CONNECTION, startMs: START - 20, captureStartMs: START, video: 'synthetic:64x64@10', seed: 1,
    scheme: 'salsify-1', codec: 'model', budgetMs: 100, width: 64, height: 64, fps: 10, durationS: 0.4, to: '127.0.0.1:9', ...overrides,
  };
}

function receiverHeader(overrides: Record<string, unknown> = {}) {
  return { type: 'receiver', version: 2, startMs: START - 500, codec: 'model', listen: '127.0.0.1:9', video: null, frames: null, ...overrides };
}

const jsonl = (lines: object[]) => lines.map((l) => JSON.stringify(l)).join('\n') + '\n';

/**
 * A run of 4 source frames captured 100 ms apart: frame 0 sent (frame number 0)
 * and shown at 50 ms; frame 1 skipped; frame 2 sent (1) and shown at 250 ms;
 * frame 3 sent (2), one of its two datagrams arrived (lost); the run ends at 500 ms.
 */
function sampleRun() {
  const t = (ms: number) => START + ms;
  const sender = [
    senderHeader(),
    { type: 'capture', t: t(0), i: 0 },
    { type: 'sent', t: t(5), i: 0, frame: 0, bytes: 1000, q: 40, key: true },
    { type: 'capture', t: t(100), i: 1 },
    { type: 'skip', t: t(105), i: 1 },
    { type: 'capture', t: t(200), i: 2 },
    { type: 'sent', t: t(205), i: 2, frame: 1, bytes: 500, q: 50, key: false },
    { type: 'capture', t: t(300), i: 3 },
    { type: 'sent', t: t(305), i: 3, frame: 2, bytes: 400, q: 60, key: false },
    { type: 'end', t: t(400), reason: 'duration', counters: { bytesSent: 2000 } },
  ];
  const receiver = [
    receiverHeader(),
    { type: 'run', t: t(10), runId: runIdOf(CONNECTION), connectionId: CONNECTION, peer: '127.0.0.1:1234' },
    { type: 'arrival', t: t(12), frame: 0, first: t(10), fragments: 1, of: 1 },
    { type: 'shown', t: t(50), frame: 0, bytes: 1000, src: STATE[0], dst: STATE[1], ssim: 0.9 },
    { type: 'arrival', t: t(210), frame: 1, first: t(208), fragments: 2, of: 2 },
    { type: 'shown', t: t(250), frame: 1, bytes: 500, src: STATE[1], dst: STATE[2], ssim: 0.99 },
    { type: 'arrival', t: t(310), frame: 2, first: t(310), fragments: 1, of: 2 },
    { type: 'end', t: t(500), reason: 'idle', counters: { framesShown: 2 } },
  ];
  return { sender, receiver };
}

function runDir(sender: object[] | string, receiver: object[] | string): string {
  const dir = join(work, `run-${dirs++}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'sender.jsonl'), typeof sender === 'string' ? sender : jsonl(sender));
  writeFileSync(join(dir, 'receiver.jsonl'), typeof receiver === 'string' ? receiver : jsonl(receiver));
  return dir;
}

test('a hand-made run gives the figures of the reference definitions', async () => {
  const { sender, receiver } = sampleRun();
  const dir = runDir(sender, receiver);
  const a = await analyzeLiveRun(dir);
  // Delays: frame 0 shown at 50; frames 1 and 2 caught up by frame 2's show at 250;
  // frame 3 never caught up: the end of the run (500) - 300, a lower bound.
  assert.equal(a.frames.map((f) => f.signalDelayMs), [50, 150, 50, 200]);
  assert.equal(a.frames.map((f) => f.fate), ['shown', 'skipped', 'shown', 'lost']);
  assert.equal(a.frames.map((f) => f.sendMs), [25, undefined, 225, 325], 'relative to the sender start');
  assert.equal(a.frames.map((f) => [f.firstArrivalMs, f.lastArrivalMs]), [[30, 32], [undefined, undefined], [228, 230], [330, undefined]]);
  assert.is(a.summary.framesCaptured, 4);
  assert.is(a.summary.framesSent, 3);
  assert.is(a.summary.framesShown, 2);
  assert.is(a.summary.framesSkipped, 1);
  assert.is(a.summary.framesLost, 1);
  assert.is(a.summary.framesNeverShown, 0);
  assert.is(a.summary.framesSuperseded, 0);
  assert.is(a.summary.framesNotCaughtUp, 1);
  assert.is(a.summary.bytesSent, 2000);
  assert.is(a.summary.signalDelayMs.mean, 112.5);
  assert.ok(Math.abs(a.summary.ssimDb.mean - ssimToDb((0.9 + 0.99) / 2)) < 1e-9);
  assert.is(a.ssimFrom, 'model');
  assert.ok(Number.isNaN(a.summary.linkUtilization), 'no link log: utilisation unknown');
  assert.is(a.config.runId, '0badcafe');
  assert.equal(a.notes, []);
  assert.equal(a.captureLatenessMs, { mean: 0, max: 0 });
});

test('SSIM from saved pictures compares with the source at the rate the sender ran it (--fps): a synthetic scene moves with time', async () => {
  // The sender ran `--video synthetic:64x64 --fps 10`; the receiver saved exactly the pictures of source frames 0 and 2.
  const { sender, receiver } = sampleRun();
  const header = senderHeader({ video: 'synthetic:64x64' });
  const saved = receiver.map((r) => (r.type === 'receiver' ? receiverHeader({ video: 'received.y4m' }) : r));
  let picture = 0;
  const unscored = saved.map((r) => {
    if (r.type !== 'shown') return r;
    const { ssim: _ssim, ...rest } = r as Record<string, unknown>;
    return { ...rest, picture: picture++ };
  });
  const dir = runDir([header, ...sender.slice(1)], unscored);
  const source = await openVideo('synthetic:64x64', 1, { fps: 10 });
  const frames: Buffer[] = [Buffer.from(formatY4mHeader({ width: 64, height: 64, fps: 10 }))];
  for (const index of [0, 2]) frames.push(Buffer.from('FRAME\n'), Buffer.from((await source.frame(index)).data));
  await source.close();
  writeFileSync(join(dir, 'received.y4m'), Buffer.concat(frames));
  const a = await analyzeLiveRun(dir);
  assert.is(a.ssimFrom, 'saved pictures');
  assert.equal(a.frames.map((f) => f.ssim), [1, undefined, 1, undefined], 'the pictures are the source frames of the 10 fps scene');
});

test('a frame whose datagrams all arrived but that was not shown is never-shown, not lost', async () => {
  const { sender, receiver } = sampleRun();
  const whole = receiver.map((r) => (r.type === 'arrival' && (r as { frame: number }).frame === 2 ? { ...r, fragments: 2 } : r));
  const a = await analyzeLiveRun(runDir(sender, whole));
  assert.equal(a.frames.map((f) => f.fate), ['shown', 'skipped', 'shown', 'never-shown']);
  assert.equal([a.summary.framesLost, a.summary.framesNeverShown], [0, 1]);
});

test('a frame shown concealed from the datagrams that arrived is shown, without a last arrival; concealed with no arrival record is refused', async () => {
  const { sender, receiver } = sampleRun();
  const end = receiver.pop()!;
  const concealed = { type: 'shown', t: START + 340, frame: 2, bytes: 200, src: STATE[2], dst: STATE[0], ssim: 0.8, concealed: true, from: STATE[2], reached: 'abababababababab', length: 400 };
  const a = await analyzeLiveRun(runDir(sender, [...receiver, concealed, end]));
  assert.equal(a.frames.map((f) => f.fate), ['shown', 'skipped', 'shown', 'shown']);
  assert.equal([a.frames[3].firstArrivalMs, a.frames[3].lastArrivalMs, a.frames[3].ssim], [330, undefined, 0.8]);
  assert.is(a.summary.framesLost, 0);
  const noArrival = receiver.filter((r) => !(r.type === 'arrival' && (r as { frame: number }).frame === 2));
  await rejects(analyzeLiveRun(runDir(sender, [...noArrival, concealed, end])), /frame number 2 is shown concealed, but no earlier arrival record says some of it arrived/);
  const { reached: _, ...incomplete } = concealed;
  await rejects(analyzeLiveRun(runDir(sender, [...receiver, incomplete, end])), /field "reached" is missing/);
});

test('frames count as captured at their nominal instants; late capture timers are reported', async () => {
  const { sender, receiver } = sampleRun();
  const late = sender.map((r) => (r.type === 'capture' ? { ...r, t: (r as { t: number }).t + 4 } : r));
  const a = await analyzeLiveRun(runDir(late, receiver));
  assert.equal(a.frames.map((f) => f.captureMs), [20, 120, 220, 320], 'relative to the sender start, 20 ms before capture 0');
  assert.equal(a.frames.map((f) => f.signalDelayMs), [50, 150, 50, 200]);
  assert.equal(a.captureLatenessMs, { mean: 4, max: 4 });
});

test('analyze refuses records of different runs, codecs, or a receiver that saw no run', async () => {
  const { sender, receiver } = sampleRun();
  const other = 0x12345678;
  const foreign = receiver.map((r) => (r.type === 'run' ? { ...r, runId: runIdOf(other), connectionId: other } : r));
  await rejects(analyzeLiveRun(runDir(sender, foreign)), /receiver\.jsonl records run 12345678 but .*sender\.jsonl records run 0badcafe: the records are of different runs/);
  const vp8 = [receiverHeader({ codec: 'vp8' }), ...receiver.slice(1)];
  await rejects(analyzeLiveRun(runDir(sender, vp8)), /decoded with the vp8 codec but the sender encoded with model/);
  await rejects(analyzeLiveRun(runDir(sender, [receiverHeader()])), /recorded no run .* cannot be matched with run 0badcafe/);
  const phantom = [...receiver.slice(0, 2), { type: 'arrival', t: START + 55, frame: 7, first: START + 55, fragments: 1, of: 1 }, { type: 'shown', t: START + 60, frame: 7, bytes: 10, src: STATE[0], dst: STATE[1] }];
  await rejects(analyzeLiveRun(runDir(sender, phantom)), /frame 7 was shown, but .*sender\.jsonl records no such frame sent/);
  const dir = join(work, `run-${dirs++}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'receiver.jsonl'), jsonl(receiver));
  await rejects(analyzeLiveRun(dir), /sender\.jsonl: no such file \(the sender's records\)/);
});

test('a sender or receiver that did not stop cleanly is noted, not fatal', async () => {
  const { sender, receiver } = sampleRun();
  const a = await analyzeLiveRun(runDir(sender.slice(0, -1), receiver.slice(0, -1)));
  assert.is(a.summary.bytesSent, 1900, 'frame sizes when the sender recorded no total');
  assert.is(a.notes.length, 2);
  assert.match(a.notes[0], /no end record with bytesSent/);
  assert.match(a.notes[1], /receiver\.jsonl has no end record/);
  // The run then ends at the latest record (the receiver's arrival record at 310): frame 3 waits until then.
  assert.is(a.frames[3].signalDelayMs, 10);
});

test('link utilisation from a link log, over the capture window only', async () => {
  const { sender, receiver } = sampleRun();
  const dir = runDir(sender, receiver);
  // Log times count from START - 1000; captures span [START, START + 400).
  const lines = ['# init timestamp: ' + (START - 1000), '# base timestamp: 0'];
  for (let t = 900; t < 1600; t += 100) lines.push(`${t} # 1500`); // opportunities at 900..1500: 4 inside the window
  lines.push('1000 + 1000', '1000 - 1000 0', '1200 + 500', '1200 - 500 0', '1500 + 900', '1500 - 900 0'); // the last departure is after the window
  // In time order, as mm-link writes a log (the log parser refuses times that decrease).
  const events = lines.splice(2).sort((x, y) => Number(x.split(' ')[0]) - Number(y.split(' ')[0]));
  const log = join(dir, 'uplink.log');
  writeFileSync(log, [...lines, ...events].join('\n') + '\n');
  const a = await analyzeLiveRun(dir, { linkLog: log });
  assert.is(a.summary.linkUtilization, 1500 / (4 * 1500));
  writeFileSync(log, '# init timestamp: 5\n1 # 1500\n');
  await rejects(analyzeLiveRun(dir, { linkLog: log }), /do not cover the run's captures .* a log of another run\?/);
  writeFileSync(log, '1 # 1500\n');
  await rejects(analyzeLiveRun(dir, { linkLog: log }), /no "# init timestamp" line/);
  await rejects(analyzeLiveRun(dir, { linkLog: join(dir, 'nope.log') }), /--link-log .*nope\.log: no such file/);
});

test('malformed records: the error names the file, the line and the field', () => {
  const { sender, receiver } = sampleRun();
  const cases: [object[] | string, RegExp][] = [
    ['', /sender\.jsonl: empty/],
    [jsonl(sender.slice(0, 3)) + '{"type":"capture","t":', /sender\.jsonl:4: not a JSON object \(a last line cut short/],
    [[sender[0], { type: 'capture', i: 0 }], /sender\.jsonl:2: field "t" is missing/],
    [[sender[0], { type: 'capture', t: 'soon', i: 0 }], /sender\.jsonl:2: field "t" must be a finite number, got "soon"/],
    [[sender[0], { type: 'capture', t: START, i: 1 }], /sender\.jsonl:2: capture of source frame 1 out of order \(expected frame 0\)/],
    [[sender[0], { type: 'sent', t: START, i: 0, frame: 0, bytes: 10, q: 1, key: true }], /sender\.jsonl:2: source frame 0 was not captured before/],
    [[sender[0], sender[1], { type: 'sent', t: START, i: 0, frame: 0, bytes: 10, q: 300, key: true }], /sender\.jsonl:3: field "q" must be an integer from 0 to 127, got 300/],
    [[sender[0], { type: 'teleport', t: START }], /sender\.jsonl:2: unknown record type "teleport"/],
    [[sender[0], sender[9], sender[1]], /sender\.jsonl:3: a record after the end record/],
    [[senderHeader({ version: 1 })], /sender\.jsonl:1: records of version 1; this salsify reads version 2/],
    [[senderHeader({ scheme: 'webrtc' })], /sender\.jsonl:1: field "scheme" must be one of salsify-1, salsify-2, conventional-1s, salsify-nograce, salsify-targetsize, salsify-4, webrtc-like, got "webrtc"/],
    [[senderHeader({ runId: 'abcdef01' })], /sender\.jsonl:1: field "runId" abcdef01 is not connection id/],
    [[receiver[0]], /sender\.jsonl:1: expected the sender's header/],
    [[1, 2, 3] as unknown as object[], /sender\.jsonl:1: not a JSON object/],
  ];
  for (const [text, pattern] of cases) {
    const dir = runDir(text, receiver);
    assert.throws(() => readSenderRecords(join(dir, 'sender.jsonl')), pattern, String(pattern));
  }
  const receiverCases: [object[], RegExp][] = [
    [[receiver[0], receiver[3]], /receiver\.jsonl:2: a shown frame before the run record/],
    [[receiver[0], receiver[2]], /receiver\.jsonl:2: an arrival before the run record/],
    [[receiver[0], receiver[1], receiver[3]], /receiver\.jsonl:3: frame number 0 is shown, but no earlier arrival record says all of it arrived/],
    [[receiver[0], receiver[1], receiver[6], receiver[5]], /receiver\.jsonl:4: frame number 1 is shown, but no earlier arrival record/],
    [[receiver[0], receiver[1], receiver[2], receiver[2]], /receiver\.jsonl:4: a second arrival record of frame number 0/],
    [[receiver[0], receiver[1], { ...receiver[2], first: START + 13 }], /receiver\.jsonl:3: field "first" \d+ is after the last arrival/],
    [[receiver[0], receiver[1], { ...receiver[2], fragments: 2 }], /receiver\.jsonl:3: field "fragments" must be an integer from 1 to 1, got 2/],
    [[receiver[0], receiver[1], receiver[1]], /receiver\.jsonl:3: a second run record/],
    [[receiver[0], receiver[1], receiver[2], receiver[3], receiver[3]], /receiver\.jsonl:5: frame number 0 is shown twice/],
    [[receiver[0], receiver[1], receiver[2], { ...receiver[3], ssim: 3 }], /receiver\.jsonl:4: field "ssim" must be a number from -1 to 1, got 3/],
    [[receiver[0], receiver[1], receiver[2], { ...receiver[3], picture: 4 }], /receiver\.jsonl:4: field "picture" is 4, expected 0/],
    [[receiverHeader({ video: 7 })], /receiver\.jsonl:1: field "video" must be null or a file name, got 7/],
    [[receiverHeader({ frames: '../../etc/passwd' })], /receiver\.jsonl:1: field "frames" must be null or a file name, got "..\/..\/etc\/passwd"/],
    [[receiver[0], receiver[1], receiver[2], { ...receiver[3], dst: 'xyz' }], /receiver\.jsonl:4: field "dst" must be a string matching/],
  ];
  for (const [lines, pattern] of receiverCases) {
    const dir = runDir(sender, lines);
    assert.throws(() => readReceiverRecords(join(dir, 'receiver.jsonl')), pattern, String(pattern));
  }
});

test('fuzz: random bytes and mutated records give an Error naming the file, or records', () => {
  const rng = createRng('live-records-fuzz');
  const { sender, receiver } = sampleRun();
  const good = { sender: jsonl(sender), receiver: jsonl(receiver) };
  const dir = join(work, 'fuzz');
  mkdirSync(dir);
  let parsed = 0, rejected = 0;
  for (let round = 0; round < 400; round++) {
    const which = round % 2 === 0 ? 'sender' : 'receiver';
    let bytes: Buffer;
    if (round % 4 < 2) {
      bytes = Buffer.alloc(rng.int(200));
      for (let i = 0; i < bytes.length; i++) bytes[i] = rng.int(256);
    } else {
      // Mutate a valid file: overwrite, delete or insert a few characters.
      const chars = [...good[which]];
      for (let k = 1 + rng.int(4); k > 0; k--) {
        const at = rng.int(chars.length);
        const op = rng.int(3);
        const c = '{}[]":,0123456789-.etrufalsn '[rng.int(29)];
        if (op === 0) chars[at] = c;
        else if (op === 1) chars.splice(at, 1);
        else chars.splice(at, 0, c);
      }
      bytes = Buffer.from(chars.join(''));
    }
    const path = join(dir, `${which}.jsonl`);
    writeFileSync(path, bytes);
    try {
      if (which === 'sender') readSenderRecords(path);
      else readReceiverRecords(path);
      parsed++;
    } catch (error) {
      assert.instance(error, Error);
      assert.ok((error as Error).message.startsWith(path), `error names the file: ${(error as Error).message}`);
      assert.not.match((error as Error).message, /undefined|Cannot read prop/, (error as Error).message);
      rejected++;
    }
  }
  assert.ok(rejected > 300, `most fuzzed files are rejected (${rejected})`);
  assert.ok(parsed > 0, 'some mutations leave valid records');
});

test('argument parsing: defaults, $LINKSHELL_ADDR, and one-line errors', () => {
  const p = parseSendArgs(['--duration', '2'], { LINKSHELL_ADDR: '127.0.0.1:4000' });
  assert.ok(!p.help);
  if (!p.help) {
    assert.is(p.args.to, '127.0.0.1:4000');
    assert.is(p.args.scheme, 'salsify-1');
    assert.is(p.args.codec, 'model');
    assert.is(p.args.video, 'synthetic');
    assert.is(p.args.durationS, 2);
    assert.is(p.args.connectionId, undefined);
  }
  const r = parseReceiveArgs(['--port', '0', '--out', 'x']);
  assert.ok(!r.help);
  if (!r.help) {
    assert.is(r.args.bind, '127.0.0.1');
    assert.is(r.args.idleTimeoutMs, 3000);
    assert.is(r.args.saveVideo, false);
  }
  assert.throws(() => parseSendArgs([], {}), /--to HOST:PORT is required/);
  assert.throws(() => parseSendArgs(['--to', 'nowhere'], {}), /--to: no ":PORT"/);
  assert.throws(() => parseSendArgs(['--to', '127.0.0.1:1', '--run-id', 'xyz'], {}), /--run-id must be 8 hex digits/);
  assert.throws(() => parseReceiveArgs(['--port', '1']), /--out DIR is required/);
});

test('the commands: bad arguments exit with status 2 and one line naming them', () => {
  const run = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: 'utf8', timeout: 20000, env: { ...process.env, LINKSHELL_ADDR: '' } });
  for (const [args, pattern] of [
    [['send', '--to', '127.0.0.1:9', '--scheme', 'webrtc'], /^salsify send: --scheme must be one of salsify-1, salsify-2, conventional-1s, salsify-nograce, salsify-targetsize, salsify-4, webrtc-like, got "webrtc"/],
    [['send', '--to', '127.0.0.1:9', '--duration=-1'], /^salsify send: --duration must be a duration .* more than 0ms and at most 1440min, got "-1"/],
    [['send', '--to', '127.0.0.1:9', '--video', join(work, 'missing.y4m'), '--duration', '1'], /^salsify send: --video: cannot read .*missing\.y4m: no such file or directory/],
    [['receive', '--port', '70000', '--out', work], /^salsify receive: --port must be an integer from 0 to 65535, got "70000"/],
    [['receive', '--port', '0', '--out', work, '--codec', 'h264'], /^salsify receive: --codec must be one of model, vp8, got "h264"/],
    [['analyze'], /^salsify analyze: the run directory DIR is required/],
    [['analyze', join(work, 'no-such-run')], /^salsify analyze: .*no-such-run\/sender\.jsonl: no such file/],
    [['analyze', work, '--bogus'], /^salsify analyze: .*bogus/],
  ] as const) {
    const r = run(...args);
    assert.is(r.status, 2, `${args.join(' ')}: status ${r.status}, stderr ${r.stderr}`);
    assert.match(r.stderr, pattern);
    assert.is(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`);
  }
  const help = run('send', '--help');
  assert.is(help.status, 0);
  assert.match(help.stdout, /Usage: salsify send --to HOST:PORT/);
});

test.after(() => {
  rmSync(work, { recursive: true, force: true });
});

test.run();
