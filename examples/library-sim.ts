// The toolkit as a library: an AIMD sender and an acking receiver joined by a
// simulated cellular path (ATT LTE uplink trace, drop-tail queue, 20 ms delay
// each way), run for 60 s of virtual time in a fraction of a second.
//
//   node --import tsx examples/library-sim.ts [TRACE]
import { openTrace, rankQuantile } from 'lowlat-video-toolkit/link-emu';
import { createSimNetwork, Simulator } from 'lowlat-video-toolkit/net';
import { AimdSender, startAckingReceiver } from './aimd.ts';

const trace = openTrace(process.argv[2] ?? '../shared/traces/ATT-LTE-driving.up');
const sim = new Simulator();
const net = createSimNetwork(sim, {
  uplink: [{ kind: 'delay', ms: 20 }, { kind: 'link', trace, queue: 'droptail', queueArgs: 'packets=100' }],
  downlink: [{ kind: 'delay', ms: 20 }],
  seed: 1,
});
const sender = new AimdSender(net.inside);
const receiver = startAckingReceiver(net.outside);
sim.at(0, () => sender.start());

const started = performance.now();
await sim.run({ until: 60_000 });
const wallMs = performance.now() - started;

const link = net.uplink.links()[0].counters();
const rtts = Float64Array.from(sender.stats.rttMs).sort();
console.log(`60 s over ${trace.source} in ${wallMs.toFixed(0)} ms of wall time`);
console.log(`delivered ${receiver.received()} datagrams, link utilization ${((100 * link.departureBytes) / (link.opportunities * 1504)).toFixed(1)} %`);
console.log(`losses ${sender.stats.losses}, RTT p50 ${rankQuantile(rtts, 0.5).toFixed(0)} ms, p95 ${rankQuantile(rtts, 0.95).toFixed(0)} ms`);
