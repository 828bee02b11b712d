// The TCP models (src/tcp/) in the simulator: one bulk flow's throughput under
// random loss against the Mathis formula (and, for CUBIC, RFC 9438's
// response function), and the wall time per simulated minute of a bulk flow
// filling a 10 Mbit/s link.
//
//   nice -n 19 node --import tsx bench/tcp-models.ts [--seconds 200] [--seeds 1,2] [--loss 0.001,0.003,0.01,0.03]
//
// Every run uses the flows' defaults (SACK on) unless it says otherwise.
//
// Loss runs: 100 ms RTT (50 ms each way), a 96 Mbit/s link that is never the
// bottleneck, Bernoulli loss on the data direction only, throughput counted
// from 10 s to the end. Mathis: MSS / RTT * C / sqrt(p) with C = sqrt(3/2)
// (src/tcp/mathis.ts). CUBIC (RFC 9438 5.1): the larger of Mathis (its
// Reno-friendly region) and the cubic region's average window,
// (C (3 + beta) / (4 (1 - beta)))^(1/4) * RTT^(3/4) / p^(3/4) segments.
//
// RFC 8867 5.6's bottleneck: 2 Mbit/s, 50 ms each way, drop-tail queues of
// 300 ms (50 packets) and 1000 ms (166 packets), 120 s, one flow alone: how
// often each congestion control falls back on its retransmission timer.
//
// Speed run: 10 Mbit/s (833.3 opportunities/s), 20 ms each way, a drop-tail
// queue of one BDP (34 packets), 60 s of virtual time per congestion control.
import { option, refuseUnknownOptions } from './options.ts';
import type { StageSpec } from '../src/link-emu/chain.ts';
import { constantRateTrace } from '../src/link-emu/trace-generators.ts';
import { createSimNetwork } from '../src/net/sim-network.ts';
import { Simulator } from '../src/net/simulator.ts';
import { tcpBulkFlow } from '../src/tcp/bulk-flow.ts';
import type { TcpCcName } from '../src/tcp/congestion-control.ts';
import { CUBIC_BETA, CUBIC_C } from '../src/tcp/cubic.ts';
import { mathisThroughput } from '../src/tcp/mathis.ts';
import { DEFAULT_MSS } from '../src/tcp/segment.ts';

refuseUnknownOptions(['loss', 'seconds', 'seeds']);

const seconds = Number(option('seconds', '200'));
const seeds = option('seeds', '1,2').split(',').map(Number);
const losses = option('loss', '0.001,0.003,0.01,0.03').split(',').map(Number);
const RTT_MS = 100.125; // propagation plus one 1504-byte packet at 96 Mbit/s

async function run(cc: TcpCcName, uplink: StageSpec[], oneWayMs: number, durationS: number, seed: number, sack?: boolean) {
  const sim = new Simulator();
  const net = createSimNetwork(sim, { uplink, downlink: [{ kind: 'delay', ms: oneWayMs }], seed });
  const flow = tcpBulkFlow({ cc, sack }).create(net.inside, net.outside, { flowId: 0, seed: String(seed) });
  let at10 = 0;
  sim.at(0, () => flow.start());
  sim.at(10_000, () => {
    at10 = flow.stats().bytesDelivered;
  });
  const started = performance.now();
  await sim.run({ until: durationS * 1000 });
  const wallMs = performance.now() - started;
  flow.stop();
  const stats = flow.stats();
  return { stats, wallMs, events: sim.eventCount(), bitsPerSecond: ((stats.bytesDelivered - at10) * 8) / (durationS - 10), link: net.uplink.links()[0].counters() };
}

function cubicResponse(p: number): number {
  const segments = ((CUBIC_C * (3 + CUBIC_BETA)) / (4 * (1 - CUBIC_BETA))) ** 0.25 * ((RTT_MS / 1000) ** 0.75 / p ** 0.75);
  return Math.max(mathisThroughput(DEFAULT_MSS, RTT_MS, p), (segments * DEFAULT_MSS * 8) / (RTT_MS / 1000));
}

