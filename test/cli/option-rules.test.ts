// The option layer's rules: each validator, and the same rule for the same
// kind of value in every command (seeds, durations, delays, names).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { errorCodeOf, exitStatusOf, EXIT_STATUS, toolkitError } from '../../src/common/errors.ts';
import {
  durationMsValue, formatHelp, hostPortValue, integerValue, LIMITS, nameListValue, nameValue, numberValue, probabilityValue, rateValue, seedValue,
} from '../../src/common/validate.ts';
import { runTraceGenCli } from '../../src/cli/gen-trace-command.ts';
import { parseLinkshellArgs } from '../../src/cli/linkshell-options.ts';
import { parseSimArgs } from '../../src/cli/salsify.ts';
import { parseSendArgs } from '../../src/cli/salsify-send.ts';
import { parseReceiveArgs } from '../../src/cli/salsify-receive.ts';
import { TraceFormatError } from '../../src/link-emu/trace-parse.ts';
import { LinkLogParseError } from '../../src/link-emu/link-log.ts';
import { QueueConfigError } from '../../src/link-emu/queue-factory.ts';

function badArgument(f: () => unknown, pattern: RegExp): void {
  try {
    f();
  } catch (error) {
    assert.is(errorCodeOf(error), 'ERR_BAD_ARGUMENT', String(error));
    assert.match((error as Error).message, pattern);
    assert.not.match((error as Error).message, /\n/);
    return;
  }
  assert.unreachable(`no error, expected ${pattern}`);
}

test('exit statuses come from the code alone', () => {
  assert.is(exitStatusOf(toolkitError('ERR_BAD_ARGUMENT', 'x')), 2);
  assert.is(exitStatusOf(toolkitError('ERR_BAD_INPUT', 'x')), 2);
  assert.is(exitStatusOf(toolkitError('ERR_UNREADABLE_FILE', 'x')), 2);
  assert.is(exitStatusOf(toolkitError('ERR_UNWRITABLE_FILE', 'x')), 2);
  assert.is(exitStatusOf(toolkitError('ERR_UNAVAILABLE', 'x')), 2);
  assert.is(exitStatusOf(new Error('a defect')), 1);
  assert.is(exitStatusOf(new RangeError('a defect')), 1);
  assert.is(exitStatusOf(Object.assign(new TypeError('x'), { code: 'ERR_PARSE_ARGS_UNKNOWN_OPTION' })), 2);
  assert.equal(Object.keys(EXIT_STATUS).sort(), ['ERR_BAD_ARGUMENT', 'ERR_BAD_INPUT', 'ERR_INTERNAL', 'ERR_UNAVAILABLE', 'ERR_UNREADABLE_FILE', 'ERR_UNWRITABLE_FILE']);
});

test('library errors that are the caller\'s fault carry their code', () => {
  assert.is(exitStatusOf(new TraceFormatError('t', 1, 'x', 'bad')), 2);
  assert.is(errorCodeOf(new TraceFormatError('t', 1, 'x', 'bad')), 'ERR_BAD_INPUT');
  assert.is(errorCodeOf(new LinkLogParseError('l', 1, 'time', 'x', 'bad')), 'ERR_BAD_INPUT');
  assert.is(errorCodeOf(new QueueConfigError('bad', 'codel')), 'ERR_BAD_ARGUMENT');
  assert.is(new TraceFormatError('t', 1, 'x', 'bad').name, 'TraceFormatError');
});

test('integers, numbers, probabilities, rates', () => {
  assert.is(integerValue('mtu', '1500', { min: 1, max: 9000 }), 1500);
  badArgument(() => integerValue('mtu', '1.5', { min: 1, max: 9000 }), /--mtu must be an integer from 1 to 9000, got "1.5"/);
  badArgument(() => integerValue('mtu', '9001', { min: 1, max: 9000 }), /got "9001"/);
  badArgument(() => integerValue('mtu', ' 1', { min: 1, max: 9000 }), /got " 1"/);
  assert.is(integerValue('t', '-3', { min: -5, max: 5 }), -3);
  assert.is(numberValue('x', '1e-2', { min: 0, max: 1 }), 0.01);
  for (const bad of ['', ' ', 'NaN', 'Infinity', '1e300', '0x10', '1,5', '2']) badArgument(() => numberValue('x', bad, { min: 0, max: 1 }), /--x must be a number from 0 to 1/);
  badArgument(() => numberValue('x', '0', { min: 0, max: 1, minExclusive: true }), /a number > 0 and at most 1/);
  assert.is(probabilityValue('loss', '1'), 1);
  badArgument(() => probabilityValue('loss', '1.01'), /--loss must be a number from 0 to 1/);
  assert.is(rateValue('rate', '12'), 12);
  badArgument(() => rateValue('rate', '0'), /Mbit\/s/);
  badArgument(() => rateValue('rate', String(2 * LIMITS.maxRateMbps)), /at most 100000/);
});

