import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDuration, runTraceGenCli, TRACE_GEN_USAGE } from '../../src/cli/gen-trace-command.ts';
import { cellularTrace } from '../../src/link-emu/trace-generators.ts';
import { formatTrace } from '../../src/link-emu/trace-format.ts';
import { parseTrace } from '../../src/link-emu/trace-parse.ts';

const dir = mkdtempSync(join(tmpdir(), 'gen-trace-'));

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runTraceGenCli(argv, { stdout: (t) => void (out += t), stderr: (t) => void (err += t) });
  return { code, out, err };
}

test('--help prints the usage on stdout, exit 0', async () => {
  for (const argv of [['--help'], ['-h'], ['cellular', '--help'], []]) {
    const r = await run(...argv);
    if (argv.length === 0) {
      assert.is(r.code, 2); // no KIND is a usage error
      assert.match(r.err, /missing KIND/);
      continue;
    }
    assert.is(r.code, 0);
    assert.is(r.out, TRACE_GEN_USAGE);
  }
  for (const kind of ['constant', 'poisson', 'onoff', 'cellular']) assert.ok(TRACE_GEN_USAGE.includes(`  ${kind} `), kind);
});

test('constant to stdout: the trace text, a summary on stderr', async () => {
  const r = await run('constant', '--rate', '2', '--duration', '30ms');
  assert.is(r.code, 0);
  assert.is(r.out, '6\n12\n18\n24\n30\n');
  assert.match(r.err, /^stdout: 5 opportunities, period 30 ms, mean 2\.000 Mbit\/s at 1500 B per opportunity/);
});

test('cellular to a file: same bytes as the library call, deterministic', async () => {
  const out = join(dir, 'c.trace');
  const r = await run('cellular', '--mean', '3', '--duration', '5s', '--seed', '42', '--variability', '1.2', '--time-scale', '500', '-o', out);
  assert.is(r.code, 0, r.err);
  assert.is(r.out, '');
  const expected = formatTrace(cellularTrace({ meanMbps: 3, durationMs: 5000, seed: 42, variability: 1.2, timeScaleMs: 500 }));
  assert.is(readFileSync(out, 'utf8'), expected);
  assert.ok(r.err.startsWith(`${out}: `), r.err);
  const again = await run('cellular', '--mean=3', '--duration=5000ms', '--seed=42', '--variability=1.2', '--time-scale=500');
  assert.is(again.out, expected);
});

test('every kind runs; --bytes changes the rate conversion', async () => {
  const onoff = await run('onoff', '--rate', '12', '--on', '100', '--off', '100', '--duration', '2s', '--start', 'random', '--seed', '2');
  assert.is(onoff.code, 0, onoff.err);
  parseTrace(onoff.out, 'onoff');
  const poisson = await run('poisson', '--rate', '0.5', '--duration', '1min');
  assert.is(poisson.code, 0, poisson.err);
  assert.ok(parseTrace(poisson.out, 'p').period > 59_000);
  const wide = await run('constant', '--rate', '12.032', '--bytes', '1504');
  assert.is(wide.out, '1\n');
  const cellular = await run('cellular', '--mean', '2', '--duration', '3s', '--step', '5', '--no-exact-mean');
  assert.is(cellular.code, 0, cellular.err);
});

