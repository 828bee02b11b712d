// A live run is reproducible from its log: a real linkshell session on
// loopback with a PIE queue that drops, then `linkshell replay` of its uplink
// log, with no --seed, gives the same opportunities, departures and drops,
// line for line (the log records the seed PIE drew from).

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseLinkLog } from '../../src/link-emu/link-log.ts';
import { linkLogStats } from '../../src/link-emu/log-stats.ts';
import { formatAddress } from '../../src/net/address.ts';
import { createUdpEndpoint } from '../../src/net/udp-endpoint.ts';
import { startLinkshell } from '../../src/linkshell/session.ts';
import { config, echoPeer, root, sleep, TRACE_3MBPS, waitFor, work } from './helpers.ts';
import { HANG_BOUND_MS } from '../helpers/bounds.ts';

const QUEUE_ARGS = 'packets=400,qdelay_ref=15,max_burst=150';

function replay(...args: string[]) {
  const r = spawnSync(process.execPath, [join(root, 'bin/linkshell.js'), 'replay', ...args], { cwd: root, encoding: 'utf8', timeout: HANG_BOUND_MS });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const events = (text: string) => text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));

test('a live PIE run replays line for line from its log, with the seed the log records', async () => {
  const peer = await echoPeer();
  const log = join(work, 'live-pie.up.log');
  const session = await startLinkshell(
    config(['--trace', TRACE_3MBPS, '--connect', formatAddress(peer.localAddress), '--uplink-queue', 'pie', '--uplink-queue-args', QUEUE_ARGS, '--seed', '4711', '--uplink-log', log]),
    { warn: () => {} },
  );
  const client = await createUdpEndpoint({ peer: session.listenAddress });
  try {
    // About 8 Mbit/s into a 3 Mbit/s link for 1.5 s: the queue's delay passes qdelay_ref and PIE drops early.
    for (let burst = 0; burst < 150; burst++) {
      for (let i = 0; i < 10; i++) client.send(new Uint8Array(968));
      await sleep(10);
    }
    await waitFor(() => session.report().directions[0].stats.queuePackets === 0, HANG_BOUND_MS, 'the uplink queue to drain');
  } finally {
    await session.stop();
    await client.close();
    await peer.close();
  }
  const live = readFileSync(log, 'utf8');
  assert.match(live, /\n# seed of stage 0 \(link\): "4711\/uplink\/stage0-link"\n/);
  const stats = linkLogStats(parseLinkLog(live, log));
  assert.ok(stats.drops > 20, `PIE dropped only ${stats.drops} datagrams`);
  assert.ok(stats.departures > 100);

  const out = join(work, 'live-pie.replayed.log');
  const r = replay('--log-in', log, '--trace', TRACE_3MBPS, '--queue', 'pie', '--queue-args', QUEUE_ARGS, '--log', out);
  assert.is(r.code, 0, r.stderr);
  const replayed = readFileSync(out, 'utf8');
  assert.equal(events(replayed), events(live));
  assert.match(replayed, /\n# seed of stage 0 \(link\): "4711\/uplink\/stage0-link"\n/);

  // Another seed gives other drops: the match above is the recorded seed's doing.
  const other = join(work, 'live-pie.seed1.log');
  assert.is(replay('--log-in', log, '--trace', TRACE_3MBPS, '--queue', 'pie', '--queue-args', QUEUE_ARGS, '--seed', '1', '--log', other).code, 0);
  assert.not.equal(events(readFileSync(other, 'utf8')), events(live));
});

test.run();
