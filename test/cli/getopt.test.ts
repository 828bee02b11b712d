// Every command reads its options as getopt_long does (src/common/command-line.ts):
// a negative number is a value and gets the option's own range message, an
// unknown option is named with the closest one (never Node's advice to put it
// after "--", which for linkshell would run it as the COMMAND), long options
// may be abbreviated, and linkshell takes its options anywhere before "--" as
// mm-link does.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closestName, tokenize } from '../../src/common/command-line.ts';
import { errorCodeOf, runCommand } from '../../src/common/errors.ts';
import { main as ccbench } from '../../src/cli/ccbench.ts';
import { runTraceGenCli } from '../../src/cli/gen-trace-command.ts';
import { runGraph } from '../../src/cli/graph-command.ts';
import { parseLinkshellArgs, parseLinkshellCommandLine } from '../../src/cli/linkshell-options.ts';
import { runReplay } from '../../src/cli/replay-command.ts';
import { main as salsify } from '../../src/cli/salsify.ts';
import { runStats } from '../../src/cli/stats-command.ts';
import { captureOutput } from '../helpers/capture-output.ts';

const dir = mkdtempSync(join(tmpdir(), 'getopt-'));
const trace = join(dir, 'one.trace');
writeFileSync(trace, '1\n2\n');
const log = join(dir, 'in.log');
writeFileSync(log, '0 + 100\n1 + 100\n3 # 1500\n3 - 100 3\n');

type Command = (argv: string[]) => Promise<number>;
const linkshellParse: Command = async (argv) =>
  runCommand('linkshell', () => {
    parseLinkshellCommandLine(argv);
    return 0;
  });
const COMMANDS: Record<string, Command> = {
  linkshell: linkshellParse,
  'linkshell replay': (argv) => runCommand('linkshell replay', () => runReplay(argv)),
  'linkshell graph': (argv) => runCommand('linkshell graph', () => runGraph(argv)),
  'linkshell stats': (argv) => runCommand('linkshell stats', () => runStats(argv)),
  'linkshell gen-trace': (argv) => runTraceGenCli(argv),
  salsify: (argv) => salsify(argv),
  ccbench: (argv) => ccbench(argv),
};

/** [command, its arguments, the range message expected]: a negative value given as the next argument. */
const NEGATIVE: Array<[string, string[], RegExp]> = [
  ['linkshell', [trace, trace, '--connect', '127.0.0.1:9', '--delay', '-1'], /^linkshell: --delay must be an integer from 0 to 60000, got "-1"$/],
  ['linkshell', [trace, trace, '--connect', '127.0.0.1:9', '--mtu', '-5'], /^linkshell: --mtu must be an integer from 1 to \d+, got "-5"$/],
  ['linkshell', [trace, trace, '--connect', '127.0.0.1:9', '--uplink-loss', '-0.1'], /^linkshell: --uplink-loss must be a number from 0 to 1, got "-0\.1"$/],
  ['linkshell', [trace, trace, '--connect', '127.0.0.1:9', '--seed', '-1'], /^linkshell: --seed must be a non-negative integer/],
  ['linkshell', [trace, trace, '--connect', '127.0.0.1:9', '--memory-cap', '-1'], /^linkshell: --memory-cap must be an integer from 1/],
  ['linkshell', [trace, trace, '--connect', '127.0.0.1:9', '--spin', '-1'], /^linkshell: --spin must be a number from 0 to 100, got "-1"$/],
  ['linkshell', [trace, trace, '--connect', '127.0.0.1:9', '--overhead', '-1'], /^linkshell: --overhead must be an integer from 0 to 4096, got "-1"$/],
  ['linkshell replay', ['--log-in', log, '--trace', trace, '--mtu', '-1'], /^linkshell replay: --mtu must be an integer from 1/],
  ['linkshell replay', ['--log-in', log, '--trace', trace, '--until', '-5'], /^linkshell replay: --until must be an integer from 0/],
  ['linkshell graph', [log, '--bin', '-1'], /^linkshell graph: --bin must be an integer from 1 to 3600000, got "-1"$/],
  ['linkshell gen-trace', ['constant', '--rate', '-3'], /^linkshell gen-trace: --rate must be a number > 0/],
  ['salsify', ['sim', '--downlink', 'const:1', '--uplink', 'const:1', '--delay', '-1'], /^salsify sim: --delay must be a duration/],
  ['salsify', ['sim', '--downlink', 'const:1', '--uplink', 'const:1', '--duration', '-2'], /^salsify sim: --duration must be a duration/],
  ['salsify', ['sim', '--downlink', 'const:1', '--uplink', 'const:1', '--fps', '-30'], /^salsify sim: --fps must be a number > 0 and at most 1000 frames per second, got "-30"$/],
  ['salsify', ['sim', '--downlink', 'const:-1', '--uplink', 'const:1'], /^salsify sim: --downlink must be a number > 0/],
  ['salsify', ['sim', '--downlink', 'const:1', '--uplink', 'const:1', '--downlink-loss', '-0.5'], /^salsify sim: --downlink-loss must be a number from 0 to 1, got "-0\.5"$/],
  ['salsify', ['send', '--to', '127.0.0.1:9', '--budget', '-100'], /^salsify send: --budget must be a duration/],
  ['salsify', ['receive', '--out', dir, '--port', '-1'], /^salsify receive: --port must be an integer from 0 to 65535, got "-1"$/],
  ['salsify', ['receive', '--out', dir, '--port', '0', '--idle-timeout', '-3'], /^salsify receive: --idle-timeout must be a duration/],
  ['salsify', ['eval', '--seeds', '-1'], /^salsify eval: --seeds must be an integer from 1 to 1000, got "-1"$/],
  ['salsify', ['eval', '--jobs', '-2'], /^salsify eval: --jobs must be an integer from 1 to 256, got "-2"$/],
  ['salsify', ['webrtc', '--endpoint', 'salsify-1', '--downlink', 'const:1', '--uplink', 'const:1', '--fps', '-1'], /^salsify webrtc: --fps must be an integer from 1 to 60, got "-1"$/],
  ['ccbench', ['rfc8867', '--seed', '-1'], /^ccbench rfc8867: --seed must be a non-negative integer/],
];

