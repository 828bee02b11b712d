import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ThreadAlarm } from '../../src/net/thread-alarm.ts';
import { createMonotonicClock } from '../../src/net/wall-clock.ts';
import { HANG_BOUND_MS } from '../helpers/bounds.ts';

// Generous bounds: the machine may be loaded; these check which alarm fires, not how punctually.

/** Alarms of the running test, closed when it ends (an armed alarm keeps the process alive). */
const open: ThreadAlarm[] = [];

/** Runs `body` with a bound (HANG_BOUND_MS) (a referenced timer, which also keeps the process alive while the unreferenced worker starts). */
function bounded(body: () => Promise<void>): () => Promise<void> {
  return async () => {
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${HANG_BOUND_MS / 1000} s`)), HANG_BOUND_MS)));
    try {
      await Promise.race([body(), limit]);
    } finally {
      clearTimeout(timer);
      await Promise.all(open.splice(0).map((a) => a.close()));
    }
  };
}

function alarm() {
  const clock = createMonotonicClock();
  const fired: number[] = [];
  let onFire = () => {};
  let online = () => {};
  const onlinePromise = new Promise<void>((resolve) => (online = resolve));
  const a = new ThreadAlarm(clock.originNs!, () => {
    fired.push(clock.now());
    onFire();
  }, () => online());
  open.push(a);
  const next = () => new Promise<number>((resolve) => (onFire = () => resolve(clock.now())));
  return { a, clock, fired, next, online: onlinePromise };
}

test('an alarm moved later fires at the later time, not at the earlier one', bounded(async () => {
  const { a, clock, fired, next, online } = alarm();
  await online;
  const t0 = clock.now();
  a.arm(t0 + 30);
  a.arm(t0 + 300);
  const at = await next();
  assert.ok(at >= t0 + 300, `fired at +${(at - t0).toFixed(1)} ms, armed for +300`);
  assert.is(fired.length, 1);
  await a.close();
}));

test('an alarm moved earlier wakes the sleeping worker and fires at the earlier time', bounded(async () => {
  const { a, clock, next, online } = alarm();
  await online;
  const t0 = clock.now();
  a.arm(t0 + 5000);
  await new Promise((resolve) => setTimeout(resolve, 20)); // the worker is asleep towards +5000
  a.arm(clock.now() + 10);
  const at = await next();
  assert.ok(at - t0 < 2000, `fired at +${(at - t0).toFixed(1)} ms`);
  await a.close();
}));

test('re-armed after each alarm, at the expected interval, earlier or later: every alarm fires, none early', bounded(async () => {
  const { a, clock, online } = alarm();
  await online;
  const t0 = Math.ceil(clock.now()) + 5;
  // A busy link's pattern (every ms), then a longer gap, a shorter one, and again every ms.
  const dues = [1, 2, 3, 4, 5, 6, 20, 20.5, 21.5, 22.5, 23.5, 60].map((d) => t0 + d);
  const firedAt: number[] = [];
  await new Promise<void>((resolve) => {
    let k = 0;
    const c = createMonotonicClock(clock.originNs);
    const b = new ThreadAlarm(clock.originNs!, () => {
      const now = c.now();
      if (now < dues[k]) return b.arm(dues[k]); // an early alarm is harmless: re-arm
      firedAt.push(now);
      if (++k === dues.length) {
        void b.close();
        return resolve();
      }
      b.arm(dues[k]);
    }, () => b.arm(dues[0]));
    open.push(b);
  });
  await a.close();
  assert.is(firedAt.length, dues.length);
  for (const [i, at] of firedAt.entries()) assert.ok(at >= dues[i] && at < dues[i] + 1000, `alarm ${i} at ${at - dues[i]} ms from due`);
}));

test.run();
