// Temporary directories of calls whose process is gone are removed at the next call's start;
// those of live processes, and young ones without an owner in their name, stay.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ownedTempPrefix, processAlive, removeStaleTempDirs } from '../../src/webrtc/stale-temp.ts';

test('owned directories go when their process is dead; unowned ones when a day old; others stay', () => {
  const dir = mkdtempSync(join(tmpdir(), 'stale-temp-test-'));
  try {
    const names = ['salsify-webrtc-111-abc', 'salsify-webrtc-222-sender-abc', 'salsify-endpoint-111-xyz', 'salsify-webrtc-oldAbc', 'salsify-webrtc-youngA', 'unrelated-111-abc'];
    for (const name of names) mkdirSync(join(dir, name));
    const dayAgo = new Date(Date.now() - 25 * 3600 * 1000);
    utimesSync(join(dir, 'salsify-webrtc-oldAbc'), dayAgo, dayAgo);
    const removed = removeStaleTempDirs(dir, Date.now(), (pid) => pid === 222);
    assert.equal(removed.sort(), ['salsify-endpoint-111-xyz', 'salsify-webrtc-111-abc', 'salsify-webrtc-oldAbc']);
    assert.equal(readdirSync(dir).sort(), ['salsify-webrtc-222-sender-abc', 'salsify-webrtc-youngA', 'unrelated-111-abc']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the prefix names this process, and this process is alive', () => {
  assert.is(ownedTempPrefix('webrtc'), `salsify-webrtc-${process.pid}-`);
  assert.is(ownedTempPrefix('webrtc', 'sender'), `salsify-webrtc-${process.pid}-sender-`);
  assert.ok(processAlive(process.pid));
});

test.run();
