import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HANG_BOUND_MS } from '../helpers/bounds.ts';

const root = join(import.meta.dirname, '../..');
const shared = join(root, '../shared');
const work = mkdtempSync(join(tmpdir(), 'linkshell-cli-'));

function linkshell(...args: string[]) {
  const result = spawnSync(process.execPath, [join(root, 'bin/linkshell.js'), ...args], { cwd: root, encoding: 'utf8', timeout: HANG_BOUND_MS });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Runs linkshell with its standard output on `path` (as `> path` would). */
function linkshellToFile(path: string, ...args: string[]) {
  const fd = openSync(path, 'w');
  try {
    const result = spawnSync(process.execPath, [join(root, 'bin/linkshell.js'), ...args], { cwd: root, encoding: 'utf8', timeout: HANG_BOUND_MS, stdio: ['ignore', fd, 'pipe'] });
    return { code: result.status, stderr: result.stderr };
  } finally {
    closeSync(fd);
  }
}

test('replay of a Mahimahi log writes the same events, with a header naming our run', () => {
  const input = join(shared, 'conformance/const3_droptail_p20.up.log');
  const out = join(work, 'replayed.log');
  const r = linkshell('replay', '--log-in', input, '--trace', join(shared, 'conformance/traces/const3mbps.trace'), '--queue', 'droptail', '--queue-args', 'packets=20', '--log', out);
  assert.is(r.code, 0, r.stderr);
  const ours = readFileSync(out, 'utf8');
  const theirs = readFileSync(input, 'utf8');
  const body = (text: string) => text.split('\n').filter((l) => !l.startsWith('#'));
  assert.equal(body(ours), body(theirs));
  assert.match(ours, /^# mahimahi mm-link \(Uplink\) \[.*const3mbps\.trace\] > .*replayed\.log\n# command line: 'linkshell' 'replay' /);
  assert.match(ours, /\n# queue: droptail \[packets=20\]\n# init timestamp: 1\d+\n# base timestamp: 37\n/);
});

test('replay of a plain TIME SIZE list writes to stdout and runs until the queue drains', () => {
  const input = join(work, 'load.txt');
  writeFileSync(input, '# time size\n0 1500\n0 1500\n5 100\n');
  const trace = join(work, 'ten.trace');
  writeFileSync(trace, '10\n');
  const r = linkshell('replay', '--log-in', input, '--trace', trace);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout.split('\n').filter((l) => !l.startsWith('#')).join('\n'), '0 + 1500\n0 + 1500\n5 + 100\n10 # 1504\n10 - 1500 10\n20 # 1504\n20 - 1500 20\n30 # 1504\n30 - 100 25\n');
});

test('stats prints the figures of a log, as a table or JSON', () => {
  const log = join(shared, 'conformance/att_droptail_p20.up.log');
  const table = linkshell('stats', log);
  assert.is(table.code, 0, table.stderr);
  assert.match(table.stdout, /utilization/);
  assert.match(table.stdout, /1532 packets/);
  const json = linkshell('stats', '--format', 'json', log);
  const [entry] = JSON.parse(json.stdout);
  assert.is(entry.stats.drops, 1532);
  assert.is(entry.stats.arrivals, 2899);
  assert.ok(entry.stats.departures + entry.stats.drops <= entry.stats.arrivals);
  assert.ok(entry.stats.delayMs.p99 >= entry.stats.delayMs.p50);
});

const decreasing = join(work, 'decreasing.log');
writeFileSync(decreasing, '# mahimahi mm-link (Uplink) [t] > l\n10 + 100\n12 # 1504\n12 - 100 2\n11 # 1504\n');
const empty = join(work, 'empty.log');
writeFileSync(empty, '');
const commentsOnly = join(work, 'comments.log');
writeFileSync(commentsOnly, '# mahimahi mm-link (Uplink) [t] > l\n# base timestamp: 3\n');

test('stats refuses a log whose times decrease, and an empty or comments-only log, naming file, line, field and value', () => {
  const r = linkshell('stats', decreasing);
  assert.is(r.code, 2, r.stderr);
  assert.is(r.stdout, '');
  assert.is(r.stderr, `linkshell stats: ${decreasing}:5: time "11" is earlier than the previous event's (12): log times never decrease\n`);
  for (const path of [empty, commentsOnly]) {
    const e = linkshell('stats', '--format', 'json', path);
    assert.is(e.code, 2, e.stderr);
    assert.is(e.stdout, '');
    assert.is(e.stderr, `linkshell stats: ${path}: no events (the log is empty or has only comments)\n`);
  }
});

test('replay refuses an empty or comments-only --log-in (a log or a TIME SIZE list), naming the file', () => {
  const plainComments = join(work, 'plain-comments.txt');
  writeFileSync(plainComments, '# TIME SIZE\n\n');
  const trace = join(shared, 'traces/12mbps.up');
  for (const [path, why] of [[empty, 'no arrivals (the file is empty or has only comments)'], [plainComments, 'no arrivals (the file is empty or has only comments)'], [commentsOnly, 'no events (the log is empty or has only comments)']]) {
    const r = linkshell('replay', '--log-in', path!, '--trace', trace);
    assert.is(r.code, 2, `${path}: ${r.stdout}`);
    assert.is(r.stdout, '', 'no header-only log');
    assert.is(r.stderr, `linkshell replay: ${path}: ${why}\n`);
  }
});

test('bad arguments and inputs: one line on stderr and exit status 2', () => {
  const cases: string[][] = [
    ['replay', '--bogus'],
    ['replay', '--trace', 'x'],
    ['replay', '--log-in', join(work, 'missing.log'), '--trace', join(shared, 'traces/12mbps.up')],
    ['replay', '--log-in', join(shared, 'conformance/att_infinite.up.log'), '--trace', 'no-such-trace'],
    ['replay', '--log-in', join(shared, 'conformance/att_infinite.up.log'), '--trace', join(shared, 'traces/12mbps.up'), '--queue', 'red'],
    ['replay', '--log-in', join(shared, 'conformance/att_infinite.up.log'), '--trace', join(shared, 'traces/12mbps.up'), '--queue', 'droptail', '--queue-args', 'packets=ten'],
    ['replay', '--log-in', join(shared, 'conformance/att_infinite.up.log'), '--trace', join(shared, 'traces/12mbps.up'), '--mtu', '-3'],
    ['stats'],
    ['stats', join(shared, 'traces/12mbps.up')],
    ['stats', decreasing],
    ['stats', empty],
    ['stats', commentsOnly],
    ['replay', '--log-in', commentsOnly, '--trace', join(shared, 'traces/12mbps.up')],
  ];
  for (const args of cases) {
    const r = linkshell(...args);
    assert.is(r.code, 2, `${args.join(' ')} -> ${r.code}: ${r.stderr}`);
    assert.is(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /^linkshell (replay|stats): /);
  }
});

test('replay --log to a directory, into a missing directory or onto a full disk: one line naming the file, exit 2', () => {
  assert.ok(existsSync('/dev/full'), "this test needs Linux's /dev/full");
  const input = join(shared, 'conformance/att_infinite.up.log');
  const trace = join(shared, 'conformance/traces/const3mbps.trace');
  const cases: Array<[string, string]> = [
    [work, 'is a directory'],
    [join(work, 'no-such-dir', 'out.log'), 'no such directory'],
    ['/dev/full', 'no space left on device'],
  ];
  for (const [out, why] of cases) {
    const r = linkshell('replay', '--log-in', input, '--trace', trace, '--log', out);
    assert.is(r.code, 2, `${out}: ${r.code} ${r.stderr}`);
    assert.is(r.stderr, `linkshell replay: cannot write log file ${out}: ${why}\n`);
  }
});

test('replay and stats with standard output on a full disk (> /dev/full): one line, exit 2, no stack trace', () => {
  const input = join(shared, 'conformance/att_infinite.up.log');
  const trace = join(shared, 'conformance/traces/const3mbps.trace');
  const runs: Array<[string, string[]]> = [
    ['replay', ['replay', '--log-in', input, '--trace', trace]],
    ['stats', ['stats', input]],
    ['stats', ['stats', '--format', 'json', input]],
    ['stats', ['stats', '--help']],
  ];
  for (const [command, args] of runs) {
    const r = linkshellToFile('/dev/full', ...args);
    assert.is(r.code, 2, `${args.join(' ')}: ${r.code} ${r.stderr}`);
    assert.is(r.stderr, `linkshell ${command}: cannot write standard output: no space left on device\n`);
  }
});

test('an input that is a directory, or an arrival larger than the MTU: one line naming the file, exit 2', () => {
  const s = linkshell('stats', work);
  assert.is(s.code, 2);
  assert.is(s.stderr, `linkshell stats: cannot read ${work}: is a directory\n`);
  const input = join(shared, 'conformance/att_infinite.up.log');
  const r = linkshell('replay', '--log-in', input, '--trace', join(shared, 'conformance/traces/const3mbps.trace'), '--mtu', '100');
  assert.is(r.code, 2);
  assert.match(r.stderr, /^linkshell replay: .*att_infinite\.up\.log: an arrival of \d+ bytes is larger than the link's MTU of 100 bytes/);
  assert.is(r.stderr.split('\n').length, 2);
});

test('help texts', () => {
  assert.match(linkshell('replay', '--help').stdout, /Usage: linkshell replay/);
  assert.match(linkshell('stats', '--help').stdout, /Usage: linkshell stats/);
});

test.run();
