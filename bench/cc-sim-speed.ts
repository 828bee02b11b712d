// CPU and wall time of one media flow under a rate controller in the
// simulator, per simulated minute: RFC 8867 5.1's first 60 s (1 Mbit/s, 2.5
// from 40 s), 50 ms each way, drop-tail 37500 bytes. Several runs in one
// process: the first pay for JIT compilation.
//
//   node --import tsx bench/cc-sim-speed.ts [gcc|aimd] [RUNS]
import { builtinController } from '../src/cc/controllers.ts';
import { mediaFlow } from '../src/cc/media-flow.ts';
import { pathStages } from '../src/link-emu/path.ts';
import { createSimNetwork } from '../src/net/sim-network.ts';
import { Simulator } from '../src/net/simulator.ts';

const name = process.argv[2] ?? 'gcc';
const runs = Number(process.argv[3] ?? 5);
const module = builtinController(name);
if (module === undefined) throw new Error(`no built-in controller ${name}`);

const times: number[] = [];
let bits = 0;
for (let t = 1; t <= 60_000; t++) {
  bits += t - 1 >= 40_000 ? 2500 : 1000;
  while (times.length < Math.floor(bits / (8 * 1504))) times.push(t);
}
const trace = { source: 'rfc8867-5.1 (first minute)', times: Float64Array.from(times), period: 60_000 };

for (let run = 0; run < runs; run++) {
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  const sim = new Simulator();
  const net = createSimNetwork(sim, { uplink: pathStages('uplink', { trace, queue: 'droptail', queueArgs: 'bytes=37500', delayMs: 50 }), downlink: [{ kind: 'delay', ms: 50 }], seed: 1 });
  const flow = mediaFlow(module).create(net.inside, net.outside, { flowId: 0, seed: '1' });
  sim.at(0, () => flow.start());
  sim.at(60_000, () => flow.stop());
  await sim.run({ until: 60_000 });
  const cpu = process.cpuUsage(cpu0);
  console.log(`${name} run ${run + 1}: ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms CPU, ${(performance.now() - wall0).toFixed(0)} ms wall per simulated minute (${flow.stats().packetsSent} packets, ${sim.eventCount()} events)`);
}
