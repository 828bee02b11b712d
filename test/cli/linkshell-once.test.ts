// linkshell --once ends the run when the trace ends, as mm-link's shell does
// (its ferry exits once the link has used its last opportunity): the COMMAND
// is stopped and linkshell exits 0.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'linkshell-once-'));
const trace = join(dir, 'short.trace');
// One opportunity per ms for 400 ms, then the trace ends.
writeFileSync(trace, Array.from({ length: 400 }, (_, i) => String(i + 1)).join('\n') + '\n');

test('--once: the run and its COMMAND end with the trace; without it the COMMAND decides', () => {
  const started = Date.now();
  const r = spawnSync(process.execPath, [join(root, 'bin', 'linkshell.js'), trace, trace, '--connect', '127.0.0.1:9', '--once', '--', 'sleep', '30'], { encoding: 'utf8', timeout: 25_000 });
  const took = Date.now() - started;
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stderr, /linkshell: the trace ended \(--once\) after 400 ms: stopping\n/);
  assert.ok(took < 20_000, `${took} ms`);
  const plain = spawnSync(process.execPath, [join(root, 'bin', 'linkshell.js'), trace, trace, '--connect', '127.0.0.1:9', '--', 'sh', '-c', 'sleep 1; exit 3'], { encoding: 'utf8', timeout: 25_000 });
  assert.is(plain.status, 3, plain.stderr);
  assert.not.match(plain.stderr, /trace ended/);
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();