test('durations: units, bounds, whole milliseconds', () => {
  const seconds = { unit: 's', minExclusive: true, maxMs: 3_600_000 } as const;
  assert.is(durationMsValue('duration', '10', seconds), 10_000);
  assert.is(durationMsValue('duration', '250ms', seconds), 250);
  assert.is(durationMsValue('duration', '2min', seconds), 120_000);
  assert.is(durationMsValue('duration', '0.5', seconds), 500);
  badArgument(() => durationMsValue('duration', '0', seconds), /more than 0ms/);
  badArgument(() => durationMsValue('duration', '1e9', seconds), /--duration must be a duration .*at most 60min, got "1e9"/);
  badArgument(() => durationMsValue('duration', '10 s', seconds), /got "10 s"/);
  badArgument(() => durationMsValue('delay', '0.5', { unit: 'ms', maxMs: 100, wholeMs: true }), /in whole ms/);
  assert.is(durationMsValue('delay', '0', { unit: 'ms', maxMs: 100 }), 0);
});

test('seeds: one rule, integers 0..2^53-1', () => {
  assert.is(seedValue('seed', '0'), 0);
  assert.is(seedValue('seed', '007'), 7);
  assert.is(seedValue('seed', String(Number.MAX_SAFE_INTEGER)), Number.MAX_SAFE_INTEGER);
  for (const bad of ['abc', '-1', '1.5', '', '1e3', '9007199254740992', ' 1']) badArgument(() => seedValue('seed', bad), /--seed must be a non-negative integer from 0 to 9007199254740991/);
});

