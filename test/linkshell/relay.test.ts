// The relay alone: NAT-like flows, the peer filter, and making room for new sources.

import { createSocket, type Socket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createUdpEndpoint } from '../../src/net/udp-endpoint.ts';
import { Relay, SOURCE_IDLE_EVICTION_MS, type Flow } from '../../src/linkshell/relay.ts';
import { UdpSocketTable } from '../../src/net/socket-drops.ts';
import { multiEchoPeer, waitFor } from './helpers.ts';

test('a full table of sources makes room by forgetting one idle for a minute, never one still active', async () => {
  const peer = await multiEchoPeer();
  let now = 0;
  const warnings: string[] = [];
  const seen: string[] = [];
  let relay!: Relay;
  relay = await Relay.open({
    listen: { address: '127.0.0.1', family: 4, port: 0 },
    peer: { address: '127.0.0.1', family: 4, port: peer.localAddress.port },
    maxSources: 1,
    now: () => now,
    // No emulated link here: straight through both ways.
    onInside: (bytes, flow) => relay.sendToPeer(flow, bytes),
    onOutside: (bytes, flow) => {
      seen.push(`${flow.key} ${bytes[0]}`);
      relay.sendToInside(flow, bytes);
    },
    warn: (m) => warnings.push(m),
  });
  const a = await createUdpEndpoint({ peer: relay.listenAddress });
  const b = await createUdpEndpoint({ peer: relay.listenAddress });
  const got = { a: [] as number[], b: [] as number[] };
  a.onReceive((bytes) => got.a.push(bytes[0]));
  b.onReceive((bytes) => got.b.push(bytes[0]));
  try {
    a.send(Uint8Array.of(1));
    await waitFor(() => got.a.length === 1, 5000, "a's first echo");
    now = SOURCE_IDLE_EVICTION_MS - 1;
    b.send(Uint8Array.of(2)); // a has been idle just under a minute: b is refused
    await waitFor(() => relay.stats().refusedSourceDatagrams === 1, 5000, 'b to be refused');
    now = SOURCE_IDLE_EVICTION_MS;
    b.send(Uint8Array.of(3)); // now a may go
    await waitFor(() => got.b.length === 1, 5000, "b's echo");
    assert.equal(got, { a: [1], b: [3] });
    const stats = relay.stats();
    assert.is(stats.evictedSources, 1);
    assert.is(stats.sources, 2);
    assert.is(warnings.length, 1);
    // a's datagrams still in the link when it was forgotten are dropped, not sent from a closed socket.
    const forgotten: Flow = { key: 'x', insideAddress: '127.0.0.1', insidePort: 9, outside: undefined as never, stray: undefined as never, pending: undefined, lastActive: 0, closed: true, pumpId: undefined, notAhead: 0 };
    relay.sendToPeer(forgotten, Uint8Array.of(9));
    relay.sendToInside(forgotten, Uint8Array.of(9));
    assert.is(relay.stats().evictedFlowDatagrams, 2);
    assert.equal(seen.map((s) => s.split(' ')[1]), ['1', '3']);
  } finally {
    await a.close();
    await b.close();
    await relay.close();
    await peer.close();
  }
});

async function udpSocket(address: string): Promise<Socket> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, address, () => resolve());
  });
  return socket;
}

test("datagrams to an outside socket's port that are not the peer's are counted, not relayed; another port of the peer's host is warned about once", async () => {
  // The peer answers every datagram from its own port; `samePeerHost` and `otherHost` write to the outside socket's port too.
  const peer = await udpSocket('127.0.0.1');
  const samePeerHost = await udpSocket('127.0.0.1');
  const otherHost = await udpSocket('127.0.0.2');
  let outsidePort = 0;
  peer.on('message', (bytes, from) => {
    outsidePort = from.port;
    peer.send(bytes, from.port, from.address);
  });
  const warnings: string[] = [];
  const relayed: number[] = [];
  let relay!: Relay;
  relay = await Relay.open({
    listen: { address: '127.0.0.1', family: 4, port: 0 },
    peer: { address: '127.0.0.1', family: 4, port: peer.address().port },
    maxSources: 4,
    onInside: (bytes, flow) => relay.sendToPeer(flow, bytes),
    onOutside: (bytes, flow) => {
      relayed.push(bytes[0]);
      relay.sendToInside(flow, bytes);
    },
    warn: (m) => warnings.push(m),
  });
  const client = await createUdpEndpoint({ peer: relay.listenAddress });
  try {
    client.send(Uint8Array.of(1));
    await waitFor(() => relayed.length === 1, 5000, 'the echo of the first datagram');
    for (let i = 0; i < 3; i++) samePeerHost.send(Uint8Array.of(2), outsidePort, '127.0.0.1');
    otherHost.send(Uint8Array.of(3), outsidePort, '127.0.0.1');
    await waitFor(() => relay.stats().foreignPortDatagrams === 3 && relay.stats().foreignDatagrams === 1, 5000, 'the strangers to be counted');
    client.send(Uint8Array.of(4));
    await waitFor(() => relayed.length === 2, 5000, 'the echo of the second datagram');
    assert.equal(relayed, [1, 4]);
    assert.is(warnings.length, 1);
    assert.match(warnings[0], new RegExp(`^the peer's host sent a datagram from port ${samePeerHost.address().port}, not the peer's port ${peer.address().port}: dropped`));
    assert.is(relay.stats().peerRefusals, 0);
  } finally {
    await client.close();
    await relay.close();
    for (const s of [peer, samePeerHost, otherHost]) await new Promise<void>((resolve) => s.close(() => resolve()));
  }
});

