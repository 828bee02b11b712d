// The endpoint-context wrappers of the live commands, over a real UDP endpoint's
// clock, and the pieces the commands wait and record with.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { EndpointContext } from '../../src/net/endpoint.ts';
import { createUdpEndpoint } from '../../src/net/udp-endpoint.ts';
import { countingWork } from '../../src/salsify/live/counting-work.ts';
import { withModelledWorkTime } from '../../src/salsify/live/modelled-work.ts';
import { sharedClockNow, sharedClockOffset } from '../../src/salsify/live/shared-clock.ts';
import { isToolkitError } from '../../src/common/errors.ts';
import { FirstFailure } from '../../src/salsify/live/first-failure.ts';
import { JsonlWriter } from '../../src/salsify/live/jsonl.ts';
import { RecordsFile } from '../../src/salsify/live/records-file.ts';
import { waitUntil } from '../../src/salsify/live/wait-until.ts';

/** A hand-driven clock for the context wrappers: time moves only when the test says, timers fire when it passes them. */
function manualContext() {
  let now = 0;
  const timers: { at: number; callback: () => void }[] = [];
  const ctx: EndpointContext = {
    now: () => now,
    setTimer: (ms, callback) => {
      const timer = { at: now + ms, callback };
      timers.push(timer);
      return { cancel: () => timers.splice(timers.indexOf(timer), 1) };
    },
    send: () => {},
    onReceive: () => {},
    work: (task) => task(),
  };
  const advance = (ms: number) => {
    now += ms;
    for (const t of timers.filter((x) => x.at <= now)) {
      timers.splice(timers.indexOf(t), 1);
      t.callback();
    }
  };
  return { ctx, advance, pendingTimers: () => timers.map((t) => t.at - now) };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

test('the model codec\'s work takes at least its modelled time; longer work is not delayed further', async () => {
  const { ctx: base, advance, pendingTimers } = manualContext();
  const ctx = countingWork(withModelledWorkTime(base));
  let result: string | undefined;
  const quick = ctx.work(async () => 'quick', 25).then((r) => (result = r));
  assert.is(ctx.busy(), 1);
  await turn();
  // Done at once, but held until its modelled 25 ms have passed.
  assert.equal(pendingTimers(), [25]);
  advance(24);
  await turn();
  assert.is(result, undefined);
  advance(1);
  await quick;
  assert.is(result, 'quick');
  assert.is(ctx.busy(), 0);
  // Work slower than modelled ends when it ends: no timer is added after it.
  let finish!: () => void;
  const slow = ctx.work(() => new Promise<void>((resolve) => (finish = resolve)), 1);
  advance(20);
  finish();
  await slow;
  assert.equal(pendingTimers(), [], 'no modelled time added after slow work');
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
});

test('the shared clock: epoch milliseconds, and a constant offset from a monotonic clock', async () => {
  const a = sharedClockNow();
  assert.ok(Math.abs(a - Date.now()) < 1000, 'close to the system clock');
  const endpoint = await createUdpEndpoint();
  try {
    const first = sharedClockOffset(() => endpoint.now());
    await new Promise((resolve) => setTimeout(resolve, 30));
    const second = sharedClockOffset(() => endpoint.now());
    // The two readings bracket the shared one, so the offset is constant up to the time between them
    // (microseconds; generous here, as a loaded machine may pause a process between two readings).
    assert.ok(Math.abs(first - second) < 50, `offset moved by ${second - first} ms`);
    assert.ok(sharedClockNow() >= a);
  } finally {
    await endpoint.close();
  }
});

test('task ends are told to listeners after the awaiting code ran, with the error of a failed task', async () => {
  const endpoint = await createUdpEndpoint();
  try {
    const ctx = countingWork(endpoint);
    const seen: string[] = [];
    ctx.onTaskEnd((error) => seen.push(error === undefined ? `ok, busy ${ctx.busy()}` : `failed: ${(error as Error).message}`));
    await ctx.work(async () => seen.push('task'), 0).then(() => seen.push('continuation'));
    await new Promise((resolve) => setImmediate(resolve));
    await ctx.work(async () => {
      throw new Error('broke');
    }, 0).catch(() => seen.push('caught'));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(seen, ['task', 'continuation', 'ok, busy 0', 'caught', 'failed: broke']);
  } finally {
    await endpoint.close();
  }
});

test('waitUntil: done when the condition holds at a check, or false at the deadline; no polling', async () => {
  const endpoint = await createUdpEndpoint();
  try {
    let value = 0;
    let checks = 0;
    const c = waitUntil(() => (checks++, value >= 2), endpoint, 60_000);
    value = 2; // not seen until someone checks
    assert.is(checks, 1);
    c.check();
    assert.is(await c.done, true);
    c.check(); // settled: no more checks of the condition
    assert.is(checks, 2);
    const never = waitUntil(() => false, endpoint, 5);
    assert.is(await never.done, false);
    assert.is(await waitUntil(() => true, endpoint, 60_000).done, true, 'holds at once');
  } finally {
    await endpoint.close();
  }
});

test('the first failure counts; undefined reports are ignored', async () => {
  const f = new FirstFailure();
  f.report(undefined);
  assert.is(f.error, undefined);
  f.report(new Error('first'));
  f.report(new Error('second'));
  f.report('not an Error');
  assert.is((await f.promise).message, 'first');
  try {
    await f.thrown();
    assert.unreachable();
  } catch (error) {
    assert.is((error as Error).message, 'first');
  }
});

test('records are on disk as soon as written, end once, and a failed write names the file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'salsify-records-'));
  try {
    const path = join(dir, 'x.jsonl');
    let now = 5;
    const file = new RecordsFile(path, { type: 'header' }, () => now, (t) => t + 1000);
    file.write({ type: 'a' });
    // Not closed: whatever ends the process now, the records so far are in the file, whole.
    assert.is(readFileSync(path, 'utf8'), '{"type":"header"}\n{"type":"a"}\n');
    now = 7;
    file.end('signal SIGINT', { n: 1 });
    file.end('error', { n: 2 }, new Error('later'));
    file.write({ type: 'after the end' });
    file.close();
    file.close();
    const lines = readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(lines, [{ type: 'header' }, { type: 'a' }, { type: 'end', t: 1007, reason: 'signal SIGINT', counters: { n: 1 } }]);
    assert.throws(() => new RecordsFile(join(dir, 'no', 'such', 'dir.jsonl'), {}, () => 0, (t) => t), /^cannot write .*no\/such\/dir\.jsonl: ENOENT/);
    if (existsSync('/dev/full')) {
      const full = new JsonlWriter('/dev/full');
      full.write({ type: 'a' });
      assert.match(full.failure!.message, /^cannot write \/dev\/full: ENOSPC/);
      assert.throws(() => full.close(), /cannot write \/dev\/full: ENOSPC/);
      // As a command's records: a usage error (one line, exit status 2), as for a file that cannot be created.
      const records = new RecordsFile('/dev/full', { type: 'header' }, () => 0, (t) => t);
      assert.ok(isToolkitError(records.failure, 'ERR_UNWRITABLE_FILE'));
      assert.match(records.failure!.message, /^cannot write \/dev\/full: ENOSPC/);
      assert.throws(() => records.close(), (error: Error) => isToolkitError(error, 'ERR_UNWRITABLE_FILE'));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A process that watches stop signals, with an end record as its last words; `then` runs after set-up. */
function watcher(path: string, then: string) {
  const code = `
    import { watchStopSignals } from './src/salsify/live/stop-signals.ts';
    import { RecordsFile } from './src/salsify/live/records-file.ts';
    const stop = watchStopSignals('watcher');
    const file = new RecordsFile(${JSON.stringify(path)}, { type: 'header' }, () => 1, (t) => t);
    stop.beforeForcedExit((reason, error) => file.end(reason, {}, error));
    stop.first.then((signal) => process.stdout.write('stopping on ' + signal + '\\n'));
    setTimeout(() => {}, 120000);
    process.stdout.write('ready\\n');
    ${then}`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: new URL('../..', import.meta.url), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '', stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const kill = setTimeout(() => child.kill('SIGKILL'), 120000);
  exited.finally(() => clearTimeout(kill));
  const waitFor = async (text: string) => {
    while (!stdout.includes(text)) {
      if (child.exitCode !== null) throw new Error(`exited before ${text}: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  return { child, exited, waitFor, stderr: () => stderr };
}

test('a second stop signal, or an uncaught exception, writes the end record before the process exits', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'salsify-last-words-'));
  try {
    const forced = watcher(join(dir, 'forced.jsonl'), '');
    await forced.waitFor('ready');
    forced.child.kill('SIGINT');
    await forced.waitFor('stopping on SIGINT');
    forced.child.kill('SIGTERM');
    assert.equal(await forced.exited, { code: 128 + 15, signal: null });
    const lines = readFileSync(join(dir, 'forced.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(lines.at(-1), { type: 'end', t: 1, reason: 'signal SIGTERM (forced)', counters: {} });

    const crash = watcher(join(dir, 'crash.jsonl'), "setTimeout(() => { throw new Error('a bug'); }, 1);");
    assert.equal(await crash.exited, { code: 1, signal: null });
    assert.is(crash.stderr(), 'watcher: uncaught error: a bug\n');
    const end = JSON.parse(readFileSync(join(dir, 'crash.jsonl'), 'utf8').trim().split('\n').at(-1)!);
    assert.equal(end, { type: 'end', t: 1, reason: 'error', error: 'a bug', counters: {} });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
