// linkshell between a client and a UDP echo peer, on loopback, in-process.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LogEventKind, parseLinkLog, formatLogEvent } from '../../src/link-emu/link-log.ts';
import { createQueue } from '../../src/link-emu/queue-factory.ts';
import { createRng } from '../../src/common/random.ts';
import { arrivalsFromLog, lastLogTime, replay } from '../../src/link-emu/replay.ts';
import { loadTrace } from '../../src/link-emu/trace-files.ts';
import { formatAddress } from '../../src/net/address.ts';
import { createUdpEndpoint } from '../../src/net/udp-endpoint.ts';
import { startLinkshell } from '../../src/linkshell/session.ts';
import { formatSummary } from '../../src/linkshell/summary.ts';
import { config, echoPeer, multiEchoPeer, sleep, TRACE_12MBPS, TRACE_3MBPS, traceFile, waitFor, work } from './helpers.ts';

const quiet = { warn: () => {} };

test('round-trip time through linkshell is at least twice the one-way delay', async () => {
  const peer = await echoPeer();
  const delay = 25;
  const session = await startLinkshell(config(['--trace', TRACE_12MBPS, '--connect', formatAddress(peer.localAddress), '--delay', String(delay)]), quiet);
  const client = await createUdpEndpoint({ peer: session.listenAddress });
  const sentAt = new Map<number, number>();
  const rtts: number[] = [];
  client.onReceive((bytes) => {
    const id = new DataView(bytes.buffer, bytes.byteOffset).getUint32(0);
    rtts.push(client.now() - sentAt.get(id)!);
  });
  try {
    for (let id = 0; id < 20; id++) {
      const bytes = new Uint8Array(100);
      new DataView(bytes.buffer).setUint32(0, id);
      sentAt.set(id, client.now());
      client.send(bytes);
      await sleep(3);
    }
    await waitFor(() => rtts.length === 20, 5000, '20 echoes');
  } finally {
    await client.close();
    const report = await session.stop();
    await peer.close();
    assert.is(report.directions[0].stats.packetsOut, 20);
    assert.is(report.directions[1].stats.packetsOut, 20);
  }
  for (const rtt of rtts) assert.ok(rtt >= 2 * delay, `RTT ${rtt} ms < 2 x ${delay} ms`);
  // Each direction's link adds at least 1 ms (a packet never leaves in the millisecond it arrived).
  assert.ok(Math.min(...rtts) > 2 * delay, `min RTT ${Math.min(...rtts)}`);
});

test('uplink loss: the loss seen is within statistical bounds, and accounted for exactly', async () => {
  const peer = await echoPeer();
  const rate = 0.2;
  const session = await startLinkshell(
    config(['--trace', TRACE_12MBPS, '--connect', formatAddress(peer.localAddress), '--uplink-loss', String(rate), '--seed', '7']),
    quiet,
  );
  const client = await createUdpEndpoint({ peer: session.listenAddress });
  let echoes = 0;
  client.onReceive(() => echoes++);
  const n = 2000;
  const stats = () => session.report().directions;
  try {
    // 2000 datagrams of 60 bytes (92 on the link), in bursts well within the 12 Mbit/s link.
    for (let i = 0; i < n; i += 20) {
      for (let j = 0; j < 20; j++) client.send(new Uint8Array(60));
      await sleep(1);
    }
    // The loss stage comes after the link on the uplink (mm-loss outside mm-link): wait for every datagram to pass it.
    await waitFor(() => stats()[0].stats.packetsOut + stats()[0].stats.drops.loss === n, 5000, 'the uplink to pass all datagrams');
    const lost = stats()[0].stats.drops.loss;
    await waitFor(() => echoes === n - lost, 5000, `${n - lost} echoes`);
    // Binomial(2000, 0.2): mean 400, standard deviation 17.9; 5 deviations either way.
    assert.ok(Math.abs(lost - n * rate) < 5 * Math.sqrt(n * rate * (1 - rate)), `lost ${lost} of ${n}`);
    assert.is(peer.received(), n - lost);
    assert.is(stats()[1].stats.drops.loss, 0);
  } finally {
    await client.close();
    await session.stop();
    await peer.close();
  }
});

