import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { StageSpec } from '../../src/link-emu/chain.ts';
import { GilbertElliottLoss } from '../../src/link-emu/impairments.ts';
import { LinkLogWriter } from '../../src/link-emu/link-log.ts';
import { parseTrace } from '../../src/link-emu/trace-parse.ts';
import { createSimNetwork } from '../../src/net/sim-network.ts';
import { Simulator } from '../../src/net/simulator.ts';

/** Sends `count` datagrams of `size` bytes from inside, one every `gapMs`, and records when each arrives outside. */
async function sendThrough(uplink: StageSpec[], { count = 1000, size = 100, gapMs = 1, seed = 1, until = Infinity } = {}) {
  const sim = new Simulator();
  const net = createSimNetwork(sim, { uplink, downlink: [], seed });
  const arrivals: Array<[number, number]> = [];
  net.outside.onReceive((bytes) => arrivals.push([bytes[0] | (bytes[1] << 8), sim.now()]));
  for (let i = 0; i < count; i++) {
    sim.at(i * gapMs, () => {
      const datagram = new Uint8Array(size);
      datagram[0] = i & 0xff;
      datagram[1] = i >> 8;
      net.inside.send(datagram);
    });
  }
  await sim.run({ until });
  return { arrivals, stats: net.stats().uplink, sim };
}

test('a delay stage delays every datagram by exactly its delay, in order', async () => {
  const { arrivals } = await sendThrough([{ kind: 'delay', ms: 25 }], { count: 50, gapMs: 0.5 });
  assert.is(arrivals.length, 50);
  arrivals.forEach(([index, time]) => assert.is(time, index * 0.5 + 25));
});

test('a datagram occupies its payload plus 32 bytes of the link: 1472 bytes fill one 1504-byte opportunity', async () => {
  const trace = parseTrace('1\n', 'one-per-ms');
  const fits = await sendThrough([{ kind: 'link', trace }], { count: 10, size: 1472, gapMs: 0 });
  assert.equal(fits.arrivals.map(([, t]) => t), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  const oversize = await sendThrough([{ kind: 'link', trace }], { count: 3, size: 1473, gapMs: 0 });
  assert.is(oversize.arrivals.length, 0);
  assert.is(oversize.stats.drops.oversize, 3);
});

test('independent loss is within statistical bounds and the same for the same seed', async () => {
  const n = 20000;
  const rate = 0.1;
  const a = await sendThrough([{ kind: 'loss', rate }], { count: n, gapMs: 0.01 });
  const b = await sendThrough([{ kind: 'loss', rate }], { count: n, gapMs: 0.01 });
  const c = await sendThrough([{ kind: 'loss', rate }], { count: n, gapMs: 0.01, seed: 2 });
  const lost = a.stats.drops.loss;
  const sigma = Math.sqrt(n * rate * (1 - rate));
  assert.ok(Math.abs(lost - n * rate) < 4 * sigma, `lost ${lost} of ${n}`);
  assert.equal(b.arrivals, a.arrivals);
  assert.not.equal(c.arrivals, a.arrivals);
});

test('Gilbert-Elliott loss has its mean rate and comes in bursts', async () => {
  const params = { goodToBad: 0.01, badToGood: 0.25, lossInGood: 0, lossInBad: 1 };
  const n = 40000;
  const { arrivals, stats } = await sendThrough([{ kind: 'gilbert-elliott', ...params }], { count: n, gapMs: 0.01 });
  const expected = GilbertElliottLoss.meanLossRate(params);
  const rate = stats.drops.loss / n;
  assert.ok(Math.abs(rate - expected) < 0.35 * expected, `loss rate ${rate}, expected ${expected}`);
  // Mean burst length of losses is about 1 / badToGood = 4 packets (independent loss would give ~1).
  const received = new Set(arrivals.map(([i]) => i));
  let bursts = 0;
  let losses = 0;
  for (let i = 0; i < Math.min(n, 65536); i++) {
    const lostHere = !received.has(i & 0xffff);
    if (lostHere) {
      losses++;
      if (i === 0 || received.has((i - 1) & 0xffff)) bursts++;
    }
  }
  assert.ok(losses / bursts > 2.5, `mean burst ${losses / bursts}`);
});

test('an on/off stage passes datagrams only while on, for about on/(on+off) of the time', async () => {
  const { stats, arrivals } = await sendThrough([{ kind: 'onoff', meanOnMs: 200, meanOffMs: 100 }], { count: 60000, gapMs: 1 });
  const fraction = arrivals.length / 60000;
  assert.ok(Math.abs(fraction - 2 / 3) < 0.08, `on fraction ${fraction}`);
  assert.is(stats.drops.onoff, 60000 - arrivals.length);
  // Losses come as outages: long runs of consecutive indexes.
  let gaps = 0;
  for (let i = 1; i < arrivals.length; i++) if (arrivals[i][0] !== ((arrivals[i - 1][0] + 1) & 0xffff)) gaps++;
  assert.ok(gaps < 400, `${gaps} outages`);
});

test('stages compose in the declared order: loss before a link never uses its capacity for lost packets', async () => {
  const trace = parseTrace('10\n', '10ms');
  const { arrivals, stats } = await sendThrough(
    [{ kind: 'loss', rate: 0.5 }, { kind: 'link', trace, queue: 'droptail', queueArgs: 'packets=1000' }, { kind: 'delay', ms: 5 }],
    { count: 200, size: 1472, gapMs: 0 },
  );
  assert.is(stats.drops.loss + arrivals.length, 200);
  arrivals.forEach(([, t], k) => assert.is(t, 10 * (k + 1) + 5));
});

test('a simulated link run twice with the same seed writes byte-identical logs', async () => {
  async function run(seed: number) {
    const sim = new Simulator();
    let log = '';
    const writer = new LinkLogWriter((c) => (log += c));
    const trace = parseTrace('2\n3\n3\n7\n', 'small');
    const net = createSimNetwork(sim, {
      uplink: [{ kind: 'loss', rate: 0.2 }, { kind: 'link', trace, queue: 'pie', queueArgs: 'packets=50,qdelay_ref=5,max_burst=10', events: writer }],
      downlink: [],
      seed,
    });
    let sent = 0;
    const tick = () => {
      net.inside.send(new Uint8Array(200 + (sent % 1000)));
      if (++sent < 5000) sim.after(sent % 7 === 0 ? 3 : 0.5, tick);
    };
    sim.at(0, tick);
    await sim.run();
    writer.close();
    return log;
  }
  const a = await run(7);
  const b = await run(7);
  const c = await run(8);
  assert.ok(a.length > 10000);
  assert.ok(a === b, 'same seed, same bytes');
  assert.ok(a !== c, 'another seed, another log');
});

test.run();
