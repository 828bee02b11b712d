// The progress display's estimate of what is left (estimateLeftS, pure), and
// the display itself driven by a clock of the test's own: quiet where there is
// no terminal, except for eval's lines.
import { Writable } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { estimateLeftS, WorkProgress } from '../../src/eval/progress.ts';

const near = (actual: number, expected: number, what: string) => assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: ${actual}, expected ${expected}`);

test('equal items on two workers: what is left divided between them', () => {
  // Two of four 10-unit items done, 10 s each: 1 s a unit; two left, on two workers: 10 s.
  near(estimateLeftS({ done: [{ units: 10, wallS: 10 }, { units: 10, wallS: 10 }], running: [], pending: [10, 10], workers: 2 }), 10, 'two left');
  // Nothing left.
  assert.is(estimateLeftS({ done: [{ units: 10, wallS: 10 }], running: [], pending: [], workers: 2 }), 0);
  // Nothing measured yet.
  assert.ok(Number.isNaN(estimateLeftS({ done: [], running: [{ units: 10, progressUnits: 0, elapsedS: 3 }], pending: [10], workers: 2 })));
});

test('the last items run on fewer workers than there are: no parallelism that cannot happen', () => {
  // One 10-unit item left, 8 workers: it takes its own 10 s, not 10 / 8.
  near(estimateLeftS({ done: [{ units: 10, wallS: 10 }], running: [], pending: [10], workers: 8 }), 10, 'one item, eight workers');
  // One long item among short ones: never less than the longest.
  near(estimateLeftS({ done: [{ units: 1, wallS: 1 }], running: [], pending: [1, 1, 1, 20], workers: 4 }), 20, 'the longest item bounds it');
});

test("running items' elapsed time counts: a machine that slows down shows in the estimate at once", () => {
  const done = [{ units: 10, wallS: 10 }, { units: 10, wallS: 10 }];
  const steady = estimateLeftS({ done, running: [{ units: 10, progressUnits: 5, elapsedS: 5 }, { units: 10, progressUnits: 5, elapsedS: 5 }], pending: [10, 10], workers: 2 });
  near(steady, 15, 'at the rate of the finished ones');
  // The same progress, taking four times as long (the machine got loaded): the estimate grows.
  const loaded = estimateLeftS({ done, running: [{ units: 10, progressUnits: 5, elapsedS: 20 }, { units: 10, progressUnits: 5, elapsedS: 20 }], pending: [10, 10], workers: 2 });
  assert.ok(loaded > 2 * steady, `${loaded} vs ${steady}`);
  // A running item is not assumed to catch up: at its own rate, 5 more units take 20 s.
  assert.ok(loaded >= 20);
});

test("a running item past its measured length (its progress complete, its tail still working) is not 'done': its elapsed time still raises the rate", () => {
  const before = estimateLeftS({ done: [{ units: 10, wallS: 10 }], running: [{ units: 10, progressUnits: 10, elapsedS: 10 }], pending: [10], workers: 2 });
  const later = estimateLeftS({ done: [{ units: 10, wallS: 10 }], running: [{ units: 10, progressUnits: 10, elapsedS: 40 }], pending: [10], workers: 2 });
  assert.ok(later > before, `${later} vs ${before}`);
});

test('the display: nothing where there is no terminal; eval: one line per finished item with the estimate', () => {
  const written: string[] = [];
  const sink = new Writable({ write(chunk, _e, done) { written.push(String(chunk)); done(); } });
  let now = 0;
  const items = [{ key: 1, label: 'a', units: 10 }, { key: 2, label: 'b', units: 10 }];
  const quiet = new WorkProgress(sink, items, { unit: 's', now: () => now });
  quiet.started(1);
  now = 10_000;
  quiet.done(1);
  quiet.finish();
  assert.equal(written, []);
  const lines = new WorkProgress(sink, items, { unit: 's', lines: true, workers: 1, now: () => now });
  lines.started(1);
  now = 20_000;
  lines.done(1);
  assert.equal(written, ['[1/2] a done (0 running, elapsed 10 s, about 10 s left)\n']);
  assert.match(lines.summary(), /^items 1\/2 done, 0 running \| elapsed 10 s \| about 10 s left$/);
});

test.run();
