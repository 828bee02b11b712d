// Deterministic unit tests of a congestion controller (examples/aimd.ts) in
// virtual time: each runs in milliseconds, and the same seed gives the same
// result on any machine. `npm test` runs this file too.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { constantRateTrace, type StageSpec } from 'lowlat-video-toolkit/link-emu';
import { createSimNetwork, Simulator } from 'lowlat-video-toolkit/net';
import { AimdSender, startAckingReceiver } from './aimd.ts';

async function run(uplink: StageSpec[], seconds: number, seed = 1) {
  const sim = new Simulator();
  const net = createSimNetwork(sim, { uplink, downlink: [{ kind: 'delay', ms: 10 }], seed });
  const sender = new AimdSender(net.inside);
  startAckingReceiver(net.outside);
  sim.at(0, () => sender.start());
  await sim.run({ until: seconds * 1000 });
  const link = net.uplink.links()[0]?.counters();
  return { sender, utilization: link ? link.departureBytes / (link.opportunities * 1504) : NaN };
}

const trace12 = constantRateTrace({ rateMbps: 12 });

test('AIMD fills a 12 Mbit/s link with a 40-packet drop-tail queue', async () => {
  const { sender, utilization } = await run([{ kind: 'delay', ms: 10 }, { kind: 'link', trace: trace12, queue: 'droptail', queueArgs: 'packets=40' }], 20);
  assert.ok(utilization > 0.85, `utilization ${utilization}`);
  assert.ok(sender.stats.losses > 0, 'it probed until the queue overflowed');
});

test('it backs off on loss: the window stays near the path capacity plus the queue', async () => {
  const { sender } = await run([{ kind: 'delay', ms: 10 }, { kind: 'link', trace: trace12, queue: 'droptail', queueArgs: 'packets=40' }], 20);
  // BDP at 12 Mbit/s and 20 ms RTT is about 20 packets; with 40 queued, ~60 packets.
  assert.ok(sender.stats.window < 90, `window ${sender.stats.window}`);
});

test('random loss keeps the window small', async () => {
  const clean = await run([{ kind: 'delay', ms: 10 }, { kind: 'link', trace: trace12 }], 10);
  const lossy = await run([{ kind: 'loss', rate: 0.02 }, { kind: 'delay', ms: 10 }, { kind: 'link', trace: trace12 }], 10);
  assert.ok(lossy.sender.stats.acked < clean.sender.stats.acked / 2, `${lossy.sender.stats.acked} vs ${clean.sender.stats.acked}`);
});

test('same seed, same run; another seed, another run', async () => {
  const path: StageSpec[] = [{ kind: 'loss', rate: 0.01 }, { kind: 'link', trace: trace12, queue: 'droptail', queueArgs: 'packets=40' }];
  const a = await run(path, 5, 1);
  const b = await run(path, 5, 1);
  const c = await run(path, 5, 2);
  assert.equal(b.sender.stats, a.sender.stats);
  assert.not.equal(c.sender.stats.rttMs, a.sender.stats.rttMs);
});

test.run();
