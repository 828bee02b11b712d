import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { recorded } from './interval.ts';

test('fails', async () => {
  await recorded('b-fails');
  assert.is(1 + 1, 3, 'fixture failure');
});
test('passes', () => {});
test.run();
