// Seeded random command lines for every command: each gives a result, or one
// line and exit status 2 (a bad argument or input), never a stack trace, a
// hang or another status. Parsers are fuzzed directly where they are
// functions; the other commands are run in this process on small inputs.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorCodeOf, exitStatusOf, runCommand } from '../../src/common/errors.ts';
import { createRng, type Rng } from '../../src/common/random.ts';
import { runTraceGenCli } from '../../src/cli/gen-trace-command.ts';
import { parseLinkshellArgs } from '../../src/cli/linkshell-options.ts';
import { runReplay } from '../../src/cli/replay-command.ts';
import { parseSimArgs } from '../../src/cli/salsify.ts';
import { parseRfc8867Args } from '../../src/cli/ccbench.ts';
import { runStats } from '../../src/cli/stats-command.ts';
import { runAnalyze } from '../../src/cli/salsify-analyze.ts';
import { parseReceiveArgs } from '../../src/cli/salsify-receive.ts';
import { parseSendArgs } from '../../src/cli/salsify-send.ts';
import { captureOutput } from '../helpers/capture-output.ts';

const dir = mkdtempSync(join(tmpdir(), 'option-fuzz-'));
const trace = join(dir, 'one.trace');
writeFileSync(trace, '1\n2\n');
const log = join(dir, 'in.log');
writeFileSync(log, '0 + 100\n1 + 100\n3 + 1500\n');

/** Numbers and words that sit on the edges of the validators. */
const EDGE_VALUES = [
  '0', '1', '-1', '2', '0.5', '1e-3', '1e9', '1e300', 'NaN', 'Infinity', '-0', '+1', '007', '9007199254740993', '65536',
  '', ' ', 'abc', '10s', '500ms', '2min', '1.0005s', '127.0.0.1:9', '[::1]:0', ':', 'a,b', ',', 'x=y',
];

function randomText(rng: Rng): string {
  return Array.from({ length: rng.int(6) }, () => String.fromCharCode(32 + rng.int(95))).join('');
}

/** A random command line: options of the command, their usual values, edge values and random text. */
function commandLine(rng: Rng, start: readonly string[], options: readonly string[], values: readonly string[]): string[] {
  const argv = rng.next() < 0.5 ? [...start] : [];
  const n = rng.int(argv.length > 0 ? 4 : 9);
  for (let j = 0; j < n; j++) {
    const r = rng.next();
    argv.push(r < 0.45 ? options[rng.int(options.length)]! : r < 0.7 ? values[rng.int(values.length)]! : r < 0.92 ? EDGE_VALUES[rng.int(EDGE_VALUES.length)]! : randomText(rng));
  }
  return argv;
}

/** A parser either returns or throws a bad argument (or an unwritable output it names): one line, exit status 2. */
function fuzzParser(name: string, runs: number, parse: (argv: string[]) => unknown, start: string[], options: string[], values: string[]): void {
  const rng = createRng(`option-fuzz/${name}`);
  let accepted = 0;
  for (let i = 0; i < runs; i++) {
    const argv = commandLine(rng, start, options, values);
    try {
      parse(argv);
      accepted++;
    } catch (error) {
      const what = `${name} ${JSON.stringify(argv)}: ${(error as Error).stack}`;
      assert.ok(['ERR_BAD_ARGUMENT', 'ERR_UNWRITABLE_FILE'].includes(errorCodeOf(error)), what);
      assert.is(exitStatusOf(error), 2, what);
      assert.not.match((error as Error).message, /\n/, what);
    }
  }
  assert.ok(accepted > 0 && accepted < runs, `${name}: ${accepted} of ${runs} accepted; the fuzz must hit both sides`);
}

/** A command either succeeds or prints one line and exits 2. */
async function fuzzCommand(name: string, runs: number, run: (argv: string[]) => Promise<number>, start: string[], options: string[], values: string[]): Promise<void> {
  const rng = createRng(`option-fuzz/${name}`);
  let succeeded = 0;
  for (let i = 0; i < runs; i++) {
    const argv = commandLine(rng, start, options, values);
    const { status, stderr } = await captureOutput(() => run(argv));
    const what = `${name} ${JSON.stringify(argv)}: status ${status}, stderr ${JSON.stringify(stderr)}`;
    if (status === 0) {
      succeeded++;
      continue;
    }
    assert.is(status, 2, what);
    const lines = stderr.trimEnd().split('\n');
    assert.is(lines.length, 1, what);
    assert.not.match(stderr, /^\s+at /m, what);
  }
  assert.ok(succeeded < runs, `${name}: every random command line succeeded`);
}

