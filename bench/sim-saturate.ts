// Saturates ATT-LTE-driving.down (drop-tail, 256 packets) in the simulator for
// one whole trace period (786 s of virtual time), with and without writing the
// mm-link log, and compares with a baseline in the same process: the bare
// TraceLink driven by a tight loop (no simulator, no endpoints).
//
//   node --import tsx bench/sim-saturate.ts [TRACE] [--seconds S]
import { closeSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TraceLink } from '../src/link-emu/link.ts';
import { LinkLogWriter } from '../src/link-emu/link-log.ts';
import { createQueue } from '../src/link-emu/queue-factory.ts';
import { createRng } from '../src/common/random.ts';
import { loadTrace } from '../src/link-emu/trace-files.ts';
import { createSimNetwork } from '../src/net/sim-network.ts';
import { Simulator } from '../src/net/simulator.ts';

const args = process.argv.slice(2);
const tracePath = args.find((a) => !a.startsWith('--')) ?? '../shared/traces/ATT-LTE-driving.down';
const secondsArg = args.indexOf('--seconds');
const trace = loadTrace(tracePath);
const virtualMs = secondsArg >= 0 ? Number(args[secondsArg + 1]) * 1000 : trace.period;
const WINDOW = 256;

function heapMb() {
  return process.memoryUsage().heapUsed / 2 ** 20;
}

async function simulate(withLog: boolean) {
  const logPath = join(tmpdir(), `sim-saturate-${process.pid}.log`);
  const fd = withLog ? openSync(logPath, 'w') : -1;
  const writer = withLog ? new LinkLogWriter((chunk) => writeSync(fd, chunk)) : undefined;
  const sim = new Simulator();
  const net = createSimNetwork(sim, {
    uplink: [{ kind: 'link', trace, queue: 'droptail', queueArgs: `packets=${WINDOW}`, events: writer }],
    downlink: [],
    seed: 1,
  });
  const datagram = new Uint8Array(1472);
  // A closed loop with no round trip: every delivery releases the next datagram,
  // so the queue never drains and every opportunity is used.
  let delivered = 0;
  net.outside.onReceive(() => {
    delivered++;
    net.inside.send(datagram);
  });
  sim.at(0, () => {
    for (let i = 0; i < WINDOW; i++) net.inside.send(datagram);
  });
  const memory: number[] = [];
  for (let q = 1; q <= 4; q++) sim.at((virtualMs * q) / 4, () => memory.push(heapMb()));
  global.gc?.();
  const start = process.hrtime.bigint();
  await sim.run({ until: virtualMs });
  const wallS = Number(process.hrtime.bigint() - start) / 1e9;
  writer?.close();
  if (withLog) {
    closeSync(fd);
    unlinkSync(logPath);
  }
  const stats = net.stats().uplink;
  const link = net.uplink.links()[0].counters();
  return { wallS, delivered, utilization: link.departureBytes / (link.opportunities * 1504), drops: stats.drops.queue, memory };
}

function baseline() {
  const link = new TraceLink<null>({ trace, queue: createQueue<null>('droptail', `packets=${WINDOW}`, createRng(1)), baseTimestamp: 0 });
  let departures = 0;
  let pendingRefills = 0;
  const onDeparture = () => {
    departures++;
    pendingRefills++;
  };
  for (let i = 0; i < WINDOW; i++) link.arrive(0, 1504, null, onDeparture);
  const start = process.hrtime.bigint();
  for (;;) {
    const t = link.nextOpportunity();
    if (t > virtualMs) break;
    link.advanceTo(t, onDeparture);
    while (pendingRefills > 0) {
      pendingRefills--;
      link.arrive(t, 1504, null, onDeparture);
    }
  }
  return { wallS: Number(process.hrtime.bigint() - start) / 1e9, departures };
}

const base = baseline();
const plain = await simulate(false);
const logged = await simulate(true);
const rate = (n: number, s: number) => (n / s / 1e6).toFixed(2);
console.log(`trace ${tracePath}: ${(virtualMs / 1000).toFixed(1)} s of virtual time, drop-tail ${WINDOW} packets, saturated`);
console.log(`baseline (bare TraceLink loop): ${base.departures} departures in ${base.wallS.toFixed(3)} s = ${rate(base.departures, base.wallS)} M departures/s`);
for (const [name, r] of [['simulator, no log', plain], ['simulator, with log', logged]] as const) {
  console.log(
    `${name}: ${r.delivered} departures in ${r.wallS.toFixed(3)} s = ${rate(r.delivered, r.wallS)} M departures/s, ` +
      `virtual/wall ${(virtualMs / 1000 / r.wallS).toFixed(0)}x, ${(r.wallS / base.wallS).toFixed(2)}x the baseline's time, ` +
      `utilization ${(100 * r.utilization).toFixed(2)} %, heap at 1/4..4/4 of the run: ${r.memory.map((m) => m.toFixed(1)).join(' / ')} MB`,
  );
}
