import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chooseEncoding } from '../../src/salsify/choose-encoding.ts';
import { adjustConventionalQuantizer, candidateQuantizers, clampQuantizer } from '../../src/salsify/quantizer.ts';
import { pacingIntervalMs } from '../../src/salsify/pacer.ts';

test('the two candidate quantizers step -17 and +23 from the last sent, clamped to 0..127', () => {
  assert.equal(candidateQuantizers(64), { better: 47, worse: 87 });
  assert.equal(candidateQuantizers(10), { better: 0, worse: 33 });
  assert.equal(candidateQuantizers(120), { better: 103, worse: 127 });
  assert.equal(candidateQuantizers(0), { better: 0, worse: 23 });
  assert.is(clampQuantizer(-5), 0);
  assert.is(clampQuantizer(200), 127);
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

test('pacer interval: a fifth of the inter-arrival estimate, within 0.5..2 ms', () => {
  assert.is(pacingIntervalMs(5), 1);
  assert.is(pacingIntervalMs(1), 0.5);
  assert.is(pacingIntervalMs(50), 2);
  assert.is(pacingIntervalMs(undefined), 2);
});

test('conventional quantizer: 12 steps per doubling of the overshoot, clamped', () => {
  assert.is(adjustConventionalQuantizer(40, 8000, 4000), 52);
  assert.is(adjustConventionalQuantizer(40, 2000, 4000), 28);
  assert.is(adjustConventionalQuantizer(40, 4000, 4000), 40);
  assert.is(adjustConventionalQuantizer(120, 1e6, 1), 127);
  assert.is(adjustConventionalQuantizer(40, 0, 4000), 40);
  assert.is(adjustConventionalQuantizer(40, 100, 0), 127);
});

test.run();
