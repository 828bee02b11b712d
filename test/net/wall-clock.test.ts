// The wall-clock scheduler: order, cancellation, never early, no drift.
// Checks are about order and lower bounds only, never about how fast the machine is.

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

test('chained timers keep to absolute due times: lateness does not accumulate', async () => {
  const s = new WallClockScheduler({ timer: 'thread' });
  const start = s.now();
  const period = 2;
  const n = 25;
  let fired = 0;
  await new Promise<void>((resolve) => {
    const tick = (k: number) => {
      fired++;
      if (k === n) return resolve();
      // The next due time comes from the schedule, not from when this one happened to run.
      s.at(start + (k + 1) * period, () => tick(k + 1));
    };
    s.at(start + period, () => tick(1));
  });
  const end = s.now();
  s.close();
  assert.is(fired, n);
  assert.ok(end >= start + n * period);
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
