// One direction of linkshell on a clock the test moves by hand: the emulation
// is the simulator's, whenever the real events happen to run.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { LinkEventSink } from '../../src/link-emu/link.ts';
import { createRng } from '../../src/common/random.ts';
import { WallClockScheduler } from '../../src/net/wall-clock.ts';
import { Direction } from '../../src/linkshell/direction.ts';
import { parseLinkLog } from '../../src/link-emu/link-log.ts';

function manualClock() {
  let now = 0;
  return { now: () => now, set: (ms: number) => (now = ms) };
}

function recorder(): LinkEventSink & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    arrival: (t, s) => lines.push(`${t} + ${s}`),
    opportunity: (t, m) => lines.push(`${t} # ${m}`),
    departure: (t, s, d) => lines.push(`${t} - ${s} ${d}`),
    drop: (t, p, b) => lines.push(`${t} d ${p} ${b}`),
  };
}

function direction(name: 'uplink' | 'downlink', clock: ReturnType<typeof manualClock>, delayMs: number, opts: { memoryCapBytes?: number; overheadBytes?: number; loss?: number; lossAt?: 'entry' | 'delivery' } = {}) {
  const scheduler = new WallClockScheduler({ clock });
  const log = recorder();
  const delivered: Array<[number, number]> = [];
  const d = new Direction<string>({
    name,
    trace: { source: 'every 5 ms', times: new Float64Array([5]), period: 5 },
    queue: 'infinite',
    queueArgs: '',
    mtu: 1504,
    once: false,
    delayMs,
    loss: opts.loss ?? 0,
    lossAt: opts.lossAt,
    overheadBytes: opts.overheadBytes ?? 32,
    memoryCapBytes: opts.memoryCapBytes ?? 1 << 20,
    scheduler,
    rng: createRng(1),
    baseTimestamp: 0,
    log,
    deliver: (bytes) => delivered.push([clock.now(), bytes.length]),
  });
  return { d, scheduler, log, delivered };
}

test('loss at delivery: a lost datagram still crosses the link (arrives and departs in the log), as Cellsim lost it; at entry, mm-loss\'s place, it is lost before the downlink\'s link and after the uplink\'s', () => {
  const crossed = ['1 + 132', '5 - 132 4'];
  for (const [name, lossAt, expected] of [
    ['downlink', 'entry', []],
    ['downlink', 'delivery', crossed],
    ['uplink', 'entry', crossed],
    ['uplink', 'delivery', crossed],
  ] as const) {
    const clock = manualClock();
    const { d, scheduler, log, delivered } = direction(name, clock, 0, { loss: 1, lossAt });
    clock.set(1);
    d.push(new Uint8Array(100), 'a');
    clock.set(30);
    scheduler.runDue();
    assert.equal(delivered, [], `${name} ${lossAt}`);
    assert.equal(log.lines.filter((l) => !l.includes('#')), expected, `${name} ${lossAt}`);
    scheduler.close();
  }
});

test('downlink (delay then link): late-running events act as of their due times', () => {
  const clock = manualClock();
  const { d, scheduler, log, delivered } = direction('downlink', clock, 12);
  clock.set(3.6);
  d.push(new Uint8Array(100), 'a'); // arrives at 3 ms (whole ms), leaves the delay at 15
  // The process sleeps through everything: the clock jumps to 40 ms before anything runs.
  clock.set(40.2);
  scheduler.runDue();
  // As the simulator would have it: arrival at the link at 15, departure at the opportunity at 20.
  assert.equal(log.lines.filter((l) => !l.includes('#')), ['15 + 132', '20 - 132 5']);
  assert.equal(delivered, [[40.2, 100]]);
  const stats = d.stats();
  assert.is(stats.departureLatenessMs.count(), 1);
  assert.ok(Math.abs(stats.departureLatenessMs.max() - 20.2) < 1e-9);
  assert.equal(stats.queueingDelayMs.max(), 5);
  scheduler.close();
});

test('uplink (link then delay): each departure\'s delay counts from its opportunity, not from when it ran', () => {
  const clock = manualClock();
  const { d, scheduler, log, delivered } = direction('uplink', clock, 10);
  clock.set(1);
  d.push(new Uint8Array(1472), 'a'); // one whole opportunity each
  d.push(new Uint8Array(1472), 'b');
  d.push(new Uint8Array(1472), 'c');
  // Departures due at 5, 10, 15, then 10 ms of delay each: releases due at 15, 20, 25.
  clock.set(17);
  scheduler.runDue();
  assert.equal(log.lines.filter((l) => l.includes('-')), ['5 - 1504 4', '10 - 1504 9', '15 - 1504 14']);
  // Only the first release (due 15) has come by 17; the others come when their due times do.
  assert.is(delivered.length, 1);
  clock.set(20);
  scheduler.runDue();
  assert.is(delivered.length, 2);
  clock.set(24.9);
  scheduler.runDue();
  assert.is(delivered.length, 2);
  clock.set(25);
  scheduler.runDue();
  assert.equal(delivered, [[17, 1472], [20, 1472], [25, 1472]]);
  scheduler.close();
});

test('an arrival after a long sleep comes after the events that fell due before it', () => {
  const clock = manualClock();
  const { d, scheduler, log } = direction('downlink', clock, 2);
  clock.set(0);
  d.push(new Uint8Array(10), 'a'); // link arrival due at 2
  clock.set(30.5);
  // What session.ts does on each datagram: run what is due, then take the arrival.
  scheduler.runDue(Infinity);
  d.push(new Uint8Array(20), 'b');
  const events = log.lines.filter((l) => !l.includes('#'));
  assert.equal(events, ['2 + 42', '5 - 42 3']);
  clock.set(60);
  scheduler.runDue(Infinity);
  assert.equal(log.lines.filter((l) => !l.includes('#')), ['2 + 42', '5 - 42 3', '32 + 52', '35 - 52 3']);
  scheduler.close();
});