test('bad arguments: a clear message on stderr and exit 2', async () => {
  const cases: Array<[string[], RegExp]> = [
    [['warp'], /unknown trace kind "warp" \(expected one of constant, poisson, onoff, cellular\)/],
    [['constant'], /constant traces need --rate/],
    [['poisson', '--rate', '2'], /poisson traces need --duration/],
    [['onoff', '--rate', '2', '--on', '5', '--duration', '1s'], /onoff traces need --off/],
    [['constant', '--rate', '2', '--seed', '1'], /--seed does not apply to constant traces/],
    [['poisson', '--rate', '2', '--duration', '1s', '--variability', '1'], /--variability does not apply to poisson/],
    [['constant', '--rate', 'fast'], /--rate must be a number > 0 and at most 100000 Mbit\/s, got "fast"/],
    [['constant', '--rate', '-3'], /--rate must be a number > 0 and at most 100000 Mbit\/s, got "-3"/],
    [['constant', '--rate', '0'], /--rate must be a number > 0/],
    [['constant', '--rate', '1e300'], /--rate must be a number > 0 and at most 100000/],
    [['poisson', '--rate', '2', '--duration', '1e9'], /--duration must be a duration .* at most 1440min/],
    [['poisson', '--rate', '2', '--duration', '1s', '--seed', 'abc'], /--seed must be a non-negative integer/],
    [['poisson', '--rate', '2', '--duration', '1s', '--seed', '-1'], /--seed must be a non-negative integer from 0 to \d+, got "-1"/],
    [['constant', '--rate', '0.0000001'], /--rate must be a whole number of bit\/s/],
    [['poisson', '--rate', '2', '--duration', '10parsecs'], /--duration must be a duration \(e\.g\. 500ms, 10s, 2min/],
    [['poisson', '--rate', '2', '--duration', '0.5ms'], /in whole ms, got "0\.5ms"/],
    [['onoff', '--rate', '2', '--on', '5', '--off', '5', '--duration', '1s', '--start', 'later'], /--start must be one of on, off, random, got "later"/],
    [['cellular', '--mean', '2', '--duration', '1s', '--variability', '9'], /--variability must be a number from 0 to 3, got "9"/],
    [['constant', '--rate', '2', '--bytes', '1.5'], /--bytes must be an integer from 1/],
    [['constant', '--rate', '2', '--frobnicate'], /unknown option --frobnicate/],
    [['constant', '--rtae', '2'], /unknown option --rtae; did you mean --rate\?/],
    [['constant', 'extra', '--rate', '2'], /unexpected argument "extra"/],
  ];
  for (const [argv, message] of cases) {
    const r = await run(...argv);
    assert.is(r.code, 2, argv.join(' '));
    assert.match(r.err, message, argv.join(' '));
    assert.match(r.err, /^linkshell gen-trace: [^\n]* \(see linkshell gen-trace --help\)\n$/, `one line: ${r.err}`);
    assert.is(r.out, '');
  }
});

test('an unwritable output file or directory: one line naming it, exit 2', async () => {
  for (const target of [join(dir, 'missing-dir', 'x.trace'), dir]) {
    const r = await run('constant', '--rate', '12', '-o', target);
    assert.is(r.code, 2, r.err);
    assert.match(r.err, /^linkshell gen-trace: cannot write [^\n]*: (no such directory|is a directory)\n$/, r.err);
    assert.ok(r.err.startsWith(`linkshell gen-trace: cannot write ${target}: `), r.err);
  }
});

test('parseDuration: units and bare seconds', () => {
  assert.is(parseDuration('120'), 120_000);
  assert.is(parseDuration('120s'), 120_000);
  assert.is(parseDuration('250ms'), 250);
  assert.is(parseDuration('2min'), 120_000);
  assert.is(parseDuration('1.5s'), 1500);
  assert.throws(() => parseDuration('1.0005s'), /in whole ms/);
  assert.throws(() => parseDuration('0'), /more than 0ms/);
  assert.throws(() => parseDuration('2000min'), /at most 1440min/);
});

test('traces/README.md: every command reproduces its committed trace, byte for byte', async () => {
  const tracesDir = new URL('../../traces/', import.meta.url);
  const readme = readFileSync(new URL('README.md', tracesDir), 'utf8');
  const commands = [...readme.matchAll(/^node bin\/linkshell\.js gen-trace (.+) -o traces\/(\S+)$/gm)];
  const files = readdirSync(tracesDir).filter((name) => name.endsWith('.trace')).sort();
  assert.equal(commands.map((m) => m[2]).sort(), files);
  for (const [, args, name] of commands) {
    const out = join(dir, name!);
    const r = await run(...args!.split(' '), '-o', out);
    assert.is(r.code, 0, r.err);
    assert.ok(readFileSync(out).equals(readFileSync(new URL(name!, tracesDir))), `${name} differs from its command's output`);
  }
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();