test('salsify sim: parseSimArgs', () => {
  fuzzParser('salsify sim', 3000, parseSimArgs, ['--downlink', 'const:2', '--uplink', 'x.trace'],
    ['--downlink', '--uplink', '--scheme', '--queue', '--queue-args', '--delay', '--downlink-loss', '--uplink-loss', '--downlink-onoff', '--video', '--fps', '--codec',
      '--duration', '--drain', '--budget', '--no-grace', '--no-conceal', '--frame-clock', '--seed', '--json', '--log-dir', '-h', '--x'],
    ['const:2', 'const:0', 'salsify-1', 'salsify-2,conventional-1s', 'salsify-1,salsify-1', 'droptail', 'codel', 'packets=10', 'model', 'vp8', 'synthetic', '100,50', '10', '0.1', 'newest-frame', 'next-frame']);
});

test('ccbench rfc8867: parseRfc8867Args', () => {
  fuzzParser('ccbench rfc8867', 3000, parseRfc8867Args, ['--case', '5.1'],
    ['--case', '--controller', '--seed', '--out', '--thresholds', '--help'],
    ['5.1', '5.1,5.2', 'all', '5.1,5.1', '5.9', 'gcc', 'aimd', 'salsify-1', 'cbr:1', 'gcc,gcc', 'x.ts', 'out', '10']);
});

test('salsify send: parseSendArgs', () => {
  fuzzParser('salsify send', 3000, (argv) => parseSendArgs(argv, {}), ['--to', '127.0.0.1:9'],
    ['--to', '--video', '--fps', '--scheme', '--codec', '--duration', '--drain', '--budget', '--seed', '--out', '--run-id', '--timer', '-h', '--x'],
    ['127.0.0.1:9', 'localhost:0', 'salsify-2', 'conventional-1s', 'model', 'vp8', 'thread', 'timeout', '0123abcd', 'xyz', 'out', '10', '0.1']);
});

test('salsify receive: parseReceiveArgs', () => {
  fuzzParser('salsify receive', 3000, parseReceiveArgs, ['--port', '0', '--out', 'dir'],
    ['--port', '--bind', '--out', '--codec', '--save-video', '--idle-timeout', '-h', '--x'],
    ['0', '9000', '127.0.0.1', '::1', 'dir', 'model', 'vp8', '3', '0.5']);
});

test('linkshell: parseLinkshellArgs', () => {
  fuzzParser('linkshell', 3000, parseLinkshellArgs, ['up.trace', 'down.trace', '--connect', '127.0.0.1:9'],
    ['--trace', '--listen', '--connect', '--uplink-queue', '--downlink-queue', '--uplink-queue-args', '--once', '--mtu', '--delay', '--uplink-loss',
      '--seed', '--uplink-log', '--downlink-log', '--overhead', '--memory-cap', '--max-sources', '--timer', '--spin', '--', '-h'],
    ['127.0.0.1:9', 'droptail', 'codel', 'pie', 'packets=5', '1504', '0.5', 'thread', 'timeout', 'a.log', 'a.trace']);
});

test('linkshell gen-trace (run)', async () => {
  const out = join(dir, 'gen.trace');
  await fuzzCommand('gen-trace', 600, (argv) => runTraceGenCli(argv, { stdout: () => {}, stderr: (t) => void process.stderr.write(t) }), ['constant', '--rate', '12'],
    ['constant', 'poisson', 'onoff', 'cellular', '--rate', '--mean', '--duration', '--seed', '--on', '--off', '--start', '--variability', '--time-scale', '--step', '--no-exact-mean', '--bytes', '-o', '-h'],
    ['2', '12', '1s', '200ms', 'on', 'random', '0.8', '100', '1500', out, dir]);
});

test('linkshell replay (run)', async () => {
  const out = join(dir, 'replay.log');
  await fuzzCommand('linkshell replay', 400, (argv) => runCommand('linkshell replay', () => runReplay(argv)), ['--log-in', log, '--trace', trace],
    ['--log-in', '--trace', '--queue', '--queue-args', '--mtu', '--once', '--base-timestamp', '--until', '--seed', '--log', '-h'],
    [log, trace, 'droptail', 'pie', 'packets=2', 'qdelay_ref=5,max_burst=10,packets=3', '1504', '10', out, join(dir, 'no-dir', 'x.log')]);
});

test('linkshell stats (run)', async () => {
  await fuzzCommand('linkshell stats', 300, (argv) => runCommand('linkshell stats', () => runStats(argv)), [log],
    ['--json', '-h', '--x'], [log, trace, dir, join(dir, 'missing.log')]);
});

test('salsify analyze (run)', async () => {
  await fuzzCommand('salsify analyze', 300, (argv) => runCommand('salsify analyze', () => runAnalyze(argv)), [dir],
    ['--json', '--csv', '--link-log', '-h', '--x'], [dir, log, join(dir, 'a.json'), join(dir, 'missing')]);
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();
