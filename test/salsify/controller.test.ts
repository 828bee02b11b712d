import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chooseEncoding, chooseLargestFitting } from '../../src/salsify/choose-encoding.ts';
import { candidateQuantizers, clampQuantizer, stepQuantizer } from '../../src/salsify/quantizer.ts';
import { pacingGapUs } from '../../src/salsify/pacer.ts';

test('the two candidate quantizers step -17 and +23 from the last sent, clamped to 3..127 as the reference does', () => {
  assert.equal(candidateQuantizers(64), { better: 47, worse: 87 });
  assert.equal(candidateQuantizers(10), { better: 3, worse: 33 });
  assert.equal(candidateQuantizers(20), { better: 3, worse: 43 });
  assert.equal(candidateQuantizers(21), { better: 4, worse: 44 });
  assert.equal(candidateQuantizers(120), { better: 103, worse: 127 });
  assert.equal(candidateQuantizers(3), { better: 3, worse: 26 });
  assert.is(stepQuantizer(5, -10), 3);
  assert.is(stepQuantizer(126, 5), 127);
  assert.is(clampQuantizer(-5), 0);
  assert.is(clampQuantizer(200), 127);
});

test('choice among any number of encodings: the largest that fits, the first of equal ones; else skip, or the last after maxSkips', () => {
  assert.is(chooseLargestFitting([5000, 3000, 7000, 100], 6000, 0), 0);
  assert.is(chooseLargestFitting([5000, 3000, 7000, 100], 7000, 0), 2);
  assert.is(chooseLargestFitting([5000, 5000, 100], 6000, 0), 0);
  assert.is(chooseLargestFitting([5000, 3000, 7000, 100], 99, 2), 'skip');
  assert.is(chooseLargestFitting([5000, 3000, 7000, 100], 99, 3), 3);
  assert.is(chooseLargestFitting([5000, 3000, 7000, 100], Infinity, 0), 2);
  assert.throws(() => chooseLargestFitting([], 1, 0), /no encoding/);
});

test('choice: the larger encoding that fits, else the smaller, else skip', () => {
  assert.is(chooseEncoding({ betterBytes: 9000, worseBytes: 3000, targetBytes: 10000, skipsInARow: 0 }), 'better');
  assert.is(chooseEncoding({ betterBytes: 9000, worseBytes: 3000, targetBytes: 9000, skipsInARow: 0 }), 'better');
  assert.is(chooseEncoding({ betterBytes: 9000, worseBytes: 3000, targetBytes: 8999, skipsInARow: 0 }), 'worse');
  assert.is(chooseEncoding({ betterBytes: 9000, worseBytes: 3000, targetBytes: 2999, skipsInARow: 0 }), 'skip');
  assert.is(chooseEncoding({ betterBytes: 9000, worseBytes: 3000, targetBytes: 0, skipsInARow: 2 }), 'skip');
  // a codec whose "worse" came out larger: the larger that fits is chosen
  assert.is(chooseEncoding({ betterBytes: 3000, worseBytes: 3500, targetBytes: 4000, skipsInARow: 0 }), 'worse');
});

test('skip rule: after 3 skips in a row the worse encoding is sent anyway', () => {
  let skips = 0;
  const out: string[] = [];
  for (let i = 0; i < 9; i++) {
    const c = chooseEncoding({ betterBytes: 9000, worseBytes: 3000, targetBytes: 0, skipsInARow: skips });
    out.push(c);
    skips = c === 'skip' ? skips + 1 : 0;
  }
  assert.equal(out, ['skip', 'skip', 'skip', 'worse', 'skip', 'skip', 'skip', 'worse', 'skip']);
  assert.is(chooseEncoding({ betterBytes: 9, worseBytes: 3, targetBytes: 0, skipsInARow: 1, maxSkips: 1 }), 'worse');
});

test('pacing gap: min(2000, max(500, floor(estimate / 5))) us, 2000 before any estimate', () => {
  assert.is(pacingGapUs(5000), 1000);
  assert.is(pacingGapUs(5004), 1000); // floored: 1000.8
  assert.is(pacingGapUs(2499), 500); // 499.8 -> 499 -> the lower bound
  assert.is(pacingGapUs(2500), 500);
  assert.is(pacingGapUs(2505), 501);
  assert.is(pacingGapUs(0), 500);
  assert.is(pacingGapUs(9999), 1999);
  assert.is(pacingGapUs(10_000), 2000);
  assert.is(pacingGapUs(50_000), 2000);
  assert.is(pacingGapUs(undefined), 2000);
});

test.run();