test('the memory cap counts what the direction holds, and frees it as datagrams leave', () => {
  const clock = manualClock();
  const { d, scheduler } = direction('uplink', clock, 0, { memoryCapBytes: 3 * 1504 });
  for (let i = 0; i < 5; i++) d.push(new Uint8Array(1472), 'x');
  assert.is(d.stats().heldBytes, 3 * 1504);
  assert.is(d.stats().memoryCapDrops, 2);
  clock.set(5);
  scheduler.runDue();
  assert.is(d.stats().heldBytes, 2 * 1504);
  d.push(new Uint8Array(1472), 'y');
  assert.is(d.stats().heldBytes, 3 * 1504);
  d.push(new Uint8Array(1473), 'too big'); // oversize: counted as such, not against the cap
  assert.is(d.stats().drops.oversize, 1);
  assert.is(d.stats().memoryCapDrops, 2);
  scheduler.close();
});

test('datagrams dropped by the memory cap are in the log as drops at their arrival, as many as the summary counts', () => {
  const clock = manualClock();
  const { d, scheduler, log } = direction('downlink', clock, 10, { memoryCapBytes: 2 * 1504 });
  clock.set(1.4);
  for (let i = 0; i < 4; i++) d.push(new Uint8Array(1472), 'x'); // two held (in the delay), two refused at 1 ms
  clock.set(30);
  scheduler.runDue();
  clock.set(31.9);
  d.push(new Uint8Array(100), 'y'); // room again
  clock.set(60);
  scheduler.runDue();
  const events = log.lines.filter((l) => !l.includes('#'));
  assert.equal(events.slice(0, 2), ['1 d 1 1504', '1 d 1 1504']);
  assert.equal(events.filter((l) => / d /.test(l)).length, d.stats().memoryCapDrops);
  assert.is(d.stats().memoryCapDrops, 2);
  assert.ok(events.includes('41 + 132'), events.join('|'));
  // Log times never go back.
  const times = events.map((l) => Number(l.split(' ')[0]));
  assert.equal(times, [...times].sort((a, b) => a - b));
  scheduler.close();
});

test('arrival times: a datagram enters as of its arrival (queue admission, log, delay), and one stamped before events the link has handled counts as of the latest of them', () => {
  const clock = manualClock();
  const { d, scheduler, log } = direction('uplink', clock, 0);
  clock.set(9.7); // read late: they arrived at 2.4
  scheduler.runDue(Infinity, 2.4);
  for (let i = 0; i < 3; i++) d.push(new Uint8Array(100 * (i + 1)), 'a', 2.4);
  scheduler.runDue();
  assert.equal(log.lines.filter((l) => !l.includes('#')), ['2 + 132', '2 + 232', '2 + 332', '5 - 132 3', '5 - 232 3', '5 - 332 3']);
  for (let i = 0; i < 3; i++) d.push(new Uint8Array(1472), 'b', 9.8);
  clock.set(20);
  scheduler.runDue(); // the link has handled its opportunities up to 20
  d.push(new Uint8Array(100), 'c', 12); // stamped earlier than that: it cannot go back in link time
  assert.equal(log.lines.filter((l) => !l.includes('#')).slice(6), ['9 + 1504', '9 + 1504', '9 + 1504', '10 - 1504 1', '15 - 1504 6', '20 - 1504 11', '20 + 132']);
  scheduler.close();
});

test('defect: with the memory cap hit, a drop is never logged before departures due earlier (linkshell stats read its own log); arrivals stamped in the past included', () => {
  const clock = manualClock();
  const { d, scheduler, log } = direction('uplink', clock, 0, { memoryCapBytes: 4 * 1504 });
  const lines: string[] = [];
  // 20 Mbit/s into a link of one 1504-byte opportunity per 5 ms (2.4 Mbit/s), infinite queue, read in bursts: the cap is hit at once.
  for (let ms = 0; ms < 200; ms++) {
    if (ms % 7 === 6) {
      // The event loop gets a turn only now: everything due runs, then what waited is read, stamped when it arrived.
      clock.set(ms + 0.5);
      for (let back = 6; back >= 0; back--) {
        const at = ms - back + 0.3;
        scheduler.runDue(Infinity, at);
        for (let k = 0; k < 2; k++) d.push(new Uint8Array(1472), 'x', at);
      }
      scheduler.runDue();
    }
  }
  assert.ok(d.stats().memoryCapDrops > 100, `memory cap drops ${d.stats().memoryCapDrops}`);
  lines.push(...log.lines);
  const text = lines.map((l) => l + '\n').join('');
  const parsed = parseLinkLog(text, 'direction.log'); // throws on a time that goes back
  assert.is(parsed.count, lines.length);
  assert.equal(lines.filter((l) => / d /.test(l)).length, d.stats().memoryCapDrops);
  scheduler.close();
});

test('an empty datagram takes 32 bytes of the link, or 1 byte with no overhead, never 0', () => {
  for (const [overheadBytes, size] of [[32, 32], [0, 1]]) {
    const clock = manualClock();
    const { d, scheduler, log, delivered } = direction('uplink', clock, 0, { overheadBytes });
    d.push(new Uint8Array(0), 'empty');
    clock.set(5);
    scheduler.runDue();
    assert.equal(log.lines.filter((l) => !l.includes('#')), [`0 + ${size}`, `5 - ${size} 5`]);
    assert.equal(delivered, [[5, 0]]);
    scheduler.close();
  }
});

test.run();