/** This process's limit of open files (1024 if it cannot be read). */
function openFileLimit(): number {
  const line = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
  return line ? Number(line[1]) : 1024;
}

test('every flow gets a port no other socket shares, even where address reuse lets the kernel hand one out twice', async () => {
  // Sockets that allow address reuse, holding a few thousand of the ~28,000 ephemeral ports: the kernel
  // may give a new such socket a port one of them holds. Without a check, some of 40 flows would land on
  // one (a shared port mixes up the answers of sockets connected to the same peer).
  const blockers: Socket[] = [];
  const count = Math.max(0, Math.min(3000, openFileLimit() - 400));
  for (let i = 0; i < count; i++) {
    const s = createSocket({ type: 'udp4', reuseAddr: true });
    await new Promise<void>((resolve) => s.bind(0, '127.0.0.1', () => resolve()));
    blockers.push(s);
  }
  const peer = createSocket('udp4');
  const flowPorts = new Set<number>();
  peer.on('message', (bytes, from) => {
    flowPorts.add(from.port);
    peer.send(bytes, from.port, from.address);
  });
  await new Promise<void>((resolve) => peer.bind(0, '127.0.0.1', () => resolve()));
  let relay!: Relay;
  relay = await Relay.open({
    listen: { address: '127.0.0.1', family: 4, port: 0 },
    peer: { address: '127.0.0.1', family: 4, port: peer.address().port },
    maxSources: 64,
    onInside: (bytes, flow) => relay.sendToPeer(flow, bytes),
    onOutside: (bytes, flow) => relay.sendToInside(flow, bytes),
    warn: () => {},
  });
  const clients = await Promise.all(Array.from({ length: 40 }, () => createUdpEndpoint({ peer: relay.listenAddress })));
  const got = clients.map(() => [] as number[]);
  clients.forEach((c, i) => c.onReceive((bytes) => got[i].push(bytes[0])));
  try {
    clients.forEach((c, i) => c.send(Uint8Array.of(i)));
    await waitFor(() => got.every((g) => g.length === 1), 10000, 'every client\'s echo');
    assert.equal(got, clients.map((_, i) => [i]));
    assert.is(flowPorts.size, 40);
    // Each port holds the flow's two sockets (connected, and the one counting strangers), nothing else.
    await waitFor(() => [...flowPorts].every((port) => UdpSocketTable.read().socketsAtPort(port) === 2), 10000, 'both sockets of each flow');
  } finally {
    for (const c of clients) await c.close();
    await relay.close();
    await new Promise<void>((resolve) => peer.close(() => resolve()));
    for (const s of blockers) s.close();
  }
});

test('kernel drops at the listen socket are read from the kernel while the relay runs', async () => {
  const peer = await multiEchoPeer();
  let relay!: Relay;
  relay = await Relay.open({
    listen: { address: '127.0.0.1', family: 4, port: 0 },
    peer: { address: '127.0.0.1', family: 4, port: peer.localAddress.port },
    maxSources: 1,
    receiveBufferBytes: 4096,
    onInside: () => {},
    onOutside: () => {},
    warn: () => {},
  });
  let inside = 0;
  const client = await udpSocket('127.0.0.1');
  try {
    assert.equal(relay.kernelDrops(), { inside: 0, outside: 0 });
    // One turn of the event loop: the relay reads nothing meanwhile, and 4 KiB hold only a few datagrams.
    for (let i = 0; i < 300; i++) client.send(Buffer.alloc(1000), relay.listenAddress.port, '127.0.0.1');
    await waitFor(() => (relay.kernelDrops().inside ?? 0) > 100, 5000, 'the kernel to drop at the listen socket');
    inside = relay.kernelDrops().inside!;
  } finally {
    await new Promise<void>((resolve) => client.close(() => resolve()));
    await relay.close();
    await peer.close();
  }
  assert.ok(inside > 100 && inside < 300, `${inside} dropped`);
  assert.equal(relay.kernelDrops(), { inside: undefined, outside: undefined });
});

test('binding the listen socket to an address not on this host is an error naming it', async () => {
  await Relay.open({
    listen: { address: '192.0.2.1', family: 4, port: 0 },
    peer: { address: '127.0.0.1', family: 4, port: 9 },
    maxSources: 1,
    onInside: () => {},
    onOutside: () => {},
    warn: () => {},
  }).then(
    () => assert.unreachable(),
    (error: Error) => assert.match(error.message, /^cannot listen on 192\.0\.2\.1:0: EADDRNOTAVAIL/),
  );
});

test.run();
