import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, readFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  loadTrace,
  loadTraceAsync,
  openTrace,
  resolveTraceName,
  traceCandidates,
  writeTrace,
  MAHIMAHI_TRACE_DIR,
} from '../../src/link-emu/trace-files.ts';
import { assertValidTrace, formatTrace } from '../../src/link-emu/trace-format.ts';
import { parseTrace, TraceFormatError } from '../../src/link-emu/trace-parse.ts';

const root = mkdtempSync(join(tmpdir(), 'trace-files-'));
const cwd = join(root, 'work');
const envDir = join(root, 'env-traces');
const mahimahiDir = join(root, 'mahimahi-traces');
for (const dir of [cwd, join(cwd, 'traces'), envDir, mahimahiDir]) mkdirSync(dir, { recursive: true });

function put(path: string, text: string): string {
  writeFileSync(path, text);
  return path;
}

const env = { LINKSHELL_TRACES: envDir };
const opts = { cwd, env, mahimahiDir };

test('lookup order: path, ./traces, $LINKSHELL_TRACES, Mahimahi directory', () => {
  put(join(mahimahiDir, 'a.trace'), '4\n');
  assert.is(resolveTraceName('a.trace', opts), join(mahimahiDir, 'a.trace'));
  put(join(envDir, 'a.trace'), '3\n');
  assert.is(resolveTraceName('a.trace', opts), join(envDir, 'a.trace'));
  put(join(cwd, 'traces', 'a.trace'), '2\n');
  assert.is(resolveTraceName('a.trace', opts), join(cwd, 'traces', 'a.trace'));
  put(join(cwd, 'a.trace'), '1\n');
  assert.is(resolveTraceName('a.trace', opts), join(cwd, 'a.trace'));
  assert.is(openTrace('a.trace', opts).period, 1);
});

test('a directory of the same name is skipped; relative env dirs are taken from cwd', () => {
  mkdirSync(join(cwd, 'b.trace'));
  put(join(envDir, 'b.trace'), '5\n');
  assert.is(resolveTraceName('b.trace', opts), join(envDir, 'b.trace'));
  assert.is(resolveTraceName('b.trace', { cwd, env: { LINKSHELL_TRACES: '../env-traces' }, mahimahiDir }), join(envDir, 'b.trace'));
});

test('absolute names are only themselves; ../shared/traces comes before the default Mahimahi directories, a source build\'s, then a package\'s', () => {
  assert.equal(traceCandidates('/x/y.trace', opts), ['/x/y.trace']);
  assert.equal(traceCandidates('y', { cwd, env: {} }), [
    join(cwd, 'y'),
    join(cwd, 'traces', 'y'),
    join(cwd, '..', 'shared', 'traces', 'y'),
    '/usr/local/share/mahimahi/traces/y',
    join(MAHIMAHI_TRACE_DIR, 'y'),
  ]);
  assert.is(MAHIMAHI_TRACE_DIR, '/usr/share/mahimahi/traces');
});

test('a bare name is found in a source-built Mahimahi\'s directory before a package\'s', () => {
  const sourceDir = join(root, 'usr-local-mahimahi');
  const packageDir = join(root, 'usr-mahimahi');
  for (const dir of [sourceDir, packageDir]) mkdirSync(dir, { recursive: true });
  put(join(packageDir, 'c.trace'), '6\n');
  const dirs = { cwd, env: {}, mahimahiDirs: [sourceDir, packageDir] };
  assert.is(resolveTraceName('c.trace', dirs), join(packageDir, 'c.trace'));
  put(join(sourceDir, 'c.trace'), '7\n');
  assert.is(resolveTraceName('c.trace', dirs), join(sourceDir, 'c.trace'));
});

test('a name found nowhere: the error lists every place tried', () => {
  try {
    resolveTraceName('missing.trace', opts);
    assert.unreachable();
  } catch (error) {
    const message = (error as Error).message;
    assert.match(message, /^trace "missing.trace" not found; tried:/);
    for (const place of [join(cwd, 'missing.trace'), join(cwd, 'traces', 'missing.trace'), join(envDir, 'missing.trace'), join(mahimahiDir, 'missing.trace')]) {
      assert.ok(message.includes(place), `${place} not in ${message}`);
    }
  }
  assert.throws(() => resolveTraceName('missing', { cwd, env: {}, mahimahiDir }), /LINKSHELL_TRACES is not set/);
  assert.throws(() => resolveTraceName('', opts), /empty trace name/);
});

test('loadTrace: missing, directory and malformed files name the path', async () => {
  const missing = join(root, 'nope.trace');
  assert.throws(() => loadTrace(missing), (e: Error) => e.message === `cannot read trace file ${missing}: no such file`);
  assert.throws(() => loadTrace(root), (e: Error) => e.message === `cannot read trace file ${root}: is a directory`);
  const bad = put(join(root, 'bad.trace'), '1\n2\nthree\n');
  assert.throws(() => loadTrace(bad), (e: Error) => e instanceof TraceFormatError && e.message.startsWith(`${bad}:3: "three"`));
  try {
    await loadTraceAsync(missing);
    assert.unreachable();
  } catch (error) {
    assert.is((error as Error).message, `cannot read trace file ${missing}: no such file`);
  }
  if (process.getuid?.() !== 0) {
    const locked = put(join(root, 'locked.trace'), '1\n');
    chmodSync(locked, 0o000);
    assert.throws(() => loadTrace(locked), /permission denied/);
  }
});

test('loadTrace and loadTraceAsync agree; source is the path', async () => {
  const path = put(join(root, 'ok.trace'), '1\n1\n4\r\n9');
  const sync = loadTrace(path);
  const async = await loadTraceAsync(path);
  assert.equal(Array.from(sync.times), [1, 1, 4, 9]);
  assert.equal(Array.from(async.times), Array.from(sync.times));
  assert.is(sync.source, path);
});

test('writeTrace / formatTrace round-trip, byte for byte on a shared trace', () => {
  const shared = new URL('../../../shared/traces/Verizon-LTE-short.up', import.meta.url);
  const text = readFileSync(shared, 'latin1');
  const trace = parseTrace(text, 'Verizon-LTE-short.up');
  assert.is(formatTrace(trace), text);
  const out = join(root, 'written.trace');
  writeTrace(out, trace);
  assert.is(readFileSync(out, 'latin1'), text);
  assert.throws(() => writeTrace(join(root, 'no-dir', 'x.trace'), trace), /cannot write trace file .*no-dir/);
});

test('formatTrace refuses traces that break the invariants', () => {
  const make = (times: number[], period = times[times.length - 1]!) => ({ source: 'm', times: Float64Array.from(times), period });
  assert.throws(() => formatTrace(make([])), /no timestamps/);
  assert.throws(() => formatTrace(make([1, 2.5])), /entry 1 is 2.5/);
  assert.throws(() => formatTrace(make([3, 2])), /entry 1 \(2\) is lower than entry 0 \(3\)/);
  assert.throws(() => formatTrace(make([0, 0])), /last timestamp is 0/);
  assert.throws(() => formatTrace(make([1, 5], 7)), /period 7 differs/);
  assert.throws(() => assertValidTrace(make([-1, 5])), /entry 0 is -1/);
  assert.is(formatTrace(make([0, 1, 1])), '0\n1\n1\n');
});

test.after(() => rmSync(root, { recursive: true, force: true }));

test.run();
