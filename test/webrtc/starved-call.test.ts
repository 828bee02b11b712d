// A call starved of CPU is marked invalid, for the CPU pressure its processes met: two busy
// processes at a higher priority (nice -5, as root; otherwise the same priority) run beside a short
// Chromium call on this 2-core machine. Bounded at 5 minutes; the busy processes end with the test.
// test-runner: alone (its busy processes, at a higher priority, would starve every test running beside it)
import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requires } from '../helpers/requires.ts';
import * as assert from 'uvu/assert';
import { VALIDITY_BOUNDS } from '../../src/results/validity.ts';
import { runShortCall } from './short-call.ts';

const test = requires(['chromium', 'coturn']);
const dir = mkdtempSync(join(tmpdir(), 'webrtc-starved-test-'));
const hogs: ChildProcess[] = [];
test.after(() => {
  for (const hog of hogs) hog.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

test('a call beside busy processes at a higher priority is invalid, for CPU pressure', async () => {
  const higher = process.getuid?.() === 0 ? ['-n', '-5'] : ['-n', '0'];
  for (let i = 0; i < availableParallelism(); i++) hogs.push(spawn('nice', [...higher, 'sh', '-c', 'while :; do :; done'], { stdio: 'ignore' }));
  const result = await runShortCall(dir, { rateMbps: 2, codec: 'vp8', durationS: 8, limitMs: 300_000 });
  assert.is(result.validity.verdict, 'invalid');
  assert.ok(result.validity.reasons.some((r) => r.startsWith('CPU pressure')), result.validity.reasons.join('; '));
  assert.ok(Number(result.validity.figures.cpuPressure) > VALIDITY_BOUNDS.cpuPressure, `CPU pressure ${result.validity.figures.cpuPressure}`);
});

test.run();
