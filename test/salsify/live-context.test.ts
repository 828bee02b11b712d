// The endpoint-context wrappers of the live commands, over a real UDP endpoint's clock.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createUdpEndpoint } from '../../src/net/udp-endpoint.ts';
import { countingWork } from '../../src/salsify/live/counting-work.ts';
import { withModelledWorkTime } from '../../src/salsify/live/modelled-work.ts';
import { sharedClockNow, sharedClockOffset } from '../../src/salsify/live/shared-clock.ts';

test('the model codec\'s work takes at least its modelled time; longer work is not delayed further', async () => {
  const endpoint = await createUdpEndpoint();
  try {
    const ctx = countingWork(withModelledWorkTime(endpoint));
    const started = endpoint.now();
    const quick = ctx.work(async () => 'quick', 25);
    assert.is(ctx.busy(), 1);
    assert.is(await quick, 'quick');
    assert.ok(endpoint.now() - started >= 25, `finished after ${endpoint.now() - started} ms`);
    assert.is(ctx.busy(), 0);
    // Work slower than modelled ends when it ends (no extra wait is added after it).
    const slowStart = endpoint.now();
    let doneAt = 0;
    await ctx.work(() => new Promise<void>((resolve) => setTimeout(() => {
      doneAt = endpoint.now();
      resolve();
    }, 20)), 1);
    assert.ok(doneAt - slowStart >= 19);
    assert.ok(endpoint.now() - doneAt < 20, 'no modelled time added after slow work');
    // A failing task fails through the wrappers, and is no longer counted.
    try {
      await ctx.work(async () => {
        throw new Error('codec broke');
      }, 5);
      assert.unreachable('the failure must come through');
    } catch (error) {
      assert.match((error as Error).message, /codec broke/);
    }
    assert.is(ctx.busy(), 0);
  } finally {
    await endpoint.close();
  }
});

test('the shared clock: epoch milliseconds, and a constant offset from a monotonic clock', async () => {
  const a = sharedClockNow();
  assert.ok(Math.abs(a - Date.now()) < 1000, 'close to the system clock');
  const endpoint = await createUdpEndpoint();
  try {
    const first = sharedClockOffset(() => endpoint.now());
    await new Promise((resolve) => setTimeout(resolve, 30));
    const second = sharedClockOffset(() => endpoint.now());
    assert.ok(Math.abs(first - second) < 1, `offset moved by ${second - first} ms`);
    assert.ok(sharedClockNow() >= a);
  } finally {
    await endpoint.close();
  }
});

test.run();
