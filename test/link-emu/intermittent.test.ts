// The on/off stage as both Mahimahi tools define it (src/frontend/loss_queue.cc):
// mm-onoff's exponential periods and mm-intermittent's fixed ones, both
// starting on; a zero on time is always off and a zero off time always on
// (mm-onoff 0 1 / 1 0), in the one path model, so the simulator and linkshell
// alike.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRng } from '../../src/common/random.ts';
import { OnOffProcess } from '../../src/link-emu/impairments.ts';
import { pathStages } from '../../src/link-emu/path.ts';
import { constantRateTrace } from '../../src/link-emu/trace-generators.ts';
import { createSimNetwork } from '../../src/net/sim-network.ts';
import { Simulator } from '../../src/net/simulator.ts';

test('0,OFF is always off, ON,0 always on, whichever is the start state; both 0 refused', () => {
  const off = new OnOffProcess(0, 1000, createRng(1), 0, true);
  const on = new OnOffProcess(1000, 0, createRng(1), 0, false);
  for (const t of [0, 1, 999, 1000, 5_000_000]) {
    assert.is(off.isOn(t), false, `off at ${t}`);
    assert.is(on.isOn(t), true, `on at ${t}`);
  }
  assert.is(off.nextChange(10), Infinity);
  assert.throws(() => new OnOffProcess(0, 0, createRng(1)), /cannot both be 0/);
  assert.throws(() => new OnOffProcess(-1, 5, createRng(1)), />= 0 ms/);
});

test('periodic (mm-intermittent): on for ON ms, off for OFF ms, in turn, starting on, from the start time', () => {
  const p = new OnOffProcess(100, 50, createRng(1), 1000, true, true);
  const states = [1000, 1099, 1100, 1149, 1150, 1249, 1250, 1300].map((t) => p.isOn(t));
  assert.equal(states, [true, true, false, false, true, true, false, true]);
  // The exponential one (mm-onoff) is not periodic.
  const e = new OnOffProcess(100, 50, createRng(1), 1000, true, false);
  assert.not.equal([1000, 1099, 1100, 1149, 1150, 1249, 1250, 1300].map((t) => e.isOn(t)), states);
});

test('asking ahead (onAt) tells the future and changes nothing the process does', () => {
  const times = Array.from({ length: 400 }, (_, i) => i * 37);
  const plain = new OnOffProcess(300, 120, createRng(7), 0, true);
  const expected = times.map((t) => plain.isOn(t));
  const asked = new OnOffProcess(300, 120, createRng(7), 0, true);
  const seen = times.map((t, i) => {
    // The answer for a time ahead is what the process is when it gets there.
    if (i + 25 < times.length) assert.is(asked.onAt(times[i + 25]!), expected[i + 25], `ahead of ${t}`);
    return asked.isOn(t);
  });
  assert.equal(seen, expected);
  assert.equal(asked.offPeriods(15_000), plain.offPeriods(15_000));
});

test('through the one path model in the simulator: what arrives while off is lost', async () => {
  // 12 Mbit/s: one 1500-byte opportunity every ms, ample for 100-byte datagrams every 10 ms.
  const trace = constantRateTrace({ rateMbps: 12 });
  async function delivered(onOff: { meanOnMs: number; meanOffMs: number; periodic?: boolean }): Promise<number[]> {
    const sim = new Simulator();
    const net = createSimNetwork(sim, { downlink: pathStages('downlink', { trace, onOff }), uplink: pathStages('uplink', { trace }), seed: 1 });
    const times: number[] = [];
    net.inside.onReceive(() => times.push(sim.now()));
    for (let t = 0; t < 400; t += 10) sim.at(t, () => net.outside.send(new Uint8Array(100)));
    await sim.run();
    return times;
  }
  assert.is((await delivered({ meanOnMs: 0, meanOffMs: 1000 })).length, 0);
  assert.is((await delivered({ meanOnMs: 1000, meanOffMs: 0 })).length, 40);
  // 100 on, 50 off: sends at 100..140, 250..290 are lost (5 each), 30 delivered.
  assert.is((await delivered({ meanOnMs: 100, meanOffMs: 50, periodic: true })).length, 30);
});

test.run();
