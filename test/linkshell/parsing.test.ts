// linkshell's option parsing, HOST:PORT parsing (fuzzed) and the histogram.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isToolkitError } from '../../src/common/errors.ts';
import { createRng } from '../../src/common/random.ts';
import { formatAddress, isLoopback, parseHostPort } from '../../src/net/address.ts';
import { Histogram } from '../../src/linkshell/histogram.ts';
import { parseLinkshellArgs } from '../../src/cli/linkshell-options.ts';
import { config } from './helpers.ts';

test('defaults, the two-trace form, "=" forms, and the command after --', () => {
  const c = config(['up.trace', 'down.trace', '--connect=10.0.0.1:5000', '--uplink-queue=droptail', '--uplink-queue-args=packets=100,bytes=30000', '--', 'app', '--flag', '--', 'x']);
  assert.is(c.uplinkTrace, 'up.trace');
  assert.is(c.downlinkTrace, 'down.trace');
  assert.equal(c.connect, { host: '10.0.0.1', port: 5000 });
  assert.equal(c.listen, { host: '127.0.0.1', port: 0 });
  assert.is(c.uplinkQueue, 'droptail');
  assert.is(c.uplinkQueueArgs, 'packets=100,bytes=30000');
  assert.is(c.downlinkQueue, 'infinite');
  assert.is(c.mtu, 1504);
  assert.is(c.overheadBytes, 32);
  assert.is(c.delayMs, 0);
  assert.is(c.uplinkLoss, 0);
  assert.is(c.uplinkLossAt, 'entry');
  assert.is(c.downlinkLossAt, 'entry');
  assert.is(c.seed, '1');
  assert.is(c.memoryCapBytes, 64 << 20);
  assert.is(c.once, false);
  assert.is(c.timer, 'timeout');
  assert.is(c.spinMs, 0);
  assert.is(c.drainMs, 2000);
  assert.is(config(['--trace', 't', '--connect', '127.0.0.1:9', '--drain', '0', '--', 'app']).drainMs, 0);
  assert.equal(c.command, ['app', '--flag', '--', 'x']);
  const d = config(['--trace', 't', '--connect', '[::1]:9', '--listen', '0.0.0.0:7000', '--delay', '30', '--uplink-loss', '0.05', '--downlink-loss', '1e-2', '--once', '--mtu', '9000', '--overhead', '0', '--memory-cap', '1']);
  assert.is(d.uplinkTrace, 't');
  assert.is(d.downlinkTrace, 't');
  assert.equal(d.connect, { host: '::1', port: 9 });
  assert.equal(d.listen, { host: '0.0.0.0', port: 7000 });
  assert.is(d.delayMs, 30);
  assert.is(d.uplinkLoss, 0.05);
  assert.is(d.downlinkLoss, 0.01);
  assert.is(config(['--trace', 't', '--connect', '127.0.0.1:9', '--uplink-loss-at', 'delivery']).uplinkLossAt, 'delivery');
  assert.is(d.once, true);
  assert.is(d.mtu, 9000);
  assert.is(d.overheadBytes, 0);
  assert.is(d.memoryCapBytes, 1 << 20);
  assert.is(d.command, undefined);
  assert.equal(parseLinkshellArgs(['-h']), { help: true });
});

