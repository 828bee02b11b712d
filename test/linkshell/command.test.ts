// The linkshell command as users run it: a separate process, with a COMMAND
// after "--", ended by its command or by a signal.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LogEventKind, parseLinkLog } from '../../src/link-emu/link-log.ts';
import { formatAddress } from '../../src/net/address.ts';
import { echoPeer, root, sleep, TRACE_12MBPS, waitFor, work } from './helpers.ts';

const bin = join(root, 'bin/linkshell.js');

function runSync(args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: 'utf8', timeout: 20000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('the command gets LINKSHELL_ADDR and LINKSHELL_PEER, and its exit status is passed through', async () => {
  const peer = await echoPeer();
  const envFile = join(work, 'env.json');
  const script = `require('fs').writeFileSync(${JSON.stringify(envFile)}, JSON.stringify({a: process.env.LINKSHELL_ADDR, p: process.env.LINKSHELL_PEER})); process.exit(7)`;
  const child = spawn(process.execPath, [bin, '--trace', TRACE_12MBPS, '--connect', formatAddress(peer.localAddress), '--', process.execPath, '-e', script], { cwd: root });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  await peer.close();
  assert.is(code, 7, stderr);
  const env = JSON.parse(readFileSync(envFile, 'utf8'));
  assert.match(env.a, /^127\.0\.0\.1:\d+$/);
  assert.is(env.p, formatAddress(peer.localAddress));
  assert.match(stderr, new RegExp(`inside applications send to ${env.a.replace(/\./g, '\\.')}`));
  assert.match(stderr, /datagrams in/);
});

test('a command killed by a signal gives 128 + its number; a missing command gives 127, one that cannot be run 126', () => {
  const killed = runSync(['--trace', TRACE_12MBPS, '--connect', '127.0.0.1:9', '--', process.execPath, '-e', 'process.kill(process.pid, "SIGKILL")']);
  assert.is(killed.code, 128 + 9, killed.stderr);
  const missing = runSync(['--trace', TRACE_12MBPS, '--connect', '127.0.0.1:9', '--', 'linkshell-no-such-command-xyz']);
  assert.is(missing.code, 127, missing.stderr);
  assert.match(missing.stderr, /cannot start "linkshell-no-such-command-xyz": command not found/);
  const notExecutable = join(work, 'not-executable.sh');
  writeFileSync(notExecutable, 'exit 0\n', { mode: 0o644 });
  const denied = runSync(['--trace', TRACE_12MBPS, '--connect', '127.0.0.1:9', '--', notExecutable]);
  assert.is(denied.code, 126, denied.stderr);
  assert.match(denied.stderr, /cannot start ".*not-executable\.sh": permission denied/);
});

test('SIGTERM to linkshell ends the command, and leaves complete logs and a summary', async () => {
  const peer = await echoPeer();
  const upLog = join(work, 'term-up.log');
  const downLog = join(work, 'term-down.log');
  const pidFile = join(work, 'child.pid');
  // The command sends a datagram every 2 ms until it is killed.
  const sender = join(work, 'sender.cjs');
  writeFileSync(
    sender,
    `const fs = require('fs'); fs.writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));
     const s = require('dgram').createSocket('udp4'); const [h, p] = process.env.LINKSHELL_ADDR.split(':');
     s.on('message', () => {}); setInterval(() => s.send(Buffer.alloc(500), Number(p), h), 2);`,
  );
  const child = spawn(
    process.execPath,
    [bin, '--trace', TRACE_12MBPS, '--connect', formatAddress(peer.localAddress), '--uplink-log', upLog, '--downlink-log', downLog, '--', process.execPath, sender],
    { cwd: root },
  );
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  try {
    await waitFor(() => peer.received() >= 50, 15000, 'traffic through linkshell');
  } finally {
    child.kill('SIGTERM');
  }
  const code = await exited;
  await peer.close();
  // The command died of the forwarded SIGTERM; linkshell exits with its status.
  assert.is(code, 128 + 15, stderr);
  const pid = Number(readFileSync(pidFile, 'utf8'));
  assert.throws(() => process.kill(pid, 0), /ESRCH/, 'the command was reaped');
  assert.match(stderr, /datagrams out/);
  for (const path of [upLog, downLog]) {
    assert.ok(existsSync(path));
    const text = readFileSync(path, 'utf8');
    assert.ok(text.endsWith('\n'), `${path} ends with a whole line`);
    const log = parseLinkLog(text, path);
    assert.ok(log.header.initTimestamp! > 0 && log.header.baseTimestamp !== undefined);
    const count = (k: LogEventKind) => Array.from(log.kind).filter((x) => x === k).length;
    assert.ok(count(LogEventKind.Departure) >= 50, `${path}: ${count(LogEventKind.Departure)} departures`);
    // Complete up to the end: an opportunity logged for every millisecond of the run (the trace has one per ms).
    const lastTime = log.time[log.count - 1];
    assert.is(count(LogEventKind.Opportunity), lastTime - log.header.baseTimestamp!);
    // `linkshell replay` of the log's arrivals gives back the very same events (the emulation is the same code).
    const replayed = join(work, 'replayed-' + path.split('/').pop());
    const r = runSync(['replay', '--log-in', path, '--trace', TRACE_12MBPS, '--log', replayed]);
    assert.is(r.code, 0, r.stderr);
    const events = (t: string) => t.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
    assert.equal(events(readFileSync(replayed, 'utf8')), events(text));
  }
});

/** True while process `pid` exists, or with a negative pid, any process of group -pid. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

/** The shell's pid and its two background sleeps', as it writes them, once it has. */
async function shellPids(file: string): Promise<number[]> {
  await waitFor(() => existsSync(file) && readFileSync(file, 'utf8').endsWith('\n'), 15000, 'the shell to start');
  return readFileSync(file, 'utf8').trim().split(' ').map(Number);
}

/** A shell whose background jobs outlive it unless someone ends them: it writes its pid and theirs to `file`. */
const shellWithJobs = (file: string, end: string) => ['sh', '-c', `sleep 300 & a=$!; sleep 300 & echo $$ $a $! > ${file}; ${end}`];

/** Waits until none of `pids` is left, and no process of the group of the first; kills them at the end whatever happened. */
async function expectAllEnded(pids: number[]): Promise<void> {
  const left = () => [...pids, -pids[0]].filter(alive);
  try {
    await waitFor(() => left().length === 0, 10000, "every process of the command's group to end");
  } finally {
    for (const pid of left()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Ended meanwhile.
      }
    }
  }
}

