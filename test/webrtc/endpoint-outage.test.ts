// A Salsify endpoint over a trace with an outage longer than the receiver's
// old 3 s idle timeout (TMobile-UMTS-driving has such gaps): the receiver
// lives through it and shows the frames captured after it; it is stopped
// cleanly once the sender has ended. A 12 s run (model codec, 320x180),
// bounded at 2 minutes.
// test-runner: slow
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseWebrtcArgs } from '../../src/cli/webrtc-command.ts';
import { formatTrace } from '../../src/link-emu/trace-format.ts';
import { receiverIdleTimeoutS, runSalsifyEndpoint } from '../../src/webrtc/salsify-endpoint.ts';

const LIMIT_MS = 120_000;
const dir = mkdtempSync(join(tmpdir(), 'webrtc-outage-test-'));

test('an outage of 5 s: the receiver waits it out and shows what comes after', async () => {
  // 2 Mbit/s (one 1500-byte opportunity every 6 ms) over 30 s, nothing in [3 s, 8 s).
  const times: number[] = [];
  for (let t = 6; t <= 30_000; t += 6) if (t < 3000 || t >= 8000) times.push(t);
  const trace = join(dir, 'outage.trace');
  writeFileSync(trace, formatTrace({ source: 'outage', times: Float64Array.from(times), period: times[times.length - 1]! }));
  const out = join(dir, 'out');
  const args = parseWebrtcArgs(['--endpoint', 'salsify-1', '--salsify-codec', 'model', '--downlink', trace, '--uplink', 'const:2', '--video', 'synthetic', '--size', '320x180', '--duration', '12', '--out', out]);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`the run took more than ${LIMIT_MS} ms`)), LIMIT_MS);
  try {
    const { analysis } = await runSalsifyEndpoint({ ...args.salsify!, signal: controller.signal });
    // Capture starts about a second after linkshell: frames captured from 9 s of the run on came after the outage.
    const after = analysis.frames.filter((f) => f.captureMs > 9000);
    assert.ok(after.length > 60, `${after.length} frames captured after the outage`);
    const shown = after.filter((f) => f.fate === 'shown').length;
    assert.ok(shown > 0.5 * after.length, `${shown} of ${after.length} frames captured after the outage shown`);
  } finally {
    clearTimeout(timer);
  }
  const end = JSON.parse(readFileSync(join(out, 'receiver.jsonl'), 'utf8').trim().split('\n').pop()!);
  assert.is(end.type, 'end');
  assert.match(end.reason, /^signal SIGINT/, 'stopped once the sender ended, not by its idle timeout');
  assert.ok(receiverIdleTimeoutS(12, 2000) > 12 + 2, 'the idle timeout outlasts the run');
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();
