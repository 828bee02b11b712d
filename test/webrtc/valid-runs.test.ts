// The benches' reruns (bench/valid-runs.ts): an invalid call is discarded and
// run again up to --attempts times, never kept; failures and calls without a
// verdict count as discarded; the report says how many and why; runs whose
// media started more than a frame interval apart are not side by side.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sameTraceStart, takeAttempts, ValidRuns } from '../../bench/valid-runs.ts';
import type { Validity } from '../../src/results/validity.ts';

const valid: Validity = { verdict: 'valid', reasons: [], figures: {} };
const starved: Validity = { verdict: 'invalid', reasons: ['CPU pressure: some task waited for a CPU 40.0 % of the time (bound 10.0 %)'], figures: {} };

test('an invalid call is run again until one is valid; the valid one is kept and the others reported with their reasons', async () => {
  const lines: string[] = [];
  const runs = new ValidRuns(3, (l) => lines.push(l));
  const verdicts = [starved, undefined, valid];
  const tried: number[] = [];
  const kept = await runs.firstValid('att-lte:vp8 #1', (attempt) => {
    tried.push(attempt);
    return verdicts[attempt - 1] === undefined ? undefined : { attempt, validity: verdicts[attempt - 1]! };
  }, (r) => r.validity);
  assert.equal(tried, [1, 2, 3]);
  assert.is(kept?.attempt, 3);
  assert.equal(runs.discarded.map((d) => [d.attempt, d.reasons]), [[1, starved.reasons], [2, ['the call failed']]]);
  assert.match(runs.report(), /discarded 2 of 3 call\(s\)/);
  assert.match(runs.report(), /att-lte:vp8 #1, attempt 1: CPU pressure/);
});

test('no valid call in the attempts: nothing is kept; a result without a verdict is not trusted', async () => {
  const runs = new ValidRuns(2, () => {});
  assert.is(await runs.firstValid('x', () => ({ validity: starved }), (r) => r.validity), undefined);
  assert.is(await runs.firstValid('y', () => ({}), () => undefined), undefined);
  assert.is(runs.discarded.length, 4);
  assert.equal(runs.discarded[2]!.reasons, ['no validity verdict in its results']);
  const once = new ValidRuns(1, () => {});
  assert.ok(await once.firstValid('z', () => ({ validity: valid }), (r) => r.validity));
  assert.match(once.report(), /discarded 0 of 1 call/);
});

test('--attempts N is taken out of the arguments wherever it stands; a bad N names it', () => {
  assert.equal(takeAttempts(['120', '--attempts', '5', '2']), { attempts: 5, rest: ['120', '2'] });
  assert.equal(takeAttempts(['report']), { attempts: 3, rest: ['report'] });
  assert.throws(() => takeAttempts(['--attempts', '0']), /--attempts must be an integer from 1 to 100, got "0"/);
  assert.throws(() => takeAttempts(['--attempts']), /got undefined/);
});

test('side by side: media starts within one frame interval of each other; a run without the figure never is', () => {
  assert.ok(sameTraceStart(12, 12.033, 30));
  assert.not.ok(sameTraceStart(12, 12.034, 30));
  assert.not.ok(sameTraceStart(12, null, 30));
  assert.not.ok(sameTraceStart(undefined, 12, 30));
});

test.run();
