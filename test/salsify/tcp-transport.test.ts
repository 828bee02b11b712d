// salsify send --transport tcp: datagrams length-prefixed over one TCP
// connection (framing cut at any byte boundary reassembles the same
// datagrams), through the relay to a UDP receiver and back, in order.
import { createSocket } from 'node:dgram';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseSendArgs } from '../../src/cli/salsify-send.ts';
import { Deframer, frameDatagram, MAX_FRAMED_BYTES } from '../../src/salsify/live/tcp-framing.ts';
import { createTcpEndpoint } from '../../src/salsify/live/tcp-endpoint.ts';
import { startTcpRelay } from '../../src/salsify/live/tcp-relay.ts';
import { createRng } from '../../src/common/random.ts';
import { HANG_BOUND_MS } from '../helpers/bounds.ts';

test('framing: every datagram comes out whole and in order, however the stream is cut', () => {
  const rng = createRng(7);
  const datagrams = Array.from({ length: 200 }, (_, i) => Buffer.alloc(Math.floor(rng.next() * 1500), i & 255));
  datagrams.push(Buffer.alloc(0), Buffer.alloc(MAX_FRAMED_BYTES, 9));
  const stream = Buffer.concat(datagrams.map(frameDatagram));
  const deframer = new Deframer();
  const out: Buffer[] = [];
  for (let at = 0; at < stream.length; ) {
    const size = 1 + Math.floor(rng.next() * 3000);
    out.push(...deframer.push(stream.subarray(at, at + size)));
    at += size;
  }
  assert.is(out.length, datagrams.length);
  for (let i = 0; i < datagrams.length; i++) assert.ok(out[i].equals(datagrams[i]), `datagram ${i}`);
  assert.is(deframer.waitingBytes, 0);
});

test('framing: a datagram longer than a 2-byte length is refused', () => {
  assert.throws(() => frameDatagram(Buffer.alloc(MAX_FRAMED_BYTES + 1)), /cannot be framed/);
});

test('the TCP endpoint through the relay reaches a UDP receiver, and its answers come back', async () => {
  const receiver = createSocket('udp4');
  await new Promise<void>((resolve) => receiver.bind(0, '127.0.0.1', () => resolve()));
  const got: string[] = [];
  receiver.on('message', (bytes, from) => {
    got.push(bytes.toString());
    receiver.send(Buffer.from(`ack ${bytes.toString()}`), from.port, from.address);
  });
  const relay = await startTcpRelay({ listen: { address: '127.0.0.1', port: 0 }, to: { address: '127.0.0.1', family: 4, port: receiver.address().port } });
  const endpoint = await createTcpEndpoint({ relay: { address: '127.0.0.1', family: 4, port: relay.port } });
  const acks: string[] = [];
  const done = new Promise<void>((resolve) => {
    endpoint.onReceive((bytes) => {
      acks.push(Buffer.from(bytes).toString());
      if (acks.length === 50) resolve();
    });
  });
  try {
    for (let i = 0; i < 50; i++) endpoint.send(Buffer.from(`datagram ${i}`));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([done, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`only ${acks.length} answers in ${HANG_BOUND_MS / 1000} s`)), HANG_BOUND_MS)))]);
    clearTimeout(timer);
    assert.equal(got, Array.from({ length: 50 }, (_, i) => `datagram ${i}`));
    assert.equal(acks, Array.from({ length: 50 }, (_, i) => `ack datagram ${i}`));
    assert.equal(relay.stats(), { connections: 1, toReceiver: 50, fromReceiver: 50 });
  } finally {
    await endpoint.close();
    await relay.close();
    receiver.close();
  }
});

test('a relay that is not there: one line naming it', async () => {
  const relay = await startTcpRelay({ listen: { address: '127.0.0.1', port: 0 }, to: { address: '127.0.0.1', family: 4, port: 9 } });
  const port = relay.port;
  await relay.close();
  try {
    await createTcpEndpoint({ relay: { address: '127.0.0.1', family: 4, port } });
    assert.unreachable('connected to a closed port');
  } catch (error) {
    assert.match((error as Error).message, new RegExp(`cannot connect to the TCP relay 127\\.0\\.0\\.1:${port}: ECONNREFUSED`));
  }
});

test('salsify send --transport: udp by default, tcp, and nothing else', () => {
  const parse = (extra: string[]) => parseSendArgs(['--to', '127.0.0.1:9', ...extra]);
  const udp = parse([]);
  assert.is(udp.help === false && udp.args.transport, 'udp');
  const tcp = parse(['--transport', 'tcp']);
  assert.is(tcp.help === false && tcp.args.transport, 'tcp');
  assert.throws(() => parse(['--transport', 'quic']), /--transport/);
});

test.run();
