// linkshell --netns carries a TCP flow at the link's capacity: iperf3 over
// TCP through 12 Mbit/s, and linkshell stats on its log agreeing with
// iperf3's count. Only loopback, the host's end of the link and the
// namespace the run creates carry traffic; the run is bounded.
// test-runner: alone (a real-time throughput figure: TUN reads carry no kernel arrival stamp, so a test beside it that holds up linkshell's thread leaves the link idle)

import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CAPACITY_BPS, freePort, netnsTest, iperf3Json, iperf3Server, runLinkshell, TRACE_12MBPS, work } from './helpers.ts';
import { HANG_BOUND_MS } from '../helpers/bounds.ts';

const maybe = netnsTest;

maybe('iperf3 over TCP through 12 Mbit/s reaches 90 % of the capacity, and linkshell stats on the log agrees with iperf3', async () => {
  const port = await freePort();
  const server = await iperf3Server(port);
  const upLog = join(work, 'tcp-up.log');
  try {
    const r = await runLinkshell(
      ['--netns', TRACE_12MBPS, TRACE_12MBPS, '--uplink-log', upLog, '--', 'sh', '-c', `exec iperf3 -c "$MAHIMAHI_BASE" -p ${port} -t 6 -J`],
      HANG_BOUND_MS,
    );
    assert.is(r.code, 0, r.stderr);
    const result = iperf3Json(r.stdout);
    const received = result.end.sum_received!;
    assert.ok(received.bits_per_second >= 0.9 * CAPACITY_BPS, `iperf3 received ${received.bits_per_second} bit/s, under 90 % of ${CAPACITY_BPS}`);
    const stats = spawnSync(process.execPath, [join(import.meta.dirname, '../../bin/linkshell.js'), 'stats', '--format', 'json', upLog], { encoding: 'utf8' });
    assert.is(stats.status, 0, stats.stderr);
    const [{ stats: figures }] = JSON.parse(stats.stdout) as [{ stats: { departureBytes: number; drops: number } }];
    // Each full segment: 1448 bytes of iperf3's data in 1500 bytes of IP packet plus the 4-byte TUN header.
    // What the server counted crossed the link; what crossed after it stopped counting is a little more.
    const payloadOnLink = figures.departureBytes * (1448 / 1504);
    const counted = received.bytes;
    const says = `the log carried ${figures.departureBytes} bytes (${payloadOnLink.toFixed(0)} of payload), the server counted ${counted}`;
    assert.ok(counted <= payloadOnLink * 1.005, says);
    assert.ok(payloadOnLink <= counted * 1.05, says);
    assert.is(figures.drops, 0);
  } finally {
    server.stop();
  }
});

test.run();
