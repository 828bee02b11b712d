import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { modelEncodeMs } from '../../src/codec-bridge/encode-time-model.ts';

test('encode-time model: calibration points, monotone in quantizer and size', () => {
  assert.ok(Math.abs(modelEncodeMs(1280, 720, 64) - 3.75) < 1e-9);
  assert.ok(Math.abs(modelEncodeMs(1280, 720, 127) - 3.17) < 1e-9);
  for (let q = 1; q <= 127; q++) assert.ok(modelEncodeMs(1280, 720, q) <= modelEncodeMs(1280, 720, q - 1));
  assert.ok(modelEncodeMs(640, 360, 40) < modelEncodeMs(1280, 720, 40) / 3);
  assert.ok(Math.abs(modelEncodeMs(640, 360, 24) - 1.3) < 0.13, 'within 10% of the 640x360 measurement');
});

test('encode-time model: bad arguments', () => {
  assert.throws(() => modelEncodeMs(0, 720, 10), /width and height must be positive/);
  assert.throws(() => modelEncodeMs(1280, 720, 128), /quantizer must be in 0\.\.127/);
  assert.throws(() => modelEncodeMs(1280, Number.NaN, 10), /positive/);
});

test.run();
