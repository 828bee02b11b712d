// The relay of salsify send --transport tcp: a TURN server reduced to what
// the study needs. It accepts TCP connections; each gets a UDP socket of its
// own towards the receiver (`to`): every framed datagram (tcp-framing.ts)
// that arrives over TCP is sent on as one UDP datagram, and every datagram
// the receiver answers with is framed back over the TCP connection.
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer, type Server, type Socket } from 'node:net';
import type { UdpAddress } from '../../net/address.ts';
import { Deframer, frameDatagram } from './tcp-framing.ts';

export interface TcpRelayStats {
  connections: number;
  /** Datagrams taken from TCP and sent to the receiver, and those taken from the receiver and framed back. */
  toReceiver: number;
  fromReceiver: number;
}

export interface TcpRelay {
  readonly port: number;
  stats(): TcpRelayStats;
  close(): Promise<void>;
}

export async function startTcpRelay(options: { listen: { address: string; port: number }; to: UdpAddress }): Promise<TcpRelay> {
  const stats: TcpRelayStats = { connections: 0, toReceiver: 0, fromReceiver: 0 };
  const open = new Set<{ tcp: Socket; udp: UdpSocket }>();
  const server: Server = createServer((tcp) => {
    stats.connections++;
    tcp.setNoDelay(true);
    const udp = createSocket(options.to.family === 6 ? 'udp6' : 'udp4');
    const pair = { tcp, udp };
    open.add(pair);
    const deframer = new Deframer();
    udp.on('message', (bytes, from) => {
      if (from.port !== options.to.port || from.address !== options.to.address) return;
      stats.fromReceiver++;
      tcp.write(frameDatagram(bytes));
    });
    udp.on('error', () => {});
    tcp.on('data', (chunk: Buffer) => {
      for (const datagram of deframer.push(chunk)) {
        stats.toReceiver++;
        udp.send(datagram, options.to.port, options.to.address);
      }
    });
    const end = () => {
      if (!open.delete(pair)) return;
      tcp.destroy();
      udp.close();
    };
    tcp.on('error', end);
    tcp.on('close', end);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.listen.port, options.listen.address, () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('TCP relay: no TCP address');
  return {
    port: address.port,
    stats: () => ({ ...stats }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const pair of [...open]) pair.tcp.destroy();
        server.close(() => resolve());
      }),
  };
}
