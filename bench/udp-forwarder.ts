// The floor of bench/relay-cpu.ts: the least a UDP relay written in Node
// does, one datagram in, the same bytes out, nothing else (no link, no timer,
// no counters). Not a benchmark itself:
//
//   node --import tsx bench/udp-forwarder.ts LISTEN_PORT PEER_HOST PEER_PORT
//
// listens on 127.0.0.1:LISTEN_PORT and sends every datagram on to the peer
// from a socket connected to it, until SIGTERM.
import { createSocket } from 'node:dgram';

const [listenText, peerHost, peerText] = process.argv.slice(2);
const inside = createSocket('udp4');
const outside = createSocket('udp4');
outside.bind(0, '127.0.0.1', () => {
  outside.connect(Number(peerText), peerHost, () => {
    inside.on('message', (bytes) => outside.send(bytes));
    inside.bind(Number(listenText), '127.0.0.1', () => {
      try {
        inside.setRecvBufferSize(8 << 20);
      } catch {}
      console.log('ready');
    });
  });
});
process.on('SIGTERM', () => {
  inside.close();
  outside.close();
});
