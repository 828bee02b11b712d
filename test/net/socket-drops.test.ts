// Kernel drops per UDP socket, from /proc/net/udp and /proc/net/udp6.

import { createSocket, type Socket } from 'node:dgram';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseUdpSocketTable, UdpSocketTable } from '../../src/net/socket-drops.ts';
import { waitFor } from '../helpers/wait-for.ts';

const HEADER4 = '   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops\n';

test('table lines: addresses in host byte order, ports in hex, drops in the last column', () => {
  const text =
    HEADER4 +
    '  120: 0100007F:0035 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 1234 2 0000000000000000 0\n' +
    '  121: 0100007F:A1B2 0200007F:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 1235 2 0000000000000000 4217\n' +
    '  garbage line\n';
  assert.equal(parseUdpSocketTable(text, 4, true), [
    { local: { address: '127.0.0.1', port: 53 }, remote: { address: '0.0.0.0', port: 0 }, drops: 0 },
    { local: { address: '127.0.0.1', port: 0xa1b2 }, remote: { address: '127.0.0.2', port: 8080 }, drops: 4217 },
  ]);
  // A big-endian host prints the same address the other way round.
  assert.is(parseUdpSocketTable(HEADER4 + '  1: 7F000001:0035 00000000:0000 07 00000000:00000000 00:00000000 00000000 0 0 1 2 0 9\n', 4, false)[0].local.address, '127.0.0.1');
  const six =
    '  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops\n' +
    '  7: 00000000000000000000000001000000:1F90 00000000000000000000000000000000:0000 07 00000000:00000000 00:00000000 00000000 0 0 99 2 0000000000000000 3\n';
  assert.equal(parseUdpSocketTable(six, 6, true), [{ local: { address: '::1', port: 8080 }, remote: { address: '::', port: 0 }, drops: 3 }]);
});

async function bound(type: 'udp4' | 'udp6', address: string, recvBufferSize?: number): Promise<Socket> {
  const socket = createSocket({ type, recvBufferSize });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, address, () => resolve());
  });
  return socket;
}

const close = (s: Socket) => new Promise<void>((resolve) => s.close(() => resolve()));

test('a receiver with a small buffer that does not read during a burst: the kernel drops, and the table counts exactly the datagrams that never arrived', async () => {
  const receiver = await bound('udp4', '127.0.0.1', 4096);
  const sender = await bound('udp4', '127.0.0.1');
  let received = 0;
  receiver.on('message', () => received++);
  const to = receiver.address();
  const drops = () => UdpSocketTable.read().drops(4, to);
  try {
    assert.is(drops(), 0, 'the socket is in the table, with no drops yet');
    // All sent in one turn of the event loop: the receiver reads nothing meanwhile, and its buffer holds only a few.
    const n = 500;
    for (let i = 0; i < n; i++) sender.send(Buffer.alloc(1000), to.port, to.address);
    await waitFor(() => received + (drops() ?? 0) === n && received > 0, 10000, 'every datagram to be either received or counted as dropped');
    assert.ok(drops()! > n / 2, `${drops()} of ${n} dropped`);
    // A connected socket is found by its remote end too; another port is not this socket.
    assert.is(UdpSocketTable.read().drops(4, to, sender.address()), undefined);
    assert.is(UdpSocketTable.read().drops(4, { address: to.address, port: sender.address().port }), 0);
  } finally {
    await close(sender);
    await close(receiver);
  }
  assert.is(drops(), undefined, 'a closed socket is no longer in the table');
});

test('sockets sharing a port (address reuse) are counted at that port', async () => {
  const first = createSocket({ type: 'udp4', reuseAddr: true });
  await new Promise<void>((resolve) => first.bind(0, '127.0.0.1', () => resolve()));
  const port = first.address().port;
  const second = createSocket({ type: 'udp4', reuseAddr: true });
  try {
    assert.is(UdpSocketTable.read().socketsAtPort(port), 1);
    await new Promise<void>((resolve) => second.bind(port, '127.0.0.1', () => resolve()));
    assert.is(UdpSocketTable.read().socketsAtPort(port), 2);
  } finally {
    await close(second);
    await close(first);
  }
  assert.is(UdpSocketTable.read().socketsAtPort(port), 0);
  assert.is(UdpSocketTable.read('/nonexistent').socketsAtPort(port), undefined);
});

test('IPv6 sockets are found in /proc/net/udp6', async () => {
  let receiver: Socket;
  try {
    receiver = await bound('udp6', '::1');
  } catch {
    return; // No IPv6 loopback on this machine: nothing to look up.
  }
  try {
    assert.is(UdpSocketTable.read().drops(6, receiver.address()), 0);
    assert.is(UdpSocketTable.read().drops(6, { address: '0:0:0:0:0:0:0:1', port: receiver.address().port }), 0);
  } finally {
    await close(receiver);
  }
});

test.run();
