// The relay alone: NAT-like flows, the peer filter, and making room for new sources.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createUdpEndpoint } from '../../src/net/udp-endpoint.ts';
import { Relay, SOURCE_IDLE_EVICTION_MS, type Flow } from '../../src/linkshell/relay.ts';
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
    const forgotten: Flow = { key: 'x', insideAddress: '127.0.0.1', insidePort: 9, outside: undefined as never, pending: undefined, lastActive: 0, closed: true };
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