test('a negative number is a value: the option\'s own range message, exit 2, in every command', async () => {
  for (const [command, argv, message] of NEGATIVE) {
    const r = await captureOutput(() => COMMANDS[command]!(argv));
    const what = `${command} ${argv.join(' ')}: ${r.stderr}`;
    assert.is(r.status, 2, what);
    assert.match(r.stderr.trimEnd(), message, what);
    assert.is(r.stderr.trimEnd().split('\n').length, 1, what);
    assert.not.match(r.stderr, /ambiguous/, what);
  }
});

/** [command, its arguments, the unknown option's line expected]. */
const UNKNOWN: Array<[string, string[], RegExp]> = [
  ['linkshell', [trace, trace, '--connect', '127.0.0.1:9', '--uplink-lgo', 'x'], /^linkshell: unknown option --uplink-lgo; did you mean --uplink-log\? \(a COMMAND's own options go after "--": .*\) \(see linkshell --help\)$/],
  ['linkshell', ['--conect', '127.0.0.1:9', trace, trace], /^linkshell: unknown option --conect; did you mean --connect\? \(see linkshell --help\)$/],
  ['linkshell', ['--frobnicate'], /^linkshell: unknown option --frobnicate \(see linkshell --help\)$/],
  ['linkshell replay', ['--log-in', log, '--trace', trace, '--seeed', '1'], /^linkshell replay: unknown option --seeed; did you mean --seed\? \(see linkshell replay --help\)$/],
  ['linkshell graph', [log, '--output', 'x.svg'], /^linkshell graph: unknown option --output; did you mean --out\?/],
  ['linkshell stats', [log, '--jsn'], /^linkshell stats: unknown option --jsn; did you mean --json\?/],
  ['linkshell gen-trace', ['constant', '--rate', '2', '--durration', '1s'], /^linkshell gen-trace: unknown option --durration; did you mean --duration\? \(see linkshell gen-trace --help\)$/],
  ['salsify', ['sim', '--downlnk', 'const:1'], /^salsify sim: unknown option --downlnk; did you mean --downlink\? \(see salsify sim --help\)$/],
  ['salsify', ['send', '--too', '127.0.0.1:9'], /^salsify send: unknown option --too; did you mean --to\?/],
  ['salsify', ['analyze', dir, '--cvs', 'x.csv'], /^salsify analyze: unknown option --cvs; did you mean --csv\?/],
  ['salsify', ['eval', '--scenario', 'x'], /^salsify eval: unknown option --scenario|^salsify eval: --scenarios must be/],
  ['salsify', ['eval', '--shemes', 'x'], /^salsify eval: unknown option --shemes; did you mean --schemes\?/],
  ['salsify', ['webrtc', '--dration', '1'], /^salsify webrtc: unknown option --dration; did you mean --duration\?/],
  ['salsify', ['receive', '-x'], /^salsify receive: unknown option -x \(see salsify receive --help\)$/],
  ['ccbench', ['rfc8867', '--controler', 'gcc'], /^ccbench rfc8867: unknown option --controler; did you mean --controller\?/],
  ['salsify', ['analyse', dir], /^salsify: unknown command "analyse"; did you mean analyze\? \(sim, send, receive, analyze, webrtc or eval; see salsify --help\)$/],
  ['ccbench', ['rfc8868'], /^ccbench: unknown command "rfc8868"; did you mean rfc8867\?/],
];

test('an unknown option is named with the closest option, never with advice to put it after "--"', async () => {
  for (const [command, argv, message] of UNKNOWN) {
    const r = await captureOutput(() => COMMANDS[command]!(argv));
    const what = `${command} ${argv.join(' ')}: ${r.stderr}`;
    assert.is(r.status, 2, what);
    assert.match(r.stderr.trimEnd(), message, what);
    assert.is(r.stderr.trimEnd().split('\n').length, 1, what);
    assert.not.match(r.stderr, /positional argument|place it at the end/, what);
  }
});

test('abbreviations: any unambiguous prefix; an exact name wins; an ambiguous one lists the candidates', () => {
  const shapes = { 'uplink-queue': { type: 'string' }, 'uplink-queue-args': { type: 'string' }, 'uplink-log': { type: 'string' }, once: { type: 'boolean' } } as const;
  const context = { help: 'x --help' };
  assert.equal(tokenize(['--uplink-l=F', '--onc', '--uplink-queue', 'droptail'], shapes, context).options, ['--uplink-log=F', '--once', '--uplink-queue=droptail']);
  assert.throws(() => tokenize(['--uplink-q', 'x'], shapes, context), /^option --uplink-q is ambiguous: it could be --uplink-queue, --uplink-queue-args \(see x --help\)$/);
  assert.throws(() => tokenize(['--once=yes'], shapes, context), /--once takes no value/);
  assert.throws(() => tokenize(['--uplink-log'], shapes, context), /^--uplink-log needs a value \(see x --help\)$/);
  assert.throws(() => tokenize(['--uplink-log', '--once'], shapes, context), /^--uplink-log needs a value, got the option --once/);
  assert.equal(tokenize(['--uplink-log', '-'], shapes, context).options, ['--uplink-log=-']);
  assert.equal(tokenize(['--uplink-log=--once'], shapes, context).options, ['--uplink-log=--once']);
  assert.is(closestName('uplnk-log', Object.keys(shapes)), 'uplink-log');
  assert.is(closestName('zzzzzz', Object.keys(shapes)), undefined);
});

function linkshellConfig(argv: string[]) {
  const parsed = parseLinkshellArgs(argv);
  if (parsed.help) throw new Error('help');
  return parsed.config;
}

test('linkshell as mm-link\'s getopt reads it: -u/-d FILE, abbreviations, options after the COMMAND, "--" alone', () => {
  const a = linkshellConfig(['C', 'C', '-u', 'up.log', '-ddown.log', '--conn', '127.0.0.1:9', '--uplink-queue', 'droptail', '--uplink-queue-a=packets=5']);
  assert.is(a.uplinkLog, 'up.log');
  assert.is(a.downlinkLog, 'down.log');
  assert.is(a.uplinkQueue, 'droptail');
  assert.is(a.uplinkQueueArgs, 'packets=5');
  // "C C true --once": --once is linkshell's, as mm-link's getopt permutes it; true is the COMMAND.
  const b = linkshellConfig(['C', 'C', 'true', '--once', '--connect', '127.0.0.1:9']);
  assert.is(b.once, true);
  assert.equal(b.command, ['true']);
  assert.equal(linkshellConfig(['--onc', '--max-s=3', 'C', 'C', '--connect', '127.0.0.1:9']).maxSources, 3);
  // mm-link's --uplink-l is ambiguous here: linkshell also has --uplink-loss and --uplink-loss-at.
  assert.throws(() => linkshellConfig(['--uplink-l=F', 'C', 'C', '--connect', '127.0.0.1:9']), /^option --uplink-l is ambiguous: it could be --uplink-loss, --uplink-loss-at, --uplink-log/);
  // "C C --" with nothing after it: no COMMAND (--netns runs $SHELL, as mm-link).
  const c = parseLinkshellCommandLine(['--netns', 'C', 'C', '--']);
  assert.ok(!c.help && c.mode === 'netns' && c.config.command === undefined);
  assert.equal(linkshellConfig(['C', 'C', '--connect', '127.0.0.1:9', '--', 'sh', '-c', 'exit 3']).command, ['sh', '-c', 'exit 3']);
  let error: unknown;
  try {
    parseLinkshellCommandLine(['--trace', 'C', '--connect', '127.0.0.1:9', 'ping', '-c', '1', 'x']);
  } catch (e) {
    error = e;
  }
  assert.is(errorCodeOf(error), 'ERR_BAD_ARGUMENT');
  assert.match((error as Error).message, /^unknown option -c \(a COMMAND's own options go after "--"/);
});

test('--version on every bin (and every subcommand), before any other check', async () => {
  const s = await captureOutput(() => salsify(['--version']));
  assert.is(s.status, 0);
  assert.match(s.stdout, /^salsify \d+\.\d+\.\d+ \(lowlat-video-toolkit\)\nnode v\d+/);
  assert.match(s.stdout, /\nlibvpx (v[\d.]+, with(out)? error concealment: .+ \(native VP8 addon\)|: not available)/);
  assert.match(s.stdout, /\n(Chromium [\d.]+ \(|chromium: not found)/);
  assert.match(s.stdout, /\n(Mozilla Firefox [\d.]+(esr)? \(|firefox-esr: not found)/);
  const sim = await captureOutput(() => salsify(['sim', '--downlink', 'nope', '--version']));
  assert.is(sim.status, 0);
  assert.match(sim.stdout, /^salsify /);
  const c = await captureOutput(() => ccbench(['--version']));
  assert.is(c.status, 0);
  assert.match(c.stdout, /^ccbench \d+\.\d+\.\d+ \(lowlat-video-toolkit\)\nnode v\d+[^\n]*\n$/);
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();
