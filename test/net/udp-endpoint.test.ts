// EndpointContext over real UDP sockets on loopback.

import { createSocket } from 'node:dgram';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createUdpEndpoint } from '../../src/net/udp-endpoint.ts';
import { waitFor } from '../helpers/wait-for.ts';

test('two endpoints exchange datagrams; the server learns its peer from the first one', async () => {
  const server = await createUdpEndpoint({ bind: '127.0.0.1:0' });
  const client = await createUdpEndpoint({ peer: server.localAddress });
  assert.is(server.peer(), undefined);
  assert.throws(() => server.send(new Uint8Array(1)), /has no peer yet/);
  const atServer: number[][] = [];
  const atClient: number[][] = [];
  server.onReceive((bytes) => {
    atServer.push([...bytes]);
    server.send(Uint8Array.from(bytes, (b) => b + 1));
  });
  client.onReceive((bytes) => atClient.push([...bytes]));
  try {
    const buffer = new Uint8Array([1, 2, 3]);
    client.send(buffer);
    buffer[0] = 99; // the endpoint copied the datagram
    await waitFor(() => atClient.length === 1, 5000, 'the answer');
    assert.equal(atServer, [[1, 2, 3]]);
    assert.equal(atClient, [[2, 3, 4]]);
    assert.equal(server.peer(), client.localAddress);
  } finally {
    await client.close();
    await server.close();
  }
  assert.throws(() => client.send(new Uint8Array(1)), /is closed/);
});

test('datagrams from others than the peer are ignored and counted', async () => {
  const a = await createUdpEndpoint({});
  const b = await createUdpEndpoint({ peer: a.localAddress });
  const stranger = createSocket('udp4');
  let got = 0;
  b.onReceive(() => got++);
  try {
    await new Promise<void>((resolve) => stranger.send(new Uint8Array(4), b.localAddress.port, '127.0.0.1', () => resolve()));
    await waitFor(() => b.foreignDatagrams() === 1, 5000, 'the stranger\'s datagram');
    assert.is(got, 0);
  } finally {
    stranger.close();
    await a.close();
    await b.close();
  }
});

test('timers run in order, never early, on the monotonic clock; cancelled ones do not run', async () => {
  const e = await createUdpEndpoint({ timer: 'thread' });
  // Each timer's due time lies in [set before + delay, set after + delay]: the machine may stall
  // between two setTimer calls, so the order is checked only where those windows do not overlap.
  const timers: { earliest: number; latest: number; ranAt?: number }[] = [];
  try {
    await new Promise<void>((resolve) => {
      const set = (delayMs: number) => {
        const entry: { earliest: number; latest: number; ranAt?: number } = { earliest: e.now() + delayMs, latest: 0 };
        const handle = e.setTimer(delayMs, () => {
          entry.ranAt = e.now();
          if (timers.every((t) => t.ranAt !== undefined)) resolve();
        });
        entry.latest = e.now() + delayMs;
        return { entry, handle };
      };
      timers.push(set(6).entry);
      const cancelled = e.setTimer(3, () => timers.push({ earliest: NaN, latest: NaN, ranAt: -1 }));
      timers.push(set(2.5).entry);
      cancelled.cancel();
    });
    // The cancelled timer was due before the 6 ms one: give it the chance to run wrongly.
    await new Promise<void>((resolve) => e.setTimer(1, resolve));
  } finally {
    await e.close();
  }
  assert.is(timers.length, 2, 'the cancelled timer ran');
  for (const t of timers) assert.ok(t.ranAt! >= t.earliest, `ran early: ${JSON.stringify(t)}`);
  const [six, twoAndAHalf] = timers;
  if (twoAndAHalf.latest < six.earliest) assert.ok(twoAndAHalf.ranAt! <= six.ranAt!, JSON.stringify(timers));
  assert.throws(() => e.setTimer(-1, () => {}), /timer delay/);
});

test('work runs the task and passes on its result or its failure', async () => {
  const e = await createUdpEndpoint({});
  try {
    assert.is(await e.work(async () => 42, 1000), 42);
    await e.work(() => {
      throw new Error('sync failure');
    }, 0).then(
      () => assert.unreachable(),
      (error: Error) => assert.is(error.message, 'sync failure'),
    );
  } finally {
    await e.close();
  }
});

test('bad addresses are refused with the address in the message', async () => {
  await createUdpEndpoint({ peer: '127.0.0.1' }).then(
    () => assert.unreachable(),
    (error: Error) => assert.match(error.message, /peer: no ":PORT" in "127.0.0.1"/),
  );
  await createUdpEndpoint({ peer: '[::1]:9' }).then(
    () => assert.unreachable(),
    (error: Error) => assert.match(error.message, /different IP versions/),
  );
  await createUdpEndpoint({ bind: { address: '127.0.0.1', port: 70000 } }).then(
    () => assert.unreachable(),
    (error: Error) => assert.match(error.message, /port 70000/),
  );
});

test.run();
