// A UDP application that knows nothing about linkshell: it sends COUNT
// datagrams of SIZE bytes, one every GAP ms, to $LINKSHELL_ADDR (or the
// address given), and prints the round-trip times of the echoes it gets back.
//   node examples/udp-ping.mjs [HOST:PORT] [--count N] [--size BYTES] [--gap MS]
import { createSocket } from 'node:dgram';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  options: { count: { type: 'string', default: '50' }, size: { type: 'string', default: '1000' }, gap: { type: 'string', default: '20' } },
  allowPositionals: true,
});
const target = positionals[0] ?? process.env.LINKSHELL_ADDR;
if (!target) {
  console.error('udp-ping: give HOST:PORT or run me under linkshell (-- node examples/udp-ping.mjs)');
  process.exit(2);
}
const [host, portText] = [target.slice(0, target.lastIndexOf(':')), target.slice(target.lastIndexOf(':') + 1)];
const count = Number(values.count), size = Number(values.size), gap = Number(values.gap);
const socket = createSocket('udp4');
const sentAt = new Map();
const rtts = [];
socket.on('message', (message) => {
  const seq = message.readUInt32BE(0);
  const t = sentAt.get(seq);
  if (t !== undefined) rtts.push(performance.now() - t);
});
for (let seq = 0; seq < count; seq++) {
  const datagram = Buffer.alloc(size);
  datagram.writeUInt32BE(seq, 0);
  sentAt.set(seq, performance.now());
  socket.send(datagram, Number(portText), host);
  await new Promise((resolve) => setTimeout(resolve, gap));
}
await new Promise((resolve) => setTimeout(resolve, 1000));
socket.close();
rtts.sort((a, b) => a - b);
const pick = (q) => rtts[Math.min(rtts.length - 1, Math.floor(q * rtts.length))]?.toFixed(1) ?? '-';
console.log(`udp-ping: ${rtts.length}/${count} echoes, RTT min ${pick(0)} ms, median ${pick(0.5)} ms, max ${pick(1)} ms`);