const pad = (text: string | number, width: number) => String(text).padStart(width);
console.log(`throughput under random loss: RTT ${RTT_MS} ms, ${seconds} s per run (counted from 10 s), MSS ${DEFAULT_MSS}`);
console.log(['cc', 'loss p', 'seed', 'Mbit/s', 'Mathis', 'ratio', 'RFC 9438', 'ratio', 'fast rtx', 'RTOs'].map((h, i) => pad(h, i === 0 ? 8 : 9)).join(' '));
for (const cc of ['newreno', 'cubic'] as const) {
  for (const p of losses) {
    for (const seed of seeds) {
      const uplink: StageSpec[] = [{ kind: 'loss', rate: p }, { kind: 'delay', ms: 50 }, { kind: 'link', trace: constantRateTrace({ rateMbps: 96 }) }];
      const { stats, bitsPerSecond } = await run(cc, uplink, 50, seconds, seed);
      const mathis = mathisThroughput(DEFAULT_MSS, RTT_MS, p);
      const cubic = cubicResponse(p);
      console.log(
        [
          pad(cc, 8),
          pad(p, 9),
          pad(seed, 9),
          pad((bitsPerSecond / 1e6).toFixed(3), 9),
          pad((mathis / 1e6).toFixed(3), 9),
          pad((bitsPerSecond / mathis).toFixed(2), 9),
          pad(cc === 'cubic' ? (cubic / 1e6).toFixed(3) : '', 9),
          pad(cc === 'cubic' ? (bitsPerSecond / cubic).toFixed(2) : '', 9),
          pad(stats.fastRetransmits, 9),
          pad(stats.timeouts, 9),
        ].join(' '),
      );
    }
  }
}

console.log('\nRFC 8867 5.6 bottleneck alone: 2 Mbit/s, 50 ms each way, 120 s');
for (const sack of [false, true]) for (const cc of ['newreno', 'cubic'] as const) {
  for (const packets of [50, 166]) {
    const uplink: StageSpec[] = [{ kind: 'delay', ms: 50 }, { kind: 'link', trace: constantRateTrace({ rateMbps: 2 }), queue: 'droptail', queueArgs: `packets=${packets}` }];
    const { stats, link } = await run(cc, uplink, 50, 120, 1, sack);
    const utilisation = link.departureBytes / (link.opportunities * 1504);
    console.log(`${pad(cc, 8)}${sack ? ' + SACK' : '       '}, drop-tail ${pad(packets, 3)} packets: link ${(utilisation * 100).toFixed(1)} % used, ${stats.fastRetransmits} fast retransmits, ${stats.timeouts} RTOs, ${stats.retransmits} segments retransmitted of ${stats.segmentsSent}`);
  }
}

console.log('\nspeed: one bulk flow on 10 Mbit/s, 20 ms each way, drop-tail 34 packets, 60 s of virtual time');
for (const cc of ['newreno', 'cubic'] as const) {
  const uplink: StageSpec[] = [{ kind: 'delay', ms: 20 }, { kind: 'link', trace: constantRateTrace({ rateMbps: 10 }), queue: 'droptail', queueArgs: 'packets=34' }];
  await run(cc, uplink, 20, 5, 1); // warm-up (JIT)
  const { wallMs, events, stats, link } = await run(cc, uplink, 20, 60, 1);
  const utilisation = link.departureBytes / (link.opportunities * 1504);
  console.log(
    `${pad(cc, 8)}: ${wallMs.toFixed(0)} ms of wall time per simulated minute, ${events} events, ${stats.segmentsSent} segments, link ${(utilisation * 100).toFixed(1)} % used, goodput ${((stats.bytesDelivered * 8) / 60e6).toFixed(2)} Mbit/s`,
  );
}
