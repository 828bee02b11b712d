// The page server serves the two pages and takes their posts; the pages name their icon inline, so a
// browser asks for nothing else (each call used to log a 404 for /favicon.ico), and anything else
// asked for is recorded.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startPageServer } from '../../src/webrtc/page-server.ts';

test('both pages carry an inline icon; an unknown path is answered 404 and recorded', async () => {
  const server = await startPageServer(() => {});
  try {
    for (const page of ['/sender.html', '/receiver.html']) {
      const response = await fetch(server.origin + page);
      assert.is(response.status, 200);
      assert.match(await response.text(), /<link rel="icon" href="data:,">/);
    }
    assert.equal(server.notFound, []);
    assert.is((await fetch(server.origin + '/favicon.ico')).status, 404);
    assert.equal(server.notFound, ['GET /favicon.ico']);
  } finally {
    await server.close();
  }
});

test("with a camera, GET /camera/K serves the clip's frame K (Firefox's sender page draws them); past the clip or without a camera, 404", async () => {
  const frame = (k: number) => Uint8Array.from({ length: 6 }, (_, i) => k * 10 + i);
  const server = await startPageServer(() => {}, { frameCount: 3, frame: async (k) => frame(k) });
  const plain = await startPageServer(() => {});
  try {
    const response = await fetch(server.origin + '/camera/2');
    assert.is(response.status, 200);
    assert.equal(new Uint8Array(await response.arrayBuffer()), frame(2));
    assert.is((await fetch(server.origin + '/camera/3')).status, 404);
    assert.equal(server.notFound, ['GET /camera/3']);
    assert.is((await fetch(plain.origin + '/camera/0')).status, 404);
  } finally {
    await server.close();
    await plain.close();
  }
});

test.run();