function startLinkshellWithJobs(name: string) {
  const file = join(work, `${name}.pids`);
  const child = spawn(process.execPath, [bin, '--trace', TRACE_12MBPS, '--connect', '127.0.0.1:9', '--', ...shellWithJobs(file, 'wait')], { cwd: root });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  return { child, file, exited, stderr: () => stderr };
}

test("SIGTERM to linkshell ends the command's whole process group: a shell's background jobs too", async () => {
  const run = startLinkshellWithJobs('term-group');
  const pids = await shellPids(run.file);
  try {
    assert.ok(alive(-pids[0]), 'the shell leads a process group of its own');
    run.child.kill('SIGTERM');
    assert.is(await run.exited, 128 + 15, run.stderr());
  } finally {
    await expectAllEnded(pids);
  }
});

test("linkshell killed with SIGKILL: no process of the command's group outlives it", async () => {
  const run = startLinkshellWithJobs('kill-group');
  const pids = await shellPids(run.file);
  try {
    run.child.kill('SIGKILL');
    assert.is(await run.exited, null);
  } finally {
    await expectAllEnded(pids);
  }
});

test('a command that leaves background jobs still gives its own status, and its jobs end with linkshell', async () => {
  const file = join(work, 'exit-group.pids');
  const r = runSync(['--trace', TRACE_12MBPS, '--connect', '127.0.0.1:9', '--', ...shellWithJobs(file, 'exit 5')]);
  const pids = await shellPids(file);
  try {
    assert.is(r.code, 5, r.stderr);
  } finally {
    await expectAllEnded(pids);
  }
});

/** Runs linkshell to its end without blocking this process's event loop (the peer lives here). */
function runAsync(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [bin, ...args], { cwd: root });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    }),
  );
}

// The command sends one 100-byte datagram and exits at once, its datagram still in the link's delay stage.
const SEND_ONE_AND_EXIT = `const s = require('dgram').createSocket('udp4'); const [h, p] = process.env.LINKSHELL_ADDR.split(':'); s.send(Buffer.alloc(100), Number(p), h, () => process.exit(0));`;

test("a command's last datagram still crosses the link after the command exits (--drain)", async () => {
  const peer = await echoPeer();
  try {
    const run = await runAsync(['--trace', TRACE_12MBPS, '--connect', formatAddress(peer.localAddress), '--delay', '300', '--drain', '20000', '--', process.execPath, '-e', SEND_ONE_AND_EXIT]);
    assert.is(run.code, 0, run.stderr);
    await waitFor(() => peer.received() === 1, 15000, 'the datagram at the peer');
    assert.not.match(run.stderr, /still held/);
  } finally {
    await peer.close();
  }
});

