// The FlowFactories: tcpShortFlows as RFC 8867 5.7 / RFC 8868 6.1 state them
// (bursts of 30 downloads of 30-50 KB, exponential idle periods of mean
// 10 s, seeded), and tcpBulkFlow's start, pause, resume and stop.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRng } from '../../src/common/random.ts';
import { constantRateTrace } from '../../src/link-emu/trace-generators.ts';
import { createSimNetwork } from '../../src/net/sim-network.ts';
import { Simulator } from '../../src/net/simulator.ts';
import { tcpBulkFlow } from '../../src/tcp/bulk-flow.ts';
import { tcpShortFlows, type TcpShortFlowsOptions } from '../../src/tcp/short-flows.ts';
import type { TcpFlowFactory, TcpTransfer } from '../../src/tcp/tcp-flow.ts';

function network(sim: Simulator) {
  return createSimNetwork(sim, {
    uplink: [{ kind: 'delay', ms: 20 }, { kind: 'link', trace: constantRateTrace({ rateMbps: 12 }), queue: 'droptail', queueArgs: 'packets=100' }],
    downlink: [{ kind: 'delay', ms: 20 }],
    seed: 1,
  });
}

async function runShort(options: Partial<TcpShortFlowsOptions>, seed: string, seconds: number) {
  const sim = new Simulator();
  const net = network(sim);
  const flow = tcpShortFlows({ cc: 'cubic', ...options }).create(net.inside, net.outside, { flowId: 3, seed });
  sim.at(0, () => flow.start());
  await sim.run({ until: seconds * 1000 });
  const stats = flow.stats();
  flow.stop();
  return { stats, sim };
}

/** The transfers grouped by their start time: the bursts. */
function bursts(transfers: readonly TcpTransfer[]) {
  const byStart = new Map<number, TcpTransfer[]>();
  for (const t of transfers) byStart.set(t.startMs, [...(byStart.get(t.startMs) ?? []), t]);
  return [...byStart.entries()].sort((a, b) => a[0] - b[0]).map(([startMs, group]) => ({ startMs, group, endMs: Math.max(...group.map((t) => t.endMs ?? Infinity)) }));
}

test('short flows (ON at start): bursts of 30 downloads of 30 000 to 50 000 bytes, the idle periods the seeded exponential draws of mean 10 s', async () => {
  const { stats } = await runShort({ startOn: true }, 'case-5.7', 120);
  const seen = bursts(stats.transfers);
  assert.ok(seen.length >= 3, `${seen.length} bursts`);
  assert.is(seen[0].startMs, 0);
  // the draws, repeated from the flow's seed
  const rng = createRng('case-5.7').fork('tcp-short-flows');
  const sizes = rng.fork('sizes');
  const idle = rng.fork('idle');
  for (let b = 0; b < seen.length; b++) {
    const { group, startMs } = seen[b];
    assert.is(group.length, 30);
    assert.equal(group.map((t) => t.bytes), group.map(() => 30_000 + sizes.int(20_001)));
    if (b > 0) assert.ok(Math.abs(startMs - (seen[b - 1].endMs + idle.exponential(10_000))) < 1e-6, `burst ${b} starts after the drawn idle period`);
    if (seen[b].endMs !== Infinity) assert.ok(group.every((t) => t.bytes >= 30_000 && t.bytes <= 50_000));
  }
  assert.is(stats.connectionsCompleted, stats.transfers.filter((t) => t.endMs !== undefined).length);
  assert.ok(stats.bytesAcked >= stats.connectionsCompleted * 30_000);
});

test('short flows (OFF at start) begin with an idle period; another seed gives other sizes and times', async () => {
  const a = await runShort({}, 'x', 60);
  const b = await runShort({}, 'y', 60);
  const first = createRng('x').fork('tcp-short-flows').fork('idle').exponential(10_000);
  assert.ok(Math.abs(a.stats.transfers[0].startMs - first) < 1e-6);
  assert.not.equal(a.stats.transfers, b.stats.transfers);
  const again = await runShort({}, 'x', 60);
  assert.equal(again.stats, a.stats);
});

test('short-flow options are checked', () => {
  assert.throws(() => tcpShortFlows({ cc: 'newreno', minBytes: 10, maxBytes: 5 }), /maxBytes/);
  assert.throws(() => tcpShortFlows({ cc: 'newreno', meanIdleMs: 0 }), /meanIdleMs/);
  assert.throws(() => tcpShortFlows({ cc: 'newreno', connectionsPerBurst: 0 }), /connectionsPerBurst/);
  assert.throws(() => tcpBulkFlow({ cc: 'vegas' as 'cubic' }), /"newreno" or "cubic", got "vegas"/);
  assert.throws(() => tcpShortFlows({ cc: 'cubic', mss: 0 }), /mss/);
  assert.throws(() => tcpBulkFlow({ cc: 'cubic', rto: { minRtoMs: -5 } }), /minRtoMs/);
});

async function lifecycle(factory: TcpFlowFactory) {
  const sim = new Simulator();
  const net = network(sim);
  const flow = factory.create(net.inside, net.outside, { flowId: 0, seed: 's' });
  const snapshots: number[] = [];
  sim.at(0, () => flow.start());
  sim.at(5000, () => flow.pause());
  sim.at(6000, () => snapshots.push(flow.stats().bytesSent));
  sim.at(9000, () => snapshots.push(flow.stats().bytesSent));
  sim.at(9000, () => flow.resume());
  sim.at(10_000, () => snapshots.push(flow.stats().bytesSent));
  sim.at(12_000, () => flow.stop());
  await sim.run();
  return { snapshots, sim, stats: flow.stats(), factory };
}

test('a bulk flow: paused, it sends nothing new; resumed, it sends again; stopped, it leaves no timer', async () => {
  const { snapshots, sim, stats, factory } = await lifecycle(tcpBulkFlow({ cc: 'newreno' }));
  assert.is(factory.name, 'tcp-newreno');
  assert.is(snapshots[0], snapshots[1], 'nothing sent while paused');
  assert.ok(snapshots[2] > snapshots[1] + 1_000_000, 'sending again after resume');
  assert.ok(sim.isIdle(), 'the simulation ran out of events after stop()');
  assert.ok(sim.now() < 12_500);
  assert.is(stats.connectionsOpened, 1);
  assert.ok(stats.bytesDelivered > 0.9 * stats.bytesAcked);
});

test.run();
