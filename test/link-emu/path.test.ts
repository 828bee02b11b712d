// The one path model: Mahimahi's nesting order, and the same departures for
// one offered load and one seed whether the path runs in the simulator
// (src/net/sim-network.ts) or as linkshell builds it (src/linkshell/direction.ts).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRng } from '../../src/common/random.ts';
import { pathStages, type PathDirectionName, type PathDirectionSpec } from '../../src/link-emu/path.ts';
import { loadTrace } from '../../src/link-emu/trace-files.ts';
import { Direction, type DirectionScheduler } from '../../src/linkshell/direction.ts';
import { createSimNetwork, DEFAULT_OVERHEAD_BYTES } from '../../src/net/sim-network.ts';
import { Simulator } from '../../src/net/simulator.ts';
import { WallClockScheduler } from '../../src/net/wall-clock.ts';

const trace = { source: 't', times: new Float64Array([1]), period: 1 };

test('stages in Mahimahi nesting order: outermost first on the way in, last on the way out', () => {
  const all: PathDirectionSpec = { trace, delayMs: 20, loss: 0.1, onOff: { meanOnMs: 100, meanOffMs: 10 } };
  assert.equal(pathStages('downlink', all).map((s) => s.kind), ['delay', 'loss', 'onoff', 'link']);
  assert.equal(pathStages('uplink', all).map((s) => s.kind), ['link', 'onoff', 'loss', 'delay']);
  assert.equal(pathStages('uplink', { trace, delayMs: 20, loss: 0.1 }).map((s) => s.kind), ['link', 'loss', 'delay']);
  assert.equal(pathStages('downlink', { trace, delayMs: 0, loss: 0, onOff: null }).map((s) => s.kind), ['link']);
});

const ATT = loadTrace(new URL('../../../shared/traces/ATT-LTE-driving.down', import.meta.url).pathname);

/** A path that uses every stage, with a PIE queue the load below overflows. */
function spec(): PathDirectionSpec {
  return {
    trace: ATT,
    queue: 'pie',
    queueArgs: 'packets=200,qdelay_ref=15,max_burst=150',
    mtu: 1504,
    once: false,
    delayMs: 17,
    loss: 0.03,
    onOff: { meanOnMs: 900, meanOffMs: 60 },
    baseTimestamp: 0,
  };
}

/** A bursty offered load (integer ms, payload bytes), well above the trace's mean rate in bursts. */
function offeredLoad(seed: number, durationMs: number): Array<[number, number]> {
  const rng = createRng(seed).fork('load');
  const load: Array<[number, number]> = [];
  for (let t = 0; t < durationMs; t++) {
    const burst = Math.floor(t / 1000) % 2 === 0 ? 1.2 : 0.2; // datagrams per ms
    let n = Math.floor(burst) + (rng.next() < burst % 1 ? 1 : 0);
    while (n-- > 0) load.push([t, 100 + rng.int(1372)]);
  }
  return load;
}

const SEED = 20261201;
const DURATION_MS = 8000;

const simulatedDrops: Record<string, unknown> = {};

async function throughSimulator(name: PathDirectionName, load: Array<[number, number]>): Promise<Array<[number, number]>> {
  const sim = new Simulator();
  const other: PathDirectionName = name === 'uplink' ? 'downlink' : 'uplink';
  const net = createSimNetwork(sim, { [name]: pathStages(name, spec()), [other]: pathStages(other, { trace: ATT }), seed: SEED } as never);
  const out: Array<[number, number]> = [];
  const [from, to] = name === 'uplink' ? [net.inside, net.outside] : [net.outside, net.inside];
  to.onReceive((bytes) => out.push([sim.now(), bytes.length]));
  for (const [t, size] of load) sim.at(t, () => from.send(new Uint8Array(size)));
  await sim.run();
  simulatedDrops[name] = net.stats()[name].drops;
  return out;
}