test('an oversized datagram is counted and not forwarded; one that exactly fills an opportunity passes', async () => {
  const peer = await echoPeer();
  const session = await startLinkshell(config(['--trace', TRACE_12MBPS, '--connect', formatAddress(peer.localAddress)]), quiet);
  const client = await createUdpEndpoint({ peer: session.listenAddress });
  let echoes = 0;
  client.onReceive(() => echoes++);
  try {
    client.send(new Uint8Array(1473)); // 1505 bytes on the link: too large
    client.send(new Uint8Array(1472)); // 1504: one whole opportunity
    client.send(new Uint8Array(9000));
    await waitFor(() => echoes === 1, 5000, 'the echo of the 1472-byte datagram');
    await waitFor(() => session.report().directions[0].stats.packetsIn === 3, 5000, 'the last datagram to arrive');
    const up = session.report().directions[0].stats;
    assert.is(up.drops.oversize, 2);
    assert.is(up.dropBytes.oversize, 1505 + 9032);
    assert.equal(peer.sizes, [1472]);
    assert.is(echoes, 1);
  } finally {
    await client.close();
    const report = await session.stop();
    await peer.close();
    // Nothing but the 1472-byte datagram ever left, either way.
    assert.is(report.directions[0].stats.packetsOut, 1);
    assert.is(report.directions[1].stats.packetsIn, 1);
    assert.match(formatSummary(report), /drops: oversize\s*│ 2 /);
  }
});

test('several inside sources are told apart like a NAT: each gets its own answers; past --max-sources they are refused', async () => {
  const peer = await multiEchoPeer();
  const warnings: string[] = [];
  const session = await startLinkshell(config(['--trace', TRACE_12MBPS, '--connect', formatAddress(peer.localAddress), '--max-sources', '2']), {
    warn: (m) => warnings.push(m),
  });
  const clients = await Promise.all([0, 1, 2].map(() => createUdpEndpoint({ peer: session.listenAddress })));
  const got: number[][] = [[], [], []];
  clients.forEach((c, i) => c.onReceive((bytes) => got[i].push(bytes[0])));
  try {
    for (let k = 0; k < 5; k++) {
      clients[0].send(Uint8Array.of(10 + k));
      clients[1].send(Uint8Array.of(20 + k));
      await sleep(1);
    }
    await waitFor(() => got[0].length === 5 && got[1].length === 5, 5000, 'both sources\' echoes');
    clients[2].send(Uint8Array.of(30));
    await waitFor(() => session.report().relay.refusedSourceDatagrams === 1, 5000, 'the third source to be refused');
    // A refused datagram goes nowhere: nothing more can arrive.
    assert.equal(got[0], [10, 11, 12, 13, 14]);
    assert.equal(got[1], [20, 21, 22, 23, 24]);
    assert.equal(got[2], []);
    assert.is(session.report().relay.sources, 2);
    assert.is(peer.received(), 10);
    assert.is(warnings.length, 1);
    assert.match(warnings[0], /more than 2 inside sources; datagrams from new ones \(first: 127\.0\.0\.1:\d+\) are dropped \(--max-sources\)/);
  } finally {
    for (const c of clients) await c.close();
    await session.stop();
    await peer.close();
  }
});

