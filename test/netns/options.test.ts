// linkshell's command line for Mahimahi's habits, in both modes: --netns, a
// command without "--", --uplink-onoff/--downlink-onoff, --meter-* refused.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isToolkitError } from '../../src/common/errors.ts';
import { parseLinkshellCommandLine } from '../../src/cli/linkshell-options.ts';
import { NETNS_OVERHEAD_BYTES } from '../../src/linkshell/config.ts';

function parse(argv: string[]) {
  const parsed = parseLinkshellCommandLine(argv);
  if (parsed.help) throw new Error('unexpected --help');
  return parsed;
}

function usageMessage(argv: string[]): string {
  try {
    parseLinkshellCommandLine(argv);
  } catch (error) {
    assert.ok(isToolkitError(error, 'ERR_BAD_ARGUMENT'), String(error));
    assert.not.match((error as Error).message, /\n/);
    return (error as Error).message;
  }
  assert.unreachable(`${argv.join(' ')} was accepted`);
  return '';
}

test('--netns: no relay addresses; 4 bytes of TUN header per packet by default; the command after "--" or without it', () => {
  const a = parse(['--netns', 'up.trace', 'down.trace', '--delay', '10', '--', 'iperf3', '-c', 'x']);
  assert.is(a.mode, 'netns');
  assert.is(a.config.overheadBytes, NETNS_OVERHEAD_BYTES);
  assert.is(a.config.delayMs, 10);
  assert.equal(a.config.command, ['iperf3', '-c', 'x']);
  assert.not.ok('connect' in a.config);
  // As mm-link's getopt: options after the traces are linkshell's; the operands, then what follows "--", are the command.
  const b = parse(['up.trace', 'down.trace', '--netns', '--uplink-log=u.log', 'iperf3', '--', '-c', 'x', '--', 'y']);
  assert.is(b.mode, 'netns');
  assert.equal(b.config.command, ['iperf3', '-c', 'x', '--', 'y']);
  assert.is(b.config.uplinkLog, 'u.log');
  assert.is(parse(['--netns', '--trace', 't', '--overhead', '0', 'sh']).config.overheadBytes, 0);
  assert.equal(parse(['--netns', '--trace', 't', '--', 'sh', '-c', 'echo']).config.command, ['sh', '-c', 'echo']);
  assert.match(usageMessage(['--netns', '--trace', 't', 'sh', '-c', 'echo']), /^unknown option -c \(a COMMAND's own options go after "--": linkshell UP DOWN \[options\] -- COMMAND ARGS\.\.\.\)/);
  assert.is(parse(['--netns', '--trace', 't']).config.command, undefined);
});

test('--netns refuses the relay\'s options, and an MTU that leaves no room for an IP header', () => {
  for (const option of [['--connect', '127.0.0.1:9'], ['--listen', '127.0.0.1:0'], ['--max-sources', '3']]) {
    assert.match(usageMessage(['--netns', '--trace', 't', ...option]), new RegExp(`^${option[0]} belongs to the relay mode: with --netns, COMMAND reaches the host at \\$MAHIMAHI_BASE`));
  }
  assert.match(usageMessage(['--netns', '--trace', 't', '--mtu', '64']), /leaves 60 bytes for an IP packet; --netns needs at least 68/);
  assert.match(usageMessage(['--trace', 't']), /--connect HOST:PORT \(the outside peer\) is required \(or --netns\)/);
});

test('the relay mode takes a command without "--" too; an option after it is linkshell\'s, as mm-link\'s getopt takes it', () => {
  const a = parse(['up', 'down', '--connect', '127.0.0.1:9', '--uplink-log', 'u.log', 'app', 'arg', '--delay', '5']);
  assert.is(a.mode, 'relay');
  assert.equal(a.config.command, ['app', 'arg']);
  assert.is(a.config.delayMs, 5);
  assert.is(a.config.uplinkLog, 'u.log');
  assert.equal(parse(['--seed', '5', 'a', 'b', 'c', '--connect', '127.0.0.1:9']).config.command, ['c']);
  assert.equal(parse(['--trace', 't', 'c', 'd', '--connect', '127.0.0.1:9']).config.command, ['c', 'd']);
  assert.equal(parse(['--once', 'a', 'b', '--connect', '127.0.0.1:9', '--', '--x']).config.command, ['--x']);
  assert.equal(parse(['--netns', '--', 'a', 'b', 'c', '--connect', '127.0.0.1:9']).config.command, ['c', '--connect', '127.0.0.1:9']);
});

test('--uplink-onoff / --downlink-onoff ON_MS,OFF_MS (mm-onoff\'s mean times), in both modes', () => {
  const a = parse(['--trace', 't', '--connect', '127.0.0.1:9', '--uplink-onoff', '2000,500.5']);
  assert.equal(a.config.uplinkOnOff, { meanOnMs: 2000, meanOffMs: 500.5 });
  assert.is(a.config.downlinkOnOff, undefined);
  const b = parse(['--netns', '--trace', 't', '--downlink-onoff=100,100']);
  assert.equal(b.config.downlinkOnOff, { meanOnMs: 100, meanOffMs: 100 });
  assert.match(usageMessage(['--netns', '--trace', 't', '--uplink-onoff', '100']), /--uplink-onoff must be ON_MS,OFF_MS \(mean on and off times in ms, as mm-onoff's in seconds\), got "100"/);
  assert.match(usageMessage(['--netns', '--trace', 't', '--uplink-onoff', '1,2,3']), /--uplink-onoff must be ON_MS,OFF_MS/);
  assert.match(usageMessage(['--netns', '--trace', 't', '--uplink-onoff', '1,-1']), /--uplink-onoff OFF_MS must be a number from 0 to 3600000 ms, got "-1"/);
  assert.match(usageMessage(['--netns', '--trace', 't', '--downlink-onoff', '0,0']), /--downlink-onoff: ON_MS and OFF_MS cannot both be 0 \(as mm-onoff\)/);
  assert.match(usageMessage(['--netns', '--trace', 't', '--downlink-onoff', 'x,10']), /--downlink-onoff ON_MS must be a number/);
  assert.match(usageMessage(['--netns', '--trace', 't', '--downlink-onoff', '10,3600001']), /--downlink-onoff OFF_MS must be a number from 0 to 3600000 ms/);
  // As mm-onoff accepts them: 0,1000 is always off, 1000,0 always on.
  assert.equal(parse(['--netns', '--trace', 't', '--downlink-onoff', '0,1000']).config.downlinkOnOff, { meanOnMs: 0, meanOffMs: 1000 });
  assert.equal(parse(['--netns', '--trace', 't', '--uplink-intermittent', '1000,0']).config.uplinkOnOff, { meanOnMs: 1000, meanOffMs: 0, periodic: true });
  assert.match(usageMessage(['--netns', '--trace', 't', '--uplink-intermittent', '1,1', '--uplink-onoff', '1,1']), /--uplink-onoff and --uplink-intermittent both switch the uplink: give one/);
});

test('--meter-* flags are refused with a pointer to a log and linkshell graph', () => {
  for (const flag of ['--meter-uplink', '--meter-downlink', '--meter-uplink-delay', '--meter-downlink-delay', '--meter-all']) {
    const message = usageMessage(['--trace', 't', '--connect', '127.0.0.1:9', flag]);
    assert.match(message, new RegExp(`^${flag}: linkshell draws no live graph; log the direction \\(--(up|down)link-log FILE\\) and plot the log with \`linkshell graph FILE\``));
    assert.match(usageMessage(['--netns', '--trace', 't', flag]), /linkshell graph/);
  }
  assert.match(usageMessage(['--netns', '--trace', 't', '--meter-downlink']), /--downlink-log FILE/);
  // A command's own --meter-* flag is the command's.
  assert.equal(parse(['--netns', '--trace', 't', '--', 'app', '--meter-all']).config.command, ['app', '--meter-all']);
});

test.run();
