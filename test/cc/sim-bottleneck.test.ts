import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runBottleneck, type FlowSpec } from '../../src/cc/sim/bottleneck.ts';
import { cbrFlow } from '../../src/cc/sim/cbr-flow.ts';
import { FlowRecorder } from '../../src/cc/metrics/flow-records.ts';
import { capacityScheduleTrace, constantRateTrace } from '../../src/link-emu/trace-generators.ts';
import type { FlowFactory } from '../../src/cc/flow.ts';

const link = (mbps: number) => ({ trace: constantRateTrace({ rateMbps: mbps, bytesPerOpportunity: 1504 }), queue: 'droptail', queueArgs: 'packets=1000' });

/** A flow that echoes: the receiver answers every datagram with a 40-byte one; the sender notes each answer's round trip. */
function pingFlow(rtts: number[], intervalMs: number): FlowFactory {
  return {
    name: 'ping',
    create(sender, receiver) {
      let on = false;
      const sentAt = new Map<number, number>();
      let n = 0;
      receiver.onReceive((bytes) => receiver.send(bytes.slice(0, 40)));
      sender.onReceive((bytes) => {
        const k = new DataView(bytes.buffer, bytes.byteOffset).getUint32(0);
        rtts.push(sender.now() - sentAt.get(k)!);
      });
      const tick = () => {
        if (!on) return;
        const b = new Uint8Array(100);
        new DataView(b.buffer).setUint32(0, n);
        sentAt.set(n++, sender.now());
        sender.send(b);
        sender.setTimer(intervalMs, tick);
      };
      return { start: () => { on = true; tick(); }, pause: () => { on = false; }, resume: () => { on = true; tick(); }, stop: () => { on = false; } };
    },
  };
}

test('each flow has its own one-way delay each way, around the shared links', async () => {
  const a: number[] = [];
  const b: number[] = [];
  await runBottleneck({
    forward: link(12), backward: link(12), durationMs: 1000, seed: 1,
    flows: [{ factory: pingFlow(a, 100), delayMs: 10 }, { factory: pingFlow(b, 100), delayMs: 75, direction: 'backward' }],
  });
  assert.ok(a.length >= 9 && b.length >= 8);
  // 2 x delay, plus the two links' opportunity waits (12 Mbit/s: 1 ms each, 2 ms at most per link with two packets).
  for (const rtt of a) assert.ok(rtt >= 20 && rtt <= 24, `rtt ${rtt}`);
  for (const rtt of b) assert.ok(rtt >= 150 && rtt <= 154, `rtt ${rtt}`);
});

test('flows share one queue: two 0.8 Mbit/s CBR flows through 1 Mbit/s split it and fill the queue', async () => {
  const recorder = new FlowRecorder();
  const flows: FlowSpec[] = [0, 1].map((i) => ({ factory: cbrFlow({ bitrate: 0.8e6 }), delayMs: 5 + i }));
  const result = await runBottleneck({
    forward: { trace: constantRateTrace({ rateMbps: 1, bytesPerOpportunity: 1504 }), queue: 'droptail', queueArgs: 'packets=20' },
    backward: link(1), durationMs: 20_000, seed: 3, flows, packets: recorder,
  });
  let delivered = 0;
  for (const i of [0, 1]) {
    const r = recorder.of('forward', i);
    assert.ok(r.drops.length > 100, `flow ${i} drops ${r.drops.length}`);
    // Every datagram that reached the link left it or was dropped, but for the few still queued at the end.
    const queued = r.arrivals.length - r.departures.length - r.drops.length;
    assert.ok(queued >= 0 && queued <= 20, `queued ${queued}`);
    delivered += r.departures.size.reduce((x, y) => x + y, 0);
    // The queue (20 packets of 1232 bytes at 1 Mbit/s) is full: about 197 ms of queueing delay, once it has filled.
    const late = r.departures.value.slice(-100);
    assert.ok(Math.min(...late) > 150 && Math.max(...late) < 260, `queueing ${Math.min(...late)}..${Math.max(...late)}`);
  }
  // The link carries its capacity in link bytes (1504 per opportunity, whole packets only): at least 81 % of 20 s x 1 Mbit/s.
  assert.ok(delivered * 8 > 0.81 * 20e6 && delivered * 8 <= 20e6, `delivered ${delivered * 8} bit`);
  assert.is(result.counters.forward.packetsOut, recorder.of('forward', 0).departures.length + recorder.of('forward', 1).departures.length);
});

test('start, pause, resume and stop at the times given', async () => {
  const recorder = new FlowRecorder();
  await runBottleneck({
    forward: link(12), backward: link(12), durationMs: 10_000, seed: 1, packets: recorder,
    flows: [{ factory: cbrFlow({ bitrate: 96_000 }), startMs: 1000, stopMs: 9000, pauses: [[3000, 5000]] }],
  });
  const sent = recorder.of('forward', 0).sent.time;
  assert.is(sent[0], 1000);
  assert.ok(sent.every((t) => t >= 1000 && t < 9000 && !(t >= 3000 && t < 5000)));
  assert.ok(sent.some((t) => t >= 5000 && t < 5001), 'resumes at once');
  // 96 kbit/s of 1200-byte datagrams: one every 100 ms, for 6 s.
  assert.is(sent.length, 60);
});

test('a capacity schedule through the bottleneck: a saturating flow gets each piece\'s capacity', async () => {
  const recorder = new FlowRecorder();
  const steps = [{ atMs: 0, rateMbps: 1 }, { atMs: 5000, rateMbps: 2.5 }, { atMs: 10_000, rateMbps: 0.6 }];
  await runBottleneck({
    forward: { trace: capacityScheduleTrace({ steps, durationMs: 16_000, bytesPerOpportunity: 1504 }), queue: 'droptail', queueArgs: 'packets=50' },
    backward: link(12), durationMs: 15_000, seed: 1, packets: recorder,
    flows: [{ factory: cbrFlow({ bitrate: 3e6, payloadBytes: 1472 }) }],
  });
  const d = recorder.of('forward', 0).departures;
  const bits = (from: number, to: number) => d.time.reduce((sum, t, i) => (t > from && t <= to ? sum + 8 * d.size[i]! : sum), 0);
  // 1504-byte datagrams fill each opportunity: exactly the piece's opportunities (floor of the rate), one short at most.
  for (const [from, to, rate] of [[1000, 5000, 1e6], [6000, 10_000, 2.5e6], [11_000, 15_000, 0.6e6]] as const) {
    const want = Math.floor(((to - from) * rate) / (8000 * 1504));
    const got = bits(from, to) / (8 * 1504);
    assert.ok(Math.abs(got - want) <= 1, `[${from}, ${to}]: ${got} datagrams, want ${want}`);
  }
});

test('same seed and flows, same records', async () => {
  const once = async () => {
    const recorder = new FlowRecorder();
    await runBottleneck({
      forward: { trace: constantRateTrace({ rateMbps: 2, bytesPerOpportunity: 1504 }), queue: 'pie', queueArgs: 'packets=100,qdelay_ref=20,max_burst=150' },
      backward: link(2), durationMs: 5000, seed: 9, packets: recorder,
      flows: [{ factory: cbrFlow({ bitrate: 1.5e6 }) }, { factory: cbrFlow({ bitrate: 1.5e6 }), delayMs: 20 }],
    });
    return JSON.stringify([recorder.of('forward', 0), recorder.of('forward', 1)]);
  };
  assert.is(await once(), await once());
});

test.run();
