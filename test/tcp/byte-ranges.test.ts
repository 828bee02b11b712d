import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { insertByteRange, type ByteRange } from '../../src/tcp/byte-ranges.ts';

test('a range joins the ranges it overlaps or touches, and the list stays sorted and disjoint', () => {
  const ranges: ByteRange[] = [];
  assert.equal(insertByteRange(ranges, 100, 200), [100, 200]);
  assert.equal(insertByteRange(ranges, 300, 400), [300, 400]);
  assert.equal(insertByteRange(ranges, 0, 50), [0, 50]);
  assert.equal(ranges, [[0, 50], [100, 200], [300, 400]]);
  // touching on the left end, overlapping on the right one: all three merge
  assert.equal(insertByteRange(ranges, 200, 350), [100, 400]);
  assert.equal(ranges, [[0, 50], [100, 400]]);
  // inside an existing range: nothing changes but the answer
  assert.equal(insertByteRange(ranges, 120, 130), [100, 400]);
  assert.equal(ranges, [[0, 50], [100, 400]]);
  // spanning everything
  assert.equal(insertByteRange(ranges, 0, 1000), [0, 1000]);
  assert.equal(ranges, [[0, 1000]]);
});

test.run();
