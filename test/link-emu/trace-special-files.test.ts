// A FIFO, a directory or a socket given as a trace: named for what it is
// (it used to be "not found"), and never opened (a FIFO would block the read).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorCodeOf } from '../../src/common/errors.ts';
import { loadTrace, loadTraceAsync, openTrace, resolveTraceName } from '../../src/link-emu/trace-files.ts';

const root = mkdtempSync(join(tmpdir(), 'trace-special-'));
const fifo = join(root, 'fifo.trace');
execFileSync('mkfifo', [fifo]);
const dir = join(root, 'dir.trace');
mkdirSync(dir);
const options = { cwd: root, env: {}, mahimahiDir: join(root, 'none') };

test('a FIFO or a directory named on a command line: what it is, code ERR_UNREADABLE_FILE', () => {
  for (const [path, what] of [[fifo, 'a FIFO (named pipe)'], [dir, 'a directory']] as const) {
    for (const name of [path, path.slice(root.length + 1)]) {
      try {
        openTrace(name, options);
        assert.unreachable(`${name} opened`);
      } catch (error) {
        assert.is(errorCodeOf(error), 'ERR_UNREADABLE_FILE');
        assert.ok((error as Error).message.includes(`${path} is ${what}, not a trace file`), (error as Error).message);
        assert.not.match((error as Error).message, /not found|\n/);
      }
    }
  }
});

test('loadTrace of a FIFO fails at once instead of waiting for a writer', async () => {
  assert.throws(() => loadTrace(fifo), /cannot read trace file .*fifo\.trace: is a FIFO/);
  try {
    await loadTraceAsync(fifo);
    assert.unreachable();
  } catch (error) {
    assert.match((error as Error).message, /is a FIFO/);
  }
});

test('a regular file later in the search order still wins over a directory earlier', () => {
  mkdirSync(join(root, 'traces'));
  mkdirSync(join(root, 'both'));
  writeFileSync(join(root, 'traces', 'both'), '1\n');
  assert.is(resolveTraceName('both', options), join(root, 'traces', 'both'));
});

test.after(() => rmSync(root, { recursive: true, force: true }));

test.run();