test('each bad argument is a bad-argument error naming it', () => {
  const base = ['--trace', 't', '--connect', '127.0.0.1:9'];
  const cases: Array<[string[], RegExp]> = [
    [['t'], /missing DOWNLINK_TRACE/],
    [[], /missing UPLINK_TRACE and DOWNLINK_TRACE/],
    // As mm-link's getopt: an option after the command is linkshell's; what follows "--" is the command's.
    [['a', 'b', '--', 'c', '--connect', '127.0.0.1:9'], /--connect HOST:PORT \(the outside peer\) is required/],
    [['a', 'b', 'ping', '-c', '1', '--connect', '127.0.0.1:9'], /^unknown option -c \(a COMMAND's own options go after "--"/],
    [['a', '--trace', 'b', '--connect', '127.0.0.1:9'], /--trace replaces the two trace arguments/],
    [['--trace', 't'], /--connect HOST:PORT \(the outside peer\) is required/],
    [['--trace', 't', '--connect', '127.0.0.1:0'], /port 0 is not a peer's port/],
    [['--trace', 't', '--connect', '127.0.0.1:65536'], /port "65536" is not an integer from 0 to 65535/],
    [['--trace', 't', '--connect', '::1:9'], /IPv6 address must be written in brackets/],
    [['--trace', 't', '--connect', 'bad_host!:9'], /"bad_host!" is neither an IP address nor a host name/],
    [[...base, '--listen', '127.0.0.1'], /--listen: no ":PORT"/],
    [[...base, '--uplink-loss-at', 'exit'], /--uplink-loss-at/],
    [[...base, '--uplink-queue', 'red'], /--uplink-queue: .*red/],
    [[...base, '--uplink-queue', 'droptail'], /--uplink-queue: queue droptail: needs a limit/],
    [[...base, '--downlink-queue', 'codel', '--downlink-queue-args', 'packets=10'], /--downlink-queue: queue codel: missing argument target/],
    [[...base, '--uplink-queue-args', 'packets=5'], /--uplink-queue: queue infinite: unknown argument packets=5/],
    [[...base, '--mtu', '0'], /--mtu must be an integer from 1/],
    [[...base, '--mtu', '32'], /--overhead 32 leaves no room for a payload in an MTU of 32 bytes/],
    [[...base, '--delay', '2.5'], /--delay must be an integer from 0/],
    [[...base, '--delay=-1'], /--delay must be an integer/],
    [[...base, '--delay', '-1'], /^--delay must be an integer from 0 to 60000, got "-1"$/],
    [[...base, '--uplink-loss', '1.5'], /--uplink-loss must be a number from 0 to 1, got "1.5"/],
    [[...base, '--downlink-loss', 'half'], /--downlink-loss must be a number from 0 to 1, got "half"/],
    [[...base, '--seed', 'abc'], /--seed must be a non-negative integer/],
    [[...base, '--memory-cap', '0'], /--memory-cap must be an integer from 1/],
    [[...base, '--timer', 'timeout', '--spin=-1'], /--spin must be a number from 0 to 100/],
    [[...base, '--timer', 'thread', '--spin', '1'], /--spin applies to --timer timeout only/],
    [[...base, '--timer', 'hrtimer'], /--timer must be one of .*thread.*, got "hrtimer"/],
    [[...base, '--uplink-log', 'x.log', '--downlink-log', 'x.log'], /name the same file "x.log"/],
    [[...base, '--once=yes'], /--once/],
    [[...base, '--drain', '500'], /^--drain applies to a COMMAND's end; without one linkshell runs until a signal ends it/],
    [[...base, '--drain', '-1', '--', 'app'], /^--drain must be an integer from 0 to 60000, got "-1"$/],
    [[...base, '--drain', '0.5', '--', 'app'], /^--drain must be an integer/],
    [[...base, '--unknown'], /^unknown option --unknown \(see linkshell --help\)$/],
    [[...base, '--uplink-lgo', 'u.log'], /^unknown option --uplink-lgo; did you mean --uplink-log\? \(see linkshell --help\)$/],
    [[...base, '--up', 'x'], /^option --up is ambiguous: it could be --uplink-queue, /],
    [[...base, '--mtu'], /--mtu/],
  ];
  for (const [args, pattern] of cases) {
    let error: unknown;
    try {
      parseLinkshellArgs(args);
    } catch (e) {
      error = e;
    }
    assert.ok(isToolkitError(error, 'ERR_BAD_ARGUMENT'), `${args.join(' ')} should fail with a bad-argument error: ${String(error)}`);
    assert.match((error as Error).message, pattern);
    assert.not.match((error as Error).message, /\n/);
  }
});

test('fuzz: random command lines give a config or a one-line bad-argument error, nothing else', () => {
  const rng = createRng('linkshell-argv-fuzz');
  const options = ['--trace', '--listen', '--connect', '--uplink-queue', '--downlink-queue', '--uplink-queue-args', '--downlink-queue-args', '--once', '--mtu', '--delay', '--uplink-loss', '--downlink-loss', '--seed', '--uplink-log', '--downlink-log', '--overhead', '--memory-cap', '--max-sources', '--timer', '--spin', '--drain', '--', '-h', '--x'];
  const values = ['127.0.0.1:9', '[::1]:0', 'droptail', 'codel', 'pie', 'packets=5', 'target=5,interval=100,packets=9', '0', '1', '1504', '0.5', '-1', '1e-3', 'thread', 'timeout', 'a.trace', '', ':', 'x=y'];
  const randomText = () => Array.from({ length: rng.int(6) }, () => String.fromCharCode(32 + rng.int(95))).join('');
  let configs = 0;
  for (let i = 0; i < 3000; i++) {
    // Half start from a valid command line, so that the random part is what decides.
    const argv: string[] = rng.next() < 0.5 ? ['up.trace', 'down.trace', '--connect', '127.0.0.1:9'] : [];
    const n = rng.int(argv.length > 0 ? 4 : 10);
    for (let j = 0; j < n; j++) {
      const r = rng.next();
      argv.push(r < 0.45 ? options[rng.int(options.length)] : r < 0.9 ? values[rng.int(values.length)] : randomText());
    }
    try {
      const parsed = parseLinkshellArgs(argv);
      if (!parsed.help) {
        configs++;
        assert.ok(parsed.config.mtu > parsed.config.overheadBytes);
        assert.ok(parsed.config.uplinkLoss >= 0 && parsed.config.uplinkLoss <= 1);
      }
    } catch (error) {
      assert.ok(isToolkitError(error, 'ERR_BAD_ARGUMENT'), `${JSON.stringify(argv)}: ${(error as Error).stack}`);
      assert.not.match((error as Error).message, /\n/);
    }
  }
  assert.ok(configs > 0, 'some random command lines are valid');
});

test('HOST:PORT parsing and formatting', () => {
  assert.equal(parseHostPort('127.0.0.1:80', 'x'), { host: '127.0.0.1', port: 80 });
  assert.equal(parseHostPort('[fe80::1]:0', 'x'), { host: 'fe80::1', port: 0 });
  assert.equal(parseHostPort('example.org:443', 'x'), { host: 'example.org', port: 443 });
  assert.throws(() => parseHostPort('[::1]9', 'x'), /x: unclosed "\[" or no ":PORT"/);
  assert.throws(() => parseHostPort('[1.2.3.4]:9', 'x'), /not an IPv6 address/);
  assert.throws(() => parseHostPort(':9', 'x'), /empty host/);
  assert.throws(() => parseHostPort('h:', 'x'), /port "" is not/);
  assert.is(formatAddress({ address: '::1', port: 5 }), '[::1]:5');
  assert.is(formatAddress({ address: '10.1.2.3', port: 5 }), '10.1.2.3:5');
  assert.ok(isLoopback('127.0.0.1') && isLoopback('127.8.9.1') && isLoopback('::1') && isLoopback('::ffff:127.0.0.1'));
  assert.ok(!isLoopback('10.0.0.1') && !isLoopback('::'));
});

test('fuzz: random text as HOST:PORT is parsed or refused with a named Error, never anything else', () => {
  const rng = createRng('hostport-fuzz');
  const alphabet = '0123456789abcdef.:[]-_ xyz%\u00e9\n';
  for (let i = 0; i < 20000; i++) {
    const length = rng.int(24);
    let text = '';
    for (let j = 0; j < length; j++) text += rng.next() < 0.1 ? String.fromCharCode(rng.int(0x3000)) : alphabet[rng.int(alphabet.length)];
    try {
      const r = parseHostPort(text, '--connect');
      assert.ok(Number.isInteger(r.port) && r.port >= 0 && r.port <= 65535, text);
      assert.ok(r.host.length > 0, text);
    } catch (error) {
      assert.instance(error, Error);
      assert.ok((error as Error).message.startsWith('--connect: '), (error as Error).message);
    }
  }
});

test('histogram: exact below 100 ms to 10 us, within 0.5% above, exact max and count', () => {
  const h = new Histogram();
  assert.ok(Number.isNaN(h.quantile(0.5)));
  for (let v = 1; v <= 100; v++) h.add(v);
  assert.is(h.count(), 100);
  assert.is(h.quantile(0.5), 50);
  assert.is(h.quantile(0.99), 99);
  assert.is(h.quantile(1), 100);
  assert.is(h.quantile(0), 1);
  assert.is(h.max(), 100);
  assert.is(h.mean(), 50.5);
  const l = new Histogram();
  for (let i = 0; i < 1000; i++) l.add(i < 990 ? 0.123 : 2345.6);
  assert.ok(Math.abs(l.quantile(0.5) - 0.12) < 0.011);
  assert.ok(Math.abs(l.quantile(0.995) - 2345.6) / 2345.6 < 0.005);
  assert.is(l.max(), 2345.6);
  assert.throws(() => l.add(-1), /finite number >= 0/);
  assert.throws(() => l.add(NaN), /finite number >= 0/);
  assert.throws(() => l.quantile(2), /quantile/);
});

test.run();
