// --fps N for salsify sim and salsify send: a frame rate (> 0, at most 1000)
// that overrides the video's own, passed to the video layer. An IVF header
// holds a time base, not a rate (ffmpeg often writes 1/1000): the rate comes
// from the frame timestamps unless --fps gives it. In sim it is part of the
// run's config (in --json, so that the run can be replayed).
import { spawnSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { errorCodeOf } from '../../src/common/errors.ts';
import { parseSimArgs } from '../../src/cli/salsify.ts';
import { parseSendArgs } from '../../src/cli/salsify-send.ts';
import { readSenderRecords } from '../../src/salsify/live/records.ts';
import { requires } from '../helpers/requires.ts';
import { HANG_BOUND_MS } from '../helpers/bounds.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin', 'salsify.js');
const dir = mkdtempSync(join(tmpdir(), 'fps-option-test-'));
const LINKS = ['--downlink', 'const:2', '--uplink', 'const:2'];

function badArgument(parse: () => unknown, pattern: RegExp): void {
  try {
    parse();
  } catch (error) {
    assert.is(errorCodeOf(error), 'ERR_BAD_ARGUMENT', (error as Error).message);
    assert.match((error as Error).message, pattern);
    return;
  }
  assert.unreachable(`accepted, expected ${pattern}`);
}

test('--fps: a frame rate > 0 and at most 1000, or absent (the video\'s own rate)', () => {
  assert.is(parseSimArgs(LINKS).configs[0]!.fps, null);
  assert.is(parseSimArgs([...LINKS, '--fps', '25']).configs[0]!.fps, 25);
  assert.is(parseSimArgs([...LINKS, '--fps=29.97']).configs[0]!.fps, 29.97);
  assert.is(parseSimArgs([...LINKS, '--fps', '1000']).configs[0]!.fps, 1000);
  const send = (...extra: string[]) => {
    const p = parseSendArgs(['--to', '127.0.0.1:9', ...extra], {});
    return p.help ? 'help' : p.args.fps;
  };
  assert.is(send(), undefined);
  assert.is(send('--fps', '30'), 30);
  for (const bad of ['0', '-1', '1001', '1e9', 'abc', '', 'NaN', 'Infinity']) {
    const want = new RegExp(`^--fps must be a number > 0 and at most 1000 frames per second, got ${JSON.stringify(JSON.stringify(bad)).slice(1, -1)}`);
    badArgument(() => parseSimArgs([...LINKS, `--fps=${bad}`]), want);
    badArgument(() => parseSendArgs(['--to', '127.0.0.1:9', `--fps=${bad}`], {}), want);
  }
});

test('--fps contradicting a synthetic:WxH@FPS spec: one line, exit 2', () => {
  const r = spawnSync(process.execPath, [bin, 'sim', ...LINKS, '--video', 'synthetic:64x64@30', '--fps', '25', '--duration', '0.2'], { cwd: root, encoding: 'utf8', timeout: HANG_BOUND_MS });
  assert.is(r.status, 2, r.stderr);
  assert.match(r.stderr, /^salsify sim: --video: .*fps is 30 in "synthetic:64x64@30" but 25/);
  assert.is(r.stderr.trim().split('\n').length, 1, r.stderr);
});

const withFfmpeg = requires(['ffmpeg']);

/** A 1 s VP8 clip at 25 fps as ffmpeg writes it from WebM: time base 1/1000, timestamps in ms. */
function ffmpegIvf(): string {
  const webm = join(dir, 'clip.webm');
  const ivf = join(dir, 'clip.ivf');
  for (const args of [
    ['-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=25', '-t', '1', '-c:v', 'libvpx', webm],
    ['-i', webm, '-c', 'copy', ivf],
  ]) {
    const r = spawnSync('ffmpeg', ['-v', 'error', '-nostdin', '-y', ...args], { encoding: 'utf8', timeout: HANG_BOUND_MS });
    if (r.status !== 0) throw new Error(`ffmpeg ${args.join(' ')} failed: ${r.stderr || r.error?.message}`);
  }
  return ivf;
}

function salsify(...args: string[]) {
  return spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: 'utf8', timeout: HANG_BOUND_MS, env: { ...process.env, LINKSHELL_ADDR: '' } });
}

withFfmpeg('salsify sim and salsify send on an ffmpeg IVF (time base 1/1000): 25 fps from its timestamps, or --fps', async () => {
  const ivf = ffmpegIvf();
  for (const [extra, fps] of [[[], 25], [['--fps', '50'], 50]] as const) {
    const json = join(dir, `sim-${fps}.json`);
    const r = salsify('sim', ...LINKS, '--video', ivf, '--duration', '2', '--json', json, ...extra);
    assert.is(r.status, 0, r.stderr);
    const out = JSON.parse(readFileSync(json, 'utf8'));
    assert.is(out.summary.framesCaptured, 2 * fps, `sim ${extra.join(' ')}`);
    assert.is(out.config.fps, extra.length === 0 ? null : fps, 'the config records --fps');
  }
  // The sender against a bound socket that only swallows datagrams (the records are what counts here).
  const sink = createSocket('udp4');
  await new Promise<void>((resolve) => sink.bind(0, '127.0.0.1', resolve));
  try {
    const to = `127.0.0.1:${sink.address().port}`;
    for (const [extra, fps] of [[[], 25], [['--fps', '50'], 50]] as const) {
      const out = join(dir, `send-${fps}`);
      const r = salsify('send', '--to', to, '--video', ivf, '--duration', '1', '--drain', '0', '--out', out, ...extra);
      assert.is(r.status, 0, r.stderr);
      const records = readSenderRecords(join(out, 'sender.jsonl'));
      assert.is(records.header.fps, fps, `send ${extra.join(' ')}`);
      assert.is(records.captures.length, fps, 'one second of captures at that rate');
    }
  } finally {
    sink.close();
  }
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();