function directionOn(name: PathDirectionName, scheduler: DirectionScheduler, now: () => number, out: Array<[number, number]>): Direction<null> {
  const s = spec();
  return new Direction<null>({
    name,
    trace: s.trace,
    queue: s.queue!,
    queueArgs: s.queueArgs!,
    mtu: s.mtu!,
    once: s.once!,
    delayMs: s.delayMs!,
    loss: s.loss!,
    onOff: s.onOff,
    overheadBytes: DEFAULT_OVERHEAD_BYTES,
    memoryCapBytes: 1 << 30,
    scheduler,
    // As session.ts seeds a direction: the session's generator forked by the direction's name.
    rng: createRng(SEED).fork(name),
    baseTimestamp: 0,
    deliver: (bytes) => out.push([now(), bytes.length]),
  });
}

/** linkshell's Direction on the simulator's clock: virtual time, every event on time. */
async function throughDirectionInVirtualTime(name: PathDirectionName, load: Array<[number, number]>): Promise<Array<[number, number]>> {
  const sim = new Simulator();
  const out: Array<[number, number]> = [];
  const scheduler: DirectionScheduler = { now: () => sim.now(), at: (t, cb) => sim.at(t, cb), dueTimeOfRunning: () => undefined };
  const direction = directionOn(name, scheduler, () => sim.now(), out);
  for (const [t, size] of load) sim.at(t, () => direction.push(new Uint8Array(size), null));
  await sim.run();
  return out;
}

/**
 * linkshell's Direction on its own WallClockScheduler, with a clock the test
 * moves: the loop wakes at awkward moments (0.7 ms after each arrival, and
 * only every 3 ms), runs what fell due, then feeds the arrival, as session.ts
 * does. Departures are recorded at the due time the emulation acts on.
 */
function throughDirectionOnAWallClock(name: PathDirectionName, load: Array<[number, number]>): Array<[number, number]> {
  let now = 0;
  const scheduler = new WallClockScheduler({ clock: { now: () => now } });
  const out: Array<[number, number]> = [];
  const direction = directionOn(name, scheduler, () => scheduler.dueTimeOfRunning() ?? Math.floor(now), out);
  for (const [t, size] of load) {
    while (now + 3 < t) {
      now += 3;
      scheduler.runDue(Infinity);
    }
    now = t + 0.7;
    scheduler.runDue(Infinity);
    direction.push(new Uint8Array(size), null);
  }
  now += 60_000;
  scheduler.runDue(Infinity);
  scheduler.close();
  return out;
}

for (const name of ['uplink', 'downlink'] as const) {
  test(`${name}: the simulator and linkshell's direction give identical departures for one load and one seed`, async () => {
    const load = offeredLoad(7, DURATION_MS);
    const simulated = await throughSimulator(name, load);
    const live = await throughDirectionInVirtualTime(name, load);
    const wall = throughDirectionOnAWallClock(name, load);
    // The path really drops (loss, off periods, PIE) and really delivers.
    assert.ok(simulated.length > load.length * 0.3 && simulated.length < load.length * 0.95, `${simulated.length} of ${load.length} delivered`);
    const drops = simulatedDrops[name] as Record<string, number>;
    assert.ok(drops.loss > 0 && drops.onoff > 0 && drops.queue > 0, JSON.stringify(drops));
    assert.is(live.length, simulated.length);
    assert.equal(live, simulated);
    assert.equal(wall, simulated);
  });
}

test('the order matters: a path with the stages in another order departs differently', async () => {
  // Guards the test above against passing trivially: the old simulator order (on/off, loss, link, delay) on the downlink.
  const load = offeredLoad(7, DURATION_MS);
  const sim = new Simulator();
  const s = spec();
  const old = [
    { kind: 'onoff' as const, meanOnMs: s.onOff!.meanOnMs, meanOffMs: s.onOff!.meanOffMs },
    { kind: 'loss' as const, rate: s.loss! },
    { kind: 'link' as const, trace: s.trace, queue: s.queue, queueArgs: s.queueArgs, baseTimestamp: 0 },
    { kind: 'delay' as const, ms: s.delayMs! },
  ];
  const net = createSimNetwork(sim, { downlink: old, uplink: pathStages('uplink', { trace: ATT }), seed: SEED });
  const out: Array<[number, number]> = [];
  net.inside.onReceive((bytes) => out.push([sim.now(), bytes.length]));
  for (const [t, size] of load) sim.at(t, () => net.outside.send(new Uint8Array(size)));
  await sim.run();
  assert.not.equal(out, await throughSimulator('downlink', load));
});

test.run();