test('a peer port with nobody listening: refusals are counted and warned about once, nothing breaks', async () => {
  const gone = await createUdpEndpoint({});
  const port = gone.localAddress.port;
  await gone.close();
  const warnings: string[] = [];
  const session = await startLinkshell(config(['--trace', TRACE_12MBPS, '--connect', `127.0.0.1:${port}`]), { warn: (m) => warnings.push(m) });
  const client = await createUdpEndpoint({ peer: session.listenAddress });
  try {
    for (let i = 0; i < 10; i++) {
      client.send(new Uint8Array(10));
      await sleep(2);
    }
    await waitFor(() => session.report().relay.peerRefusals >= 2 && session.report().directions[0].stats.packetsOut === 10, 5000, 'every datagram to leave, and refusals');
  } finally {
    await client.close();
    const report = await session.stop();
    assert.is(report.directions[0].stats.packetsOut, 10);
    assert.match(formatSummary(report), /refusals \(port unreachable\) from the peer/);
  }
  assert.is(warnings.length, 1);
  assert.match(warnings[0], new RegExp(`the peer 127\\.0\\.0\\.1:${port} refused a datagram \\(ECONNREFUSED\\)`));
});

test('an infinite queue stops at the memory cap: it drops, counts and warns once', async () => {
  const peer = await echoPeer();
  const warnings: string[] = [];
  // One opportunity every 10 s: nothing leaves during the test.
  const slow = traceFile('slow.trace', [10000]);
  const session = await startLinkshell(config(['--trace', slow, '--connect', formatAddress(peer.localAddress), '--memory-cap', '1']), {
    warn: (m) => warnings.push(m),
  });
  const client = await createUdpEndpoint({ peer: session.listenAddress });
  const n = 1000;
  const perDatagram = 1400 + 32;
  try {
    for (let i = 0; i < n; i += 50) {
      for (let j = 0; j < 50; j++) client.send(new Uint8Array(1400));
      await sleep(1);
    }
    const up = () => session.report().directions[0].stats;
    await waitFor(() => up().packetsIn + up().memoryCapDrops === n, 5000, 'linkshell to take all datagrams');
    const held = Math.floor((1 << 20) / perDatagram);
    assert.is(up().packetsIn, held);
    assert.is(up().queuePackets, held);
    assert.is(up().heldBytes, held * perDatagram);
    assert.is(up().memoryCapDrops, n - held);
    assert.is(warnings.length, 1);
    assert.match(warnings[0], /uplink holds 1048576 bytes of datagrams; dropping arrivals until it drains \(--memory-cap\)/);
  } finally {
    await client.close();
    const report = await session.stop();
    await peer.close();
    assert.match(formatSummary(report), /drops: memory cap\s*│ 268 /);
  }
});

test('datagrams the kernel dropped at the listen socket are counted in the summary', async () => {
  const peer = await echoPeer();
  // 64 KiB hold a few dozen datagrams of 1000 bytes (the kernel counts its own overhead too). On the
  // event loop's receive path, so that nothing reads while the burst is sent: the native thread
  // drains the socket as datagrams come, and drops there only when the machine starves it (the
  // counting, from /proc/net/udp, is the same for both paths).
  const session = await startLinkshell(config(['--trace', TRACE_12MBPS, '--connect', formatAddress(peer.localAddress)]), { ...quiet, receiveBufferBytes: 1 << 16, nativePath: false });
  const client = await createUdpEndpoint({ peer: session.listenAddress });
  const n = 2000;
  const up = () => session.report().directions[0];
  try {
    // All in one turn of the event loop: linkshell reads nothing meanwhile, and its receive buffer cannot hold them all.
    for (let i = 0; i < n; i++) client.send(new Uint8Array(1000));
    await waitFor(() => up().stats.packetsIn + up().stats.memoryCapDrops + (up().socketDrops ?? 0) === n, 10000, 'every datagram to be taken in or counted as dropped by the kernel');
    assert.ok(up().socketDrops! > 0, 'the kernel dropped some');
  } finally {
    await client.close();
    const report = await session.stop();
    await peer.close();
    const drops = report.directions[0].socketDrops!;
    assert.ok(drops > 0);
    assert.is(report.directions[0].stats.packetsIn + report.directions[0].stats.memoryCapDrops + drops, n);
    // (The downlink's figure depends on how the machine keeps up with the echoes: not asserted.)
    assert.match(formatSummary(report), new RegExp(`drops: socket \\(kernel\\)\\s*│ ${drops} +│ \\d+ +│`));
  }
});

