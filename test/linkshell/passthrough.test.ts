// MAHIMAHI_PASSTHROUGH_UNTIL_SIGNAL, as Mahimahi's shells read it: set (to
// anything, empty included), datagrams cross unemulated (not queued, not
// delayed, not logged) until the shell gets SIGUSR1; from then on they cross
// the link. Without it SIGUSR1 changes nothing (and does not open Node's
// debugger).

import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatAddress } from '../../src/net/address.ts';
import { HANG_BOUND_MS } from '../helpers/bounds.ts';
import { echoPeer, root, TRACE_12MBPS, work } from './helpers.ts';

const bin = join(root, 'bin/linkshell.js');
const DELAY_MS = 500;

// The command: one echo round trip, SIGUSR1 to its parent (linkshell), then round trips every 20 ms until one
// takes the emulated 2 x DELAY_MS (at most 100); writes every round trip time (ms) to the file named by $1.
const PINGER = join(work, 'passthrough-pinger.cjs');
writeFileSync(
  PINGER,
  `const s = require('dgram').createSocket('udp4'); const [h, p] = process.env.LINKSHELL_ADDR.split(':');
   const ping = () => new Promise((resolve) => { const t = Date.now(); s.once('message', () => resolve(Date.now() - t)); s.send(Buffer.alloc(100), Number(p), h); });
   (async () => {
     const rtts = [await ping()];
     process.kill(process.ppid, 'SIGUSR1');
     while (rtts.length < 100 && rtts[rtts.length - 1] < ${2 * DELAY_MS}) { await new Promise((r) => setTimeout(r, 20)); rtts.push(await ping()); }
     require('fs').writeFileSync(process.argv[2], JSON.stringify(rtts));
     process.exit(0);
   })();`,
);

// The command for a held trace clock: SIGUSR1 to linkshell before any datagram, then one round trip.
const SIGNAL_FIRST = join(work, 'passthrough-signal-first.cjs');
writeFileSync(
  SIGNAL_FIRST,
  `const s = require('dgram').createSocket('udp4'); const [h, p] = process.env.LINKSHELL_ADDR.split(':');
   process.kill(process.ppid, 'SIGUSR1');
   setTimeout(() => { const t = Date.now(); s.once('message', () => { require('fs').writeFileSync(process.argv[2], JSON.stringify([Date.now() - t])); process.exit(0); }); s.send(Buffer.alloc(100), Number(p), h); }, 300);`,
);

async function run(name: string, env: NodeJS.ProcessEnv, command = PINGER, extraArgs: string[] = []) {
  const peer = await echoPeer();
  const upLog = join(work, `${name}-up.log`);
  const summary = join(work, `${name}.json`);
  const rttsFile = join(work, `${name}-rtts.json`);
  const { MAHIMAHI_PASSTHROUGH_UNTIL_SIGNAL: _, ...base } = process.env;
  // (Not spawnSync: the echo peer answers from this process's event loop.)
  const child = spawn(
    process.execPath,
    [bin, '--trace', TRACE_12MBPS, '--connect', formatAddress(peer.localAddress), '--delay', String(DELAY_MS), '--uplink-log', upLog, '--summary-json', summary, ...extraArgs, '--', process.execPath, command, rttsFile],
    { cwd: root, env: { ...base, ...env }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), HANG_BOUND_MS);
  const status = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  clearTimeout(timer);
  await peer.close();
  const r = { status, stderr };
  assert.is(r.status, 0, r.stderr);
  const doc = JSON.parse(readFileSync(summary, 'utf8'));
  const arrivals = readFileSync(upLog, 'utf8').split('\n').filter((line) => / \+ /.test(line)).length;
  return { stderr: r.stderr, rtts: JSON.parse(readFileSync(rttsFile, 'utf8')) as number[], up: doc.directions[0], down: doc.directions[1], arrivals };
}

test('with MAHIMAHI_PASSTHROUGH_UNTIL_SIGNAL set (empty), datagrams pass unemulated and unlogged until SIGUSR1, then cross the link', async () => {
  const r = await run('passthrough', { MAHIMAHI_PASSTHROUGH_UNTIL_SIGNAL: '' });
  assert.match(r.stderr, /MAHIMAHI_PASSTHROUGH_UNTIL_SIGNAL is set: datagrams pass unemulated until SIGUSR1/);
  assert.match(r.stderr, /SIGUSR1 at [\d.]+ s: passthrough ended/);
  assert.match(r.stderr, /passed through unemulated/);
  assert.ok(r.rtts[r.rtts.length - 1]! >= 2 * DELAY_MS, `the last round trip crossed the delay both ways: ${r.rtts}`);
  // The first round trip came before the signal: unemulated both ways, not in the log.
  assert.ok(r.up.passthrough.datagrams >= 1 && r.down.passthrough.datagrams >= 1, JSON.stringify([r.up.passthrough, r.down.passthrough]));
  assert.is(r.up.passthrough.bytes, r.up.passthrough.datagrams * (100 + 32));
  // Every datagram went one way or the other; only the emulated ones are in the link's log and counters.
  assert.is(r.up.passthrough.datagrams + r.up.datagramsIn, r.rtts.length);
  assert.ok(r.up.datagramsIn >= 1);
  assert.is(r.arrivals, r.up.datagramsIn);
});

test('without MAHIMAHI_PASSTHROUGH_UNTIL_SIGNAL, SIGUSR1 changes nothing: every datagram crosses the link, and Node opens no debugger', async () => {
  const r = await run('no-passthrough', {});
  assert.not.match(r.stderr, /Debugger listening|passthrough/);
  assert.ok(r.rtts.length === 1 && r.rtts[0]! >= 2 * DELAY_MS, `${r.rtts}`);
  assert.is(r.up.passthrough.datagrams, 0);
  assert.is(r.up.datagramsIn, 1);
  assert.is(r.arrivals, 1);
});

test('a SIGUSR1 that comes while the trace clock is held (--trace-clock-start first-packet) ends passthrough for the directions built later', async () => {
  const r = await run('passthrough-held', { MAHIMAHI_PASSTHROUGH_UNTIL_SIGNAL: '' }, SIGNAL_FIRST, ['--trace-clock-start', 'first-packet']);
  assert.match(r.stderr, /SIGUSR1 at [\d.]+ s: passthrough ended/);
  assert.ok(r.rtts[0]! >= 2 * DELAY_MS, `the round trip after the signal crossed the delay both ways: ${r.rtts}`);
  assert.is(r.up.passthrough.datagrams, 0);
  assert.is(r.up.datagramsIn, 1);
});

test.run();
