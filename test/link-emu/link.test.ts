import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PacketTooLargeError, TraceLink } from '../../src/link-emu/link.ts';
import { LinkLogWriter } from '../../src/link-emu/link-log.ts';
import { createQueue } from '../../src/link-emu/queue-factory.ts';
import { createRng } from '../../src/common/random.ts';
import { parseTrace } from '../../src/link-emu/trace-parse.ts';

function makeLink(traceText: string, options: { once?: boolean; mtu?: number; queue?: string; args?: string; log?: boolean } = {}) {
  let logText = '';
  const writer = options.log ? new LinkLogWriter((c) => (logText += c)) : undefined;
  const link = new TraceLink<string>({
    trace: parseTrace(traceText, 'test.trace'),
    queue: createQueue<string>(options.queue ?? 'infinite', options.args ?? '', createRng(1)),
    mtu: options.mtu,
    once: options.once,
    baseTimestamp: 0,
    events: writer,
  });
  const departures: Array<[string, number]> = [];
  const onDeparture = (p: { payload: string }, t: number) => departures.push([p.payload, t]);
  return {
    link,
    departures,
    arrive: (t: number, size: number, name: string) => link.arrive(t, size, name, onDeparture),
    advance: (t: number) => link.advanceTo(t, onDeparture),
    log: () => {
      writer?.flush();
      return logText;
    },
  };
}

test('a packet departs at the first opportunity after it arrives, never at its arrival millisecond', () => {
  const l = makeLink('10\n');
  l.arrive(0, 1500, 'a');
  l.arrive(10, 1500, 'b'); // the opportunity at 10 is used before b is queued
  l.advance(100);
  assert.equal(l.departures, [['a', 10], ['b', 20]]);
});

test('opportunities are byte-granular: a packet spans opportunities and leaves with its last byte', () => {
  const l = makeLink('10\n');
  l.arrive(0, 1000, 'a');
  l.arrive(0, 1000, 'b');
  l.arrive(0, 1504, 'c');
  l.advance(100);
  // 10: a(1000) + 504 of b; 20: 496 of b + 1008 of c; 30: 496 of c.
  assert.equal(l.departures, [['a', 10], ['b', 20], ['c', 30]]);
});

test('the unused bytes of an opportunity are lost', () => {
  const l = makeLink('10\n');
  l.arrive(0, 100, 'a');
  l.advance(12);
  l.arrive(12, 100, 'b'); // the opportunity at 10 went out with 1404 bytes unused
  l.advance(100);
  assert.equal(l.departures, [['a', 10], ['b', 20]]);
});

test('repeated timestamps are several opportunities in the same millisecond', () => {
  const l = makeLink('5\n5\n5\n10\n');
  for (const name of ['a', 'b', 'c', 'd']) l.arrive(1, 1504, name);
  l.advance(100);
  assert.equal(l.departures, [['a', 5], ['b', 5], ['c', 5], ['d', 10]]);
});

test('the trace repeats with its last timestamp as period, across the boundary', () => {
  const l = makeLink('0\n7\n10\n');
  // Opportunities: 0, 7, 10, then 10 (=10+0), 17, 20, then 20, 27, 30 ...
  for (const name of ['a', 'b', 'c', 'd', 'e', 'f']) l.arrive(1, 1504, name);
  l.advance(100);
  assert.equal(l.departures, [['a', 7], ['b', 10], ['c', 10], ['d', 17], ['e', 20], ['f', 20]]);
  // advance(100) used 100 (end of the pass from 90) and 100 (start of the pass from 100).
  assert.is(l.link.nextOpportunity(), 107);
});

test('with once the link stops delivering when the trace ends', () => {
  const l = makeLink('5\n10\n', { once: true });
  for (const name of ['a', 'b', 'c']) l.arrive(0, 1504, name);
  l.advance(1000);
  assert.equal(l.departures, [['a', 5], ['b', 10]]);
  assert.ok(l.link.isFinished());
  assert.is(l.link.nextOpportunity(), Infinity);
  assert.is(l.link.backlogBytes(), 1504);
});

test('a packet larger than the MTU is refused with an error naming both sizes', () => {
  const l = makeLink('10\n', { mtu: 1000 });
  assert.throws(() => l.arrive(0, 1001, 'big'), (e: unknown) => e instanceof PacketTooLargeError && /1001 bytes.*1000 bytes/.test((e as Error).message));
  l.arrive(0, 1000, 'ok');
  l.advance(10);
  assert.equal(l.departures, [['ok', 10]]);
});

test('drops are logged after the arrival that caused them, as mm-link does', () => {
  const l = makeLink('10\n', { queue: 'droptail', args: 'packets=1', log: true });
  l.arrive(1, 100, 'a');
  l.arrive(2, 200, 'b');
  l.advance(10);
  assert.is(l.log(), '1 + 100\n2 + 200\n2 d 1 200\n10 # 1504\n10 - 100 9\n');
});

test('skipping idle opportunities gives the same departures as walking through them', () => {
  const rng = createRng('idle-skip');
  const times: number[] = [];
  let t = 0;
  for (let i = 0; i < 300; i++) {
    t += rng.int(4);
    times.push(t);
  }
  times.push(t + 1);
  const trace = times.join('\n') + '\n';
  for (const once of [false, true]) {
    const logged = makeLink(trace, { once, log: true });
    const silent = makeLink(trace, { once });
    let now = 0;
    for (let i = 0; i < 2000; i++) {
      now += rng.int(3) === 0 ? rng.int(400) : rng.int(3);
      const size = 1 + rng.int(1504);
      logged.arrive(now, size, String(i));
      silent.arrive(now, size, String(i));
    }
    logged.advance(now + 10_000);
    silent.advance(now + 10_000);
    assert.ok(logged.departures.length > (once ? 3 : 1000), `${logged.departures.length} departures (once: ${once})`);
    assert.equal(silent.departures, logged.departures);
    assert.is(silent.link.counters().opportunities, logged.link.counters().opportunities);
  }
});

test.run();
