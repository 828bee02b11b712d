// A FIFO or a directory where a command wants an input file, and an output
// file in a missing directory: one line naming it and exit 2, checked before
// anything is read or run (reading a FIFO used to wait for a writer for ever).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HANG_BOUND_MS } from '../helpers/bounds.ts';

const root = join(import.meta.dirname, '../..');
const work = mkdtempSync(join(tmpdir(), 'special-inputs-'));
const fifo = join(work, 'fifo.log');
execFileSync('mkfifo', [fifo]);
const dir = join(work, 'dir.log');
mkdirSync(dir);
const trace = join(work, 'one.trace');
writeFileSync(trace, '1\n');

function run(bin: 'linkshell' | 'salsify', ...args: string[]) {
  // Bounded: before the check, a FIFO blocked the read until killed.
  const r = spawnSync(process.execPath, [join(root, 'bin', `${bin}.js`), ...args], { cwd: root, encoding: 'utf8', timeout: HANG_BOUND_MS });
  return { status: r.status, stderr: r.stderr, signal: r.signal };
}

test('linkshell stats and replay: a FIFO or a directory as the input log', () => {
  for (const [path, what] of [[fifo, 'a FIFO'], [dir, 'a directory']] as const) {
    for (const [args, prefix] of [
      [['stats', path], 'linkshell stats'],
      [['replay', '--log-in', path, '--trace', trace], 'linkshell replay'],
    ] as const) {
      const r = run('linkshell', ...args);
      assert.is(r.signal, null, `${args.join(' ')} hung`);
      assert.is(r.status, 2, r.stderr);
      assert.is(r.stderr, `${prefix}: cannot read ${path}: is ${what}${what === 'a FIFO' ? ' (named pipe)' : ''}\n`);
    }
  }
});

test('salsify sim: an output file in a missing directory is refused before the run', () => {
  const missing = join(work, 'no-dir', 'out.json');
  const sim = run('salsify', 'sim', '--downlink', 'const:2', '--uplink', 'const:2', '--duration', '600', '--json', missing);
  assert.is(sim.status, 2, sim.stderr);
  assert.is(sim.stderr, `salsify sim: --json: cannot write ${missing}: its directory ${join(work, 'no-dir')} does not exist\n`);
});

test.after(() => rmSync(work, { recursive: true, force: true }));

test.run();