test('names, lists of names, HOST:PORT', () => {
  assert.is(nameValue('codec', 'vp8', ['model', 'vp8']), 'vp8');
  badArgument(() => nameValue('codec', 'h264', ['model', 'vp8']), /--codec must be one of model, vp8, got "h264"/);
  assert.equal(nameListValue('scheme', 'a,b', ['a', 'b', 'c']), ['a', 'b']);
  badArgument(() => nameListValue('scheme', 'a,x', ['a', 'b']), /got "x" in "a,x"/);
  badArgument(() => nameListValue('scheme', 'a,a', ['a', 'b']), /names "a" twice/);
  badArgument(() => nameListValue('scheme', '', ['a', 'b']), /--scheme must be one or more of a, b/);
  assert.equal(hostPortValue('to', '[::1]:9'), { host: '::1', port: 9 });
  badArgument(() => hostPortValue('to', '127.0.0.1:0', { portZero: false }), /--to: port 0 is not a peer's port/);
  badArgument(() => hostPortValue('to', 'nohost'), /--to: no ":PORT"/);
});

test('the same seed rule in every command that takes a seed', async () => {
  const sim = (seed: string) => parseSimArgs(['--downlink', 'const:2', '--uplink', 'const:2', `--seed=${seed}`]).configs[0]!.seed;
  const send = (seed: string) => { const p = parseSendArgs(['--to', '127.0.0.1:9', `--seed=${seed}`], {}); return p.help ? undefined : p.args.seed; };
  const linkshell = (seed: string) => { const p = parseLinkshellArgs(['--trace', 't', '--connect', '127.0.0.1:9', `--seed=${seed}`]); return p.help ? undefined : Number(p.config.seed); };
  for (const parse of [sim, send, linkshell]) {
    assert.is(parse('7'), 7);
    assert.is(parse('0'), 0);
    for (const bad of ['abc', '1.5', '-1', '']) badArgument(() => parse(bad), /--seed must be a non-negative integer from 0 to 9007199254740991/);
    badArgument(() => parse('9007199254740992'), /--seed must be a non-negative integer/);
  }
  for (const seed of ['abc', '1.5', '-1']) {
    let err = '';
    const status = await runTraceGenCli(['poisson', '--rate', '2', '--duration', '1s', `--seed=${seed}`], { stdout: () => {}, stderr: (t) => void (err += t) });
    assert.is(status, 2);
    assert.match(err, /--seed must be a non-negative integer from 0 to 9007199254740991/);
  }
});

test('every number has a bound: duration, delay, loss, drain, budget, rates', () => {
  const sim = (...extra: string[]) => parseSimArgs(['--downlink', 'const:2', '--uplink', 'const:2', ...extra]);
  badArgument(() => sim('--duration', '1e9'), /--duration must be a duration .*at most 1440min, got "1e9"/);
  badArgument(() => sim('--delay', '1e300'), /--delay must be a duration .*at most 1min, got "1e300"/);
  badArgument(() => sim('--drain', '1e12'), /--drain must be/);
  badArgument(() => sim('--budget', '0'), /--budget must be/);
  badArgument(() => sim('--downlink-onoff', '1e300,5'), /--downlink-onoff must be/);
  badArgument(() => parseSimArgs(['--downlink', 'const:1e300', '--uplink', 'const:2']), /--downlink must be a number > 0 and at most 100000 Mbit\/s/);
  assert.is(sim('--duration', '640').configs[0]!.durationS, 640);
  assert.is(sim('--delay', '60000').configs[0]!.delayMs, 60_000);
  badArgument(() => parseSendArgs(['--to', '127.0.0.1:9', '--duration', '1e9'], {}), /--duration must be a duration/);
  badArgument(() => parseSendArgs(['--to', '127.0.0.1:9', '--budget', '1e300'], {}), /--budget must be/);
  badArgument(() => parseReceiveArgs(['--port', '0', '--out', 'x', '--idle-timeout', '1e300']), /--idle-timeout must be/);
  badArgument(() => parseLinkshellArgs(['--trace', 't', '--connect', '127.0.0.1:9', '--delay', '1e300']), /--delay must be an integer from 0 to 60000/);
  badArgument(() => parseLinkshellArgs(['--trace', 't', '--connect', '127.0.0.1:9', '--delay', '60001']), /--delay must be an integer from 0 to 60000/);
});

test('schemes and codecs: one check, the same message, in every command', () => {
  badArgument(() => parseSimArgs(['--downlink', 'const:2', '--uplink', 'const:2', '--scheme', 'webrtc']), /--scheme must be one or more of salsify-1, salsify-2, conventional-1s, salsify-nograce, salsify-targetsize, salsify-4, webrtc-like, oracle, oracle-quality joined by commas, got "webrtc"/);
  badArgument(() => parseSendArgs(['--to', '127.0.0.1:9', '--scheme', 'webrtc'], {}), /--scheme must be one of salsify-1, salsify-2, conventional-1s, salsify-nograce, salsify-targetsize, salsify-4, webrtc-like, got "webrtc"/);
  for (const parse of [
    () => parseSimArgs(['--downlink', 'const:2', '--uplink', 'const:2', '--codec', 'h264']),
    () => parseSendArgs(['--to', '127.0.0.1:9', '--codec', 'h264'], {}),
    () => parseReceiveArgs(['--port', '0', '--out', 'x', '--codec', 'h264']),
  ]) badArgument(parse, /--codec must be one of model, vp8, got "h264"/);
});

test('the help layout: options in one column, long flags on their own line', () => {
  const text = formatHelp({
    usage: ['tool --x N'],
    about: 'Does a thing.',
    options: [['--x N', 'the number\n(default 1)'], ['--a-very-long-option-name VALUE', 'long']],
    notes: 'Exit status: 0 or 2.',
  });
  assert.is(text, [
    'Usage: tool --x N', '', 'Does a thing.', '', 'Options:',
    '  --x N                   the number', '                          (default 1)',
    '  --a-very-long-option-name VALUE', '                          long', '', 'Exit status: 0 or 2.', '',
  ].join('\n'));
});

test.run();
