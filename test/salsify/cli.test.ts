import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSimArgs } from '../../src/cli/salsify.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin', 'salsify.js');
const run = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: 'utf8' });

test('defaults: drop-tail of 256 packets, salsify-1, synthetic video, model codec', () => {
  const { configs } = parseSimArgs(['--downlink', 'const:2', '--uplink', 'x.up']);
  assert.is(configs.length, 1);
  const c = configs[0];
  assert.is(c.scheme, 'salsify-1');
  assert.is(c.queue, 'droptail');
  assert.is(c.queueArgs, 'packets=256');
  assert.equal(c.downlink, { constantMbps: 2 });
  assert.is(c.uplink, 'x.up');
  assert.is(c.video, 'synthetic');
  assert.is(c.codec, 'model');
  assert.is(c.grace, true);
  assert.is(c.frameClock, undefined, 'left to the simulator: next-frame, or the paper camera with --encode-timing paper');
  assert.is(parseSimArgs(['--downlink', 'a', '--uplink', 'b', '--encode-timing', 'paper']).configs[0].frameClock, 'single-buffer');
  assert.is(parseSimArgs(['--downlink', 'a', '--uplink', 'b', '--encode-timing', 'paper', '--frame-clock', 'next-frame']).configs[0].frameClock, 'next-frame');
  assert.is(parseSimArgs(['--downlink', 'a', '--uplink', 'b', '--frame-clock', 'newest-frame']).configs[0].frameClock, 'newest-frame');
  const two = parseSimArgs(['--downlink', 'a', '--uplink', 'b', '--scheme', 'salsify-2,conventional-1s', '--queue', 'infinite', '--no-grace', '--downlink-onoff', '500,100']);
  assert.equal(two.configs.map((x) => x.scheme), ['salsify-2', 'conventional-1s']);
  assert.is(two.configs[0].queueArgs, '');
  assert.is(two.configs[0].grace, false);
  assert.is(c.conceal, undefined, 'concealment is the default, and unset (so run hashes do not change)');
  assert.is(parseSimArgs(['--downlink', 'a', '--uplink', 'b', '--no-conceal']).configs[0].conceal, false);
  assert.equal(two.configs[1].downlinkOnOff, { meanOnMs: 500, meanOffMs: 100 });
  assert.is(c.downlinkLossAt, undefined);
  assert.is(parseSimArgs(['--downlink', 'a', '--uplink', 'b', '--downlink-loss-at', 'delivery']).configs[0].downlinkLossAt, 'delivery');
  assert.is(parseSimArgs(['--preset', 'wifi']).configs[0].downlinkLossAt, 'delivery');
  assert.is(parseSimArgs(['--preset', 'wifi', '--downlink-loss-at', 'entry']).configs[0].downlinkLossAt, 'entry');
});

test('a scheme that models another system is labelled a model in the printed table', () => {
  const r = run('sim', '--downlink', 'const:4', '--uplink', 'const:4', '--scheme', 'webrtc-like,salsify-1', '--duration', '2');
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, /webrtc-like \(model\)/);
  assert.not.match(r.stdout, /salsify-1 \(model\)/);
});

