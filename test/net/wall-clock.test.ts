// The wall-clock scheduler: order, cancellation, never early, no drift.
// Checks are about order, lower bounds and drift, never about how fast the machine is.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createMonotonicClock, WallClockScheduler, type MonotonicClock } from '../../src/net/wall-clock.ts';

/** A clock the test moves by hand. */
function manualClock(): MonotonicClock & { set(ms: number): void } {
  let now = 0;
  return { now: () => now, set: (ms) => (now = ms) };
}

test('the monotonic clock starts near 0 and never goes back', () => {
  const clock = createMonotonicClock();
  let last = clock.now();
  assert.ok(last >= 0 && last < 1000);
  for (let i = 0; i < 10000; i++) {
    const t = clock.now();
    assert.ok(t >= last);
    last = t;
  }
});

test('runDue runs exactly the callbacks due by now, in time order then scheduling order', () => {
  const clock = manualClock();
  const lateness: number[] = [];
  const s = new WallClockScheduler({ clock, onLateness: (ms) => lateness.push(ms) });
  const ran: string[] = [];
  s.at(5, () => ran.push('a5'));
  s.at(3, () => ran.push('b3'));
  s.at(5, () => ran.push('c5'));
  const cancelled = s.at(4, () => ran.push('x4'));
  s.at(9, () => ran.push('d9'));
  cancelled.cancel();
  assert.is(s.pending(), 4);
  clock.set(2.9);
  s.runDue();
  assert.equal(ran, []);
  clock.set(6);
  s.runDue();
  assert.equal(ran, ['b3', 'a5', 'c5']);
  assert.equal(lateness, [3, 1, 1]);
  assert.is(s.nextDue(), 9);
  // A callback scheduled for now (or the past) by a running callback runs in the same pass.
  s.at(6, () => s.at(1, () => ran.push('past')));
  s.runDue();
  assert.equal(ran, ['b3', 'a5', 'c5', 'past']);
  s.close();
  assert.is(s.pending(), 0);
  assert.throws(() => s.at(10, () => {}), /closed/);
});

test('lazy callbacks run in due-time and scheduling order with eager ones whenever due ones run, without lateness reports', () => {
  const clock = manualClock();
  const lateness: number[] = [];
  const s = new WallClockScheduler({ clock, onLateness: (ms) => lateness.push(ms) });
  const ran: string[] = [];
  s.at(3, () => ran.push('lazy3'), true);
  s.at(3, () => ran.push('eager3'));
  s.at(2, () => ran.push('lazy2'), true);
  s.at(4, () => ran.push('eager4'));
  s.at(7, () => ran.push('lazy7'), true).cancel();
  assert.is(s.pending(), 4);
  assert.is(s.nextDue(), 2);
  clock.set(3.5);
  s.runDue(Infinity, 3);
  assert.equal(ran, ['lazy2', 'lazy3', 'eager3']);
  clock.set(10);
  s.runDue();
  assert.equal(ran, ['lazy2', 'lazy3', 'eager3', 'eager4']);
  assert.equal(lateness, [0.5, 6]);
  assert.is(s.pending(), 0);
  s.close();
});

