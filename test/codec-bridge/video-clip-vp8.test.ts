// The IVF clip source with the real VP8 stream decoder on the shared clip.
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createStreamDecoder } from '../../src/codec-bridge/stream-decoder.ts';
import { openIvfClipSource } from '../../src/codec-bridge/video/clip-source.ts';
import { i420Size } from '../../src/codec-bridge/video/i420.ts';
import { openIvfReader } from '../../src/codec-bridge/video/ivf.ts';

const FOUR_PEOPLE = '../shared/video/FourPeople_1280x720_60.ivf';
const FRAMES = 12;

test('IVF clip source decodes the FourPeople clip in order with the VP8 decoder and loops it', async () => {
  // Frames are decoded on demand, so asking for the first FRAMES frames decodes just those.
  const decoder = createStreamDecoder();
  const decoded: number[] = [];
  const source = await openIvfClipSource(FOUR_PEOPLE, (frame, header) => {
    assert.equal([header.width, header.height], [1280, 720]);
    decoded.push(frame.index);
    return decoder.decode(frame);
  });
  assert.equal([source.width, source.height, source.fps, source.frameCount], [1280, 720, 60, 601]);
  const pictures = [];
  for (let i = 0; i < FRAMES; i++) pictures.push(await source.frame(i));
  assert.equal(decoded, Array.from({ length: FRAMES }, (_, i) => i), 'each frame decoded once, in order');
  for (const [i, picture] of pictures.entries()) {
    assert.is(picture.data.length, i420Size(1280, 720));
    let sum = 0;
    let squares = 0;
    for (let p = 0; p < 1280 * 720; p++) {
      sum += picture.data[p];
      squares += picture.data[p] * picture.data[p];
    }
    const mean = sum / (1280 * 720);
    assert.ok(Math.sqrt(squares / (1280 * 720) - mean * mean) > 20, `frame ${i} has content`);
    if (i > 0) {
      let change = 0;
      for (let p = 0; p < 1280 * 720; p++) change += Math.abs(picture.data[p] - pictures[i - 1].data[p]);
      assert.ok(change / (1280 * 720) < 5, `frame ${i} continues frame ${i - 1}`);
    }
  }
  // Frames come back identical from the cache, whatever the order.
  const again = await source.frame(5);
  assert.ok(Buffer.from(again.data).equals(Buffer.from(pictures[5].data)));
  assert.is(decoded.length, FRAMES);
  await source.close();
});

test('the VP8 stream decoder and the IVF reader agree on a stream source too', async () => {
  // Read the first frames through a Readable (the streaming path) and decode them.
  const bytes = readFileSync(FOUR_PEOPLE);
  const reader = await openIvfReader(Readable.from([bytes.subarray(0, 200_000), bytes.subarray(200_000, 400_000)]), { name: 'head.ivf' });
  const decoder = createStreamDecoder();
  let frames = 0;
  try {
    for await (const frame of reader) {
      const picture = await decoder.decode(frame);
      assert.equal([picture.width, picture.height], [1280, 720]);
      frames++;
    }
    assert.unreachable('the cut stream must end in a truncated frame');
  } catch (error) {
    assert.match((error as Error).message, /^head\.ivf: frame \d+ is truncated: \d+ of \d+ bytes/);
  }
  assert.ok(frames >= 1, `decoded ${frames} frames before the cut`);
});

test.run();
