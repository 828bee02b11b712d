import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Simulator } from '../../src/net/simulator.ts';

test('events run in time order, ties in the order they were scheduled', async () => {
  const sim = new Simulator();
  const seen: string[] = [];
  sim.at(5, () => seen.push('a5'));
  sim.at(1, () => seen.push('b1'));
  sim.at(5, () => seen.push('c5'));
  sim.after(0.5, () => {
    seen.push('d0.5');
    sim.after(0, () => seen.push('e0.5'));
  });
  await sim.run();
  assert.equal(seen, ['d0.5', 'e0.5', 'b1', 'a5', 'c5']);
  assert.is(sim.now(), 5);
});

test('cancelled timers do not run; run({ until }) stops before later events and sets the clock', async () => {
  const sim = new Simulator();
  const seen: number[] = [];
  const t = sim.at(2, () => seen.push(2));
  sim.at(3, () => seen.push(3));
  sim.at(10, () => seen.push(10));
  t.cancel();
  await sim.run({ until: 7 });
  assert.equal(seen, [3]);
  assert.is(sim.now(), 7);
  await sim.run();
  assert.equal(seen, [3, 10]);
});

test('scheduling in the past or with a negative delay is an error', () => {
  const sim = new Simulator({ startMs: 100 });
  assert.throws(() => sim.at(99, () => {}), /already at 100/);
  assert.throws(() => sim.after(-1, () => {}), />= 0/);
  assert.throws(() => sim.after(NaN, () => {}), />= 0/);
});

test('work stops virtual time while it runs and resolves at now + modelled time', async () => {
  const sim = new Simulator();
  const seen: string[] = [];
  sim.at(0, async () => {
    const value = await sim.work(
      () => new Promise<number>((resolve) => setTimeout(() => resolve(42), 20)),
      7.5,
    );
    seen.push(`work ${value} at ${sim.now()}`);
    const again = await sim.work(async () => 'x', 1);
    seen.push(`again ${again} at ${sim.now()}`);
  });
  sim.at(3, () => seen.push(`timer at ${sim.now()}`));
  sim.at(8, () => seen.push(`timer at ${sim.now()}`));
  await sim.run();
  assert.equal(seen, ['timer at 3', 'work 42 at 7.5', 'timer at 8', 'again x at 8.5']);
});

test('a failing task rejects its promise at the modelled time', async () => {
  const sim = new Simulator();
  let caught = '';
  sim.at(1, async () => {
    try {
      await sim.work(async () => {
        throw new Error('boom');
      }, 2);
    } catch (error) {
      caught = `${(error as Error).message} at ${sim.now()}`;
    }
  });
  await sim.run();
  assert.is(caught, 'boom at 3');
});

test('the same program gives the same trace of events however long the real work takes', async () => {
  async function trace(realDelays: number[]) {
    const sim = new Simulator();
    const seen: string[] = [];
    let i = 0;
    const tick = async () => {
      const n = i++;
      if (n >= realDelays.length) return;
      const result = await sim.work(() => new Promise<number>((r) => setTimeout(() => r(n), realDelays[n])), 1 + (n % 3));
      seen.push(`${result}@${sim.now()}`);
      sim.after(0.25, tick);
    };
    sim.at(0, tick);
    for (let k = 0; k < 10; k++) sim.at(k * 1.3, () => seen.push(`t${k}@${sim.now()}`));
    await sim.run();
    return seen;
  }
  const fast = await trace([0, 0, 0, 0, 0, 0]);
  const slow = await trace([15, 1, 10, 0, 5, 2]);
  assert.equal(slow, fast);
});

test.run();