test('bad arguments exit with status 2 and a one-line message naming them', () => {
  for (const [args, pattern] of [
    [['sim', '--uplink', 'const:2'], /--downlink/],
    [['sim', '--downlink', 'const:2', '--uplink', 'const:2', '--scheme', 'webrtc'], /webrtc/],
    [['sim', '--downlink', 'const:2', '--uplink', 'const:2', '--delay', '-3'], /--delay/],
    [['sim', '--downlink', 'const:2', '--uplink', 'const:2', '--downlink-loss', '2'], /--downlink-loss/],
    [['sim', '--downlink', 'const:2', '--uplink', 'const:2', '--downlink-loss-at', 'middle'], /--downlink-loss-at/],
    [['sim', '--downlink', 'no-such.trace', '--uplink', 'const:2', '--duration', '0.1'], /no-such\.trace/],
    [['sim', '--downlink', 'const:2', '--uplink', 'const:2', '--bogus'], /bogus/],
    [['sim', '--downlink', 'const:2', '--uplink', 'const:2', '--frame-clock', 'oldest'], /--frame-clock must be one of next-frame, newest-frame, single-buffer, got "oldest"/],
    [['sim', '--downlink', 'const:2', '--uplink', 'const:2', '--video', 'clip.mp4', '--duration', '0.1'], /clip\.mp4/],
    [['sim', '--downlink', 'const:2', '--uplink', 'const:2', '--duration', '1e9'], /--duration must be .*, got "1e9"/],
    [['sim', '--downlink', 'const:2', '--uplink', 'const:2', '--delay', '1e300'], /--delay must be .*, got "1e300"/],
    [['sim', '--downlink', 'const:2', '--uplink', 'const:2', '--seed', 'abc'], /--seed must be a non-negative integer/],
    [['sim', '--downlink', 'const:2', '--uplink', 'const:2', '--queue', 'codel'], /--queue: queue codel: /],
    [['frobnicate'], /^salsify: unknown command "frobnicate"/],
    [[], /^salsify: a COMMAND is required/],
  ] as const) {
    const r = run(...args);
    assert.is(r.status, 2, `${args.join(' ')}: status ${r.status}, stderr ${r.stderr}`);
    assert.match(r.stderr, pattern);
    assert.is(r.stderr.trimEnd().split('\n').length, 1, `one line: ${r.stderr}`);
  }
});

test('sim writes the table, the JSON (config + summary) and the per-frame CSV', () => {
  const dir = mkdtempSync(join(tmpdir(), 'salsify-cli-'));
  try {
    const json = join(dir, 'out.json');
    const r = run('sim', '--downlink', 'const:2', '--uplink', 'const:2', '--video', 'synthetic:320x180', '--duration', '1', '--json', json, '--log-dir', join(dir, 'logs'));
    assert.is(r.status, 0, r.stderr);
    assert.match(r.stdout, /salsify-1/);
    assert.match(r.stdout, /│ run +│ +delay │ +delay │/);
    const out = JSON.parse(readFileSync(json, 'utf8'));
    assert.is(out.config.scheme, 'salsify-1');
    assert.is(out.config.queueArgs, 'packets=256');
    for (const k of ['mean', 'p5', 'p95']) {
      assert.type(out.summary.signalDelayMs[k], 'number');
      assert.type(out.summary.ssimDb[k], 'number');
    }
    for (const k of ['framesCaptured', 'framesShown', 'framesSkipped', 'bytesSent', 'linkUtilization']) assert.type(out.summary[k], 'number');
    assert.is(out.summary.framesCaptured, 60);
    const csv = readFileSync(join(dir, 'logs', 'salsify-1.frames.csv'), 'utf8').trim().split('\n');
    assert.is(csv.length, 61);
    assert.match(csv[0], /^source_index,capture_ms,fate/);
    const again = JSON.parse(readFileSync(join(dir, 'logs', 'salsify-1.json'), 'utf8'));
    assert.equal(again, out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an output that cannot be written: one line naming it, exit 2, no stack trace', () => {
  const dir = mkdtempSync(join(tmpdir(), 'salsify-cli-'));
  const sim = ['sim', '--downlink', 'const:2', '--uplink', 'const:2', '--video', 'synthetic:64x64', '--duration', '0.2'];
  writeFileSync(join(dir, 'file'), ''); // a file where a directory must go
  try {
    for (const [args, pattern] of [
      [[...sim, '--json', join(dir, 'no-dir', 'out.json')], /^salsify sim: --json: cannot write .*no-dir\/out\.json: its directory .*no-dir does not exist\n$/],
      [[...sim, '--json', dir], /^salsify sim: --json: cannot write .*: it is a directory\n$/],
      [[...sim, '--log-dir', join(dir, 'file', 'logs')], /^salsify sim: cannot create --log-dir .*: a part of the path is not a directory\n$/],
    ] as const) {
      const r = run(...args);
      assert.is(r.status, 2, r.stderr);
      assert.match(r.stderr, pattern);
    }
    if (existsSync('/dev/full')) {
      const full = openSync('/dev/full', 'w');
      try {
        const r = spawnSync(process.execPath, [bin, ...sim], { cwd: root, encoding: 'utf8', stdio: ['ignore', full, 'pipe'] });
        assert.is(r.status, 2, r.stderr);
        assert.is(r.stderr, 'salsify sim: cannot write standard output: no space left on device\n');
      } finally {
        closeSync(full);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