test('a drain that runs out of time drops what the link still holds, and says how much (--drain 0: at once, as mm-link)', async () => {
  const peer = await echoPeer();
  try {
    // 3 s of delay, 200 ms of drain: the datagram (132 link bytes: 100 and 32 of IPv4, UDP and TUN headers) cannot arrive.
    const run = await runAsync(['--trace', TRACE_12MBPS, '--connect', formatAddress(peer.localAddress), '--delay', '3000', '--drain', '200', '--', process.execPath, '-e', SEND_ONE_AND_EXIT]);
    assert.is(run.code, 0, run.stderr);
    assert.match(run.stderr, /COMMAND has exited, and after --drain 200 ms the link still held 132 bytes: dropped \(a longer --drain delivers them\)/);
    const atOnce = await runAsync(['--trace', TRACE_12MBPS, '--connect', formatAddress(peer.localAddress), '--delay', '3000', '--drain', '0', '--', process.execPath, '-e', SEND_ONE_AND_EXIT]);
    assert.is(atOnce.code, 0, atOnce.stderr);
    assert.not.match(atOnce.stderr, /still held/);
    // linkshell has gone: nothing of either run can arrive any more.
    await sleep(50);
    assert.is(peer.received(), 0);
  } finally {
    await peer.close();
  }
});

test('without a command, SIGINT stops linkshell with status 0 and a summary', async () => {
  const child = spawn(process.execPath, [bin, '--trace', TRACE_12MBPS, '--connect', '127.0.0.1:9'], { cwd: root });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  await waitFor(() => /inside applications send to/.test(stderr), 15000, 'linkshell to start');
  // Long enough that a whole-millisecond count of opportunities measures the capacity to within 1%.
  await sleep(200);
  child.kill('SIGINT');
  assert.is(await exited, 0, stderr);
  assert.match(stderr, /capacity\s*│ 1[12]\.\d+ Mbit\/s/);
});

test('bad arguments: one line on stderr, status 2, nothing started', () => {
  const cases: Array<[string[], RegExp]> = [
    [['--trace', TRACE_12MBPS], /--connect HOST:PORT \(the outside peer\) is required/],
    [['--trace', TRACE_12MBPS, '--connect', 'localhost'], /--connect: no ":PORT"/],
    [['--trace', TRACE_12MBPS, '--connect', '127.0.0.1:9', '--uplink-queue', 'fifo'], /--uplink-queue: .*fifo/],
    [['--trace', TRACE_12MBPS, '--connect', '127.0.0.1:9', '--downlink-queue', 'droptail', '--downlink-queue-args', 'packets=x'], /--downlink-queue: queue droptail: packets=x is not a non-negative integer/],
    [['no-such-trace-xyz', TRACE_12MBPS, '--connect', '127.0.0.1:9'], /trace "no-such-trace-xyz" not found; tried: /],
    [['--trace', TRACE_12MBPS, '--connect', '127.0.0.1:9', '--uplink-log', join(work, 'no/such/dir/up.log')], /cannot write log file .*no such directory/],
    [['--trace', TRACE_12MBPS, '--connect', '127.0.0.1:9', '--bogus'], /unknown option --bogus \(see linkshell --help\)/],
  ];
  for (const [args, pattern] of cases) {
    const r = runSync(args);
    assert.is(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, pattern);
    assert.is(r.stderr.trimEnd().split('\n').length, 1, `one line: ${r.stderr}`);
    assert.is(r.stdout, '');
  }
});

test('a log that cannot be written while the link runs (a full disk): one line naming it, status 2, the command ended', () => {
  const pidFile = join(work, 'full-disk.pid');
  const r = runSync(['--trace', TRACE_12MBPS, '--connect', '127.0.0.1:9', '--uplink-log', '/dev/full', '--', 'sh', '-c', `echo $$ > ${pidFile}; exec sleep 30`]);
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /^linkshell: cannot write log file \/dev\/full: no space left on device; stopped$/m);
  assert.not.match(r.stderr, /^\s+at /m, 'no stack trace');
  assert.not.match(r.stderr, /internal error/);
  assert.match(r.stderr, /datagrams in/, 'the summary is still printed');
  assert.throws(() => process.kill(Number(readFileSync(pidFile, 'utf8')), 0), /ESRCH/, 'the command was ended');
});

test('--help prints the usage and exits 0', () => {
  const r = runSync(['--help']);
  assert.is(r.code, 0);
  assert.match(r.stdout, /^Usage:\n  linkshell UPLINK_TRACE DOWNLINK_TRACE --connect HOST:PORT/);
});

test.run();
