// A UDP echo server: the peer for examples/udp-ping.mjs.
//   node examples/udp-echo-server.mjs [PORT]      (default 9000, on 127.0.0.1)
import { createSocket } from 'node:dgram';

const port = Number(process.argv[2] ?? 9000);
const socket = createSocket('udp4');
socket.on('message', (message, from) => socket.send(message, from.port, from.address));
socket.bind(port, '127.0.0.1', () => console.log(`echo server on 127.0.0.1:${socket.address().port}`));
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => socket.close());