test('a Node timer due within the lazy bound is kept when nothing is pending, not cleared and set again for the next callback', () => {
  const clock = manualClock();
  const s = new WallClockScheduler({ clock, lazyBoundMs: 50 });
  const realSet = globalThis.setTimeout;
  const realClear = globalThis.clearTimeout;
  let sets = 0;
  let clears = 0;
  globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => (sets++, realSet(...args))) as typeof setTimeout;
  globalThis.clearTimeout = ((...args: Parameters<typeof clearTimeout>) => (clears++, realClear(...args))) as typeof clearTimeout;
  try {
    const ran: number[] = [];
    // As linkshell's arrivals: each schedules a lazy callback a millisecond on, after the previous one ran.
    for (let t = 0; t < 10; t++) {
      clock.set(t);
      s.runDue();
      s.at(t + 1, () => ran.push(t + 1), true);
    }
    assert.equal(ran, [1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.is(sets, 1);
    assert.is(clears, 0);
  } finally {
    globalThis.setTimeout = realSet;
    globalThis.clearTimeout = realClear;
    s.close();
  }
});

test('a lazy callback does not wake the loop at its due time: it runs with the next eager one, or alone its bound later', async () => {
  const s = new WallClockScheduler({ lazyBoundMs: 1000 });
  const t0 = s.now();
  const ran: [string, number][] = [];
  await new Promise<void>((resolve) => {
    s.at(t0 + 5, () => ran.push(['lazy', s.now() - t0]), true);
    s.at(t0 + 40, () => {
      ran.push(['eager', s.now() - t0]);
      resolve();
    });
  });
  // (Node's timer may fire a little before our clock's due time; the margin is for that, not for speed.)
  assert.equal(ran.map(([name]) => name), ['lazy', 'eager']);
  assert.ok(ran[0]![1] >= 20, `the lazy callback ran ${ran[0]![1]} ms after the start: it woke the loop by itself`);
  const alone = s.now();
  const late = await new Promise<number>((resolve) => s.at(alone, () => resolve(s.now() - alone), true));
  s.close();
  assert.ok(late >= 500, `alone, it ran ${late} ms late (bound 1000 ms)`);
});

test('a throwing callback goes to onError and the others still run', () => {
  const clock = manualClock();
  const errors: unknown[] = [];
  const s = new WallClockScheduler({ clock, onError: (e) => errors.push(e) });
  const ran: number[] = [];
  s.at(1, () => {
    throw new Error('boom');
  });
  s.at(2, () => ran.push(2));
  clock.set(5);
  s.runDue();
  s.close();
  assert.equal(ran, [2]);
  assert.is((errors[0] as Error).message, 'boom');
});

test('callbacks on the real clock run in order and never before their due time', async () => {
  for (const [timer, spinMs] of [['timeout', 0], ['timeout', 1], ['thread', 0]] as const) {
    const s = new WallClockScheduler({ timer, spinMs });
    const start = s.now();
    const order: number[] = [];
    const early: number[] = [];
    await new Promise<void>((resolve) => {
      // 40 callbacks at fractional due times over ~20 ms, scheduled out of order.
      const dues = Array.from({ length: 40 }, (_, i) => start + 1 + ((i * 7) % 40) * 0.5);
      let left = dues.length;
      for (const due of dues) {
        s.at(due, () => {
          if (s.now() < due) early.push(due);
          order.push(due);
          if (--left === 0) resolve();
        });
      }
    });
    s.close();
    assert.equal(early, [], `${timer} spin ${spinMs}: callbacks ran early`);
    assert.equal(order, [...order].sort((a, b) => a - b), `${timer} spin ${spinMs}: order`);
  }
});

test('the thread timer needs a real monotonic clock, and an unknown timer is refused', () => {
  assert.throws(() => new WallClockScheduler({ timer: 'thread', clock: manualClock() }), /needs a clock with an originNs/);
  assert.throws(() => new WallClockScheduler({ timer: 'hr' as 'thread' }), /unknown timer kind "hr"/);
});

/**
 * Runs `n` callbacks of a `period` ms schedule, each chained from the one before and each taking `work` ms
 * (blocked, not spinning: no CPU taken from a loaded machine); returns how late each ran against the
 * schedule's k-th due time. `absolute`: the next due time comes from the schedule; otherwise it is `period`
 * after the callback ran (what drifts).
 */
async function chainedLateness(n: number, period: number, work: number, absolute: boolean): Promise<number[]> {
  const s = new WallClockScheduler({ timer: 'thread' });
  const start = s.now() + period;
  const lateness: number[] = [];
  await new Promise<void>((resolve) => {
    const tick = (k: number) => {
      lateness.push(s.now() - (start + k * period));
      const until = s.now() + work;
      while (s.now() < until) Atomics.wait(blocker, 0, 0, until - s.now());
      if (k === n - 1) return resolve();
      const next = () => tick(k + 1);
      if (absolute) s.at(start + (k + 1) * period, next);
      else s.after(period, next);
    };
    s.at(start, () => tick(0));
  });
  s.close();
  return lateness;
}

const blocker = new Int32Array(new SharedArrayBuffer(4));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

test('chained timers keep to absolute due times: lateness does not accumulate', async () => {
  // Each callback takes 10 ms before it schedules the next one of a 20 ms schedule. Chained by relative
  // delays, each one is at least 10 ms later than the one before (the check below sees that drift); at the
  // schedule's absolute due times, the last ones are no later than any one callback can be, whatever the
  // drift would have been: a quarter of it bounds the median of the last 20. Half of each period is
  // headroom, so that a loaded machine catches up after a stall.
  const n = 80;
  const period = 20;
  const work = 10;
  const drift = n * work;
  const relative = await chainedLateness(n, period, work, false);
  assert.ok(median(relative.slice(-20)) >= (n - 20) * work, `relative delays drift: ${median(relative.slice(-20))} ms`);
  const absolute = await chainedLateness(n, period, work, true);
  assert.is(absolute.length, n);
  assert.ok(Math.min(...absolute) >= 0, 'no callback ran early');
  const last = median(absolute.slice(-20));
  assert.ok(last < drift / 4, `the last callbacks ran ${last.toFixed(1)} ms late (median): lateness accumulates`);
});

test('runDue yields after batchLimit callbacks so that I/O is not starved', () => {
  const clock = manualClock();
  const s = new WallClockScheduler({ clock, batchLimit: 3 });
  let ran = 0;
  for (let i = 0; i < 10; i++) s.at(0, () => ran++);
  s.runDue();
  assert.is(ran, 3);
  s.runDue();
  assert.is(ran, 6);
  s.close();
});

test.run();