test('logs written in real time replay to the same opportunities, departures and drops', async () => {
  const peer = await echoPeer();
  const upLog = join(work, 'replay-up.log');
  const downLog = join(work, 'replay-down.log');
  const session = await startLinkshell(
    config([
      TRACE_3MBPS, TRACE_12MBPS, '--connect', formatAddress(peer.localAddress),
      '--uplink-queue', 'droptail', '--uplink-queue-args', 'packets=8',
      '--uplink-log', upLog, '--downlink-log', downLog, '--delay', '2',
    ]),
    { warn: () => {}, commandLine: ['linkshell', 'test'] },
  );
  const client = await createUdpEndpoint({ peer: session.listenAddress });
  let echoes = 0;
  client.onReceive(() => echoes++);
  let sent = 0;
  const [up, down] = [0, 1].map((i) => () => session.report().directions[i].stats);
  try {
    // Bursts of 6 x 1000-byte datagrams every 10 ms on a 3 Mbit/s uplink: it queues and overflows. As many
    // bursts as it takes for 50 departures and an overflow, however slowly the machine runs.
    for (let burst = 0; up().packetsOut < 50 || up().drops.queue === 0; burst++) {
      if (burst === 1000) throw new Error(`after 1000 bursts, ${up().packetsOut} departures and ${up().drops.queue} drops`);
      for (let j = 0; j < 6; j++) client.send(new Uint8Array(1000 + (burst % 400)));
      sent += 6;
      await sleep(10);
    }
    // Until every datagram has crossed both ways (or was dropped): the logs then hold whole round trips.
    await waitFor(
      () => up().packetsIn === sent && up().heldBytes === 0 && down().heldBytes === 0 && echoes === up().packetsOut,
      10000,
      'the link to drain',
    );
  } finally {
    await client.close();
    await session.stop();
    await peer.close();
  }
  const upTrace = loadTrace(TRACE_3MBPS);
  const downTrace = loadTrace(TRACE_12MBPS);
  for (const [path, trace, queueKind, queueArgs] of [
    [upLog, upTrace, 'droptail', 'packets=8'],
    [downLog, downTrace, 'infinite', ''],
  ] as const) {
    const text = readFileSync(path, 'utf8');
    assert.ok(text.endsWith('\n'), `${path} ends with a whole line`);
    const log = parseLinkLog(text, path);
    assert.is(log.header.queue, queueKind === 'droptail' ? 'droptail [packets=8]' : 'infinite');
    const lines: string[] = [];
    replay({
      arrivals: arrivalsFromLog(log),
      trace,
      queue: createQueue<null>(queueKind, queueArgs, createRng(1)),
      baseTimestamp: log.header.baseTimestamp!,
      until: lastLogTime(log),
      events: {
        arrival: (t, s) => lines.push(`${t} + ${s}`),
        opportunity: (t, m) => lines.push(`${t} # ${m}`),
        departure: (t, s, d) => lines.push(`${t} - ${s} ${d}`),
        drop: (t, p, b) => lines.push(`${t} d ${p} ${b}`),
      },
    });
    const recorded: string[] = [];
    for (let i = 0; i < log.count; i++) recorded.push(formatLogEvent(log, i));
    assert.equal(lines, recorded);
    const kinds = (k: LogEventKind) => Array.from(log.kind).filter((x) => x === k).length;
    assert.ok(kinds(LogEventKind.Departure) >= 50, `${path}: departures`);
    if (queueKind === 'droptail') assert.ok(kinds(LogEventKind.Drop) > 0, 'the uplink queue overflowed');
  }
});

test.run();
