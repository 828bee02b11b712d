// "-" for standard input and output wherever a command reads or writes a
// file, and one meaning of --json: "write JSON to FILE" (linkshell stats
// prints JSON with --format json; its old --json still works and says it is
// deprecated).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
const shared = join(root, '..', 'shared');
const dir = mkdtempSync(join(tmpdir(), 'stdio-'));
const LOG = join(shared, 'conformance', 'const3_droptail_p20.up.log');

function bin(name: string, args: string[], input?: string) {
  const r = spawnSync(process.execPath, [join(root, 'bin', `${name}.js`), ...args], { cwd: dir, input, encoding: 'utf8', timeout: 120_000, maxBuffer: 1 << 28 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('salsify sim --json -: the JSON on standard output, the table on standard error, no file named "-"', () => {
  const r = bin('salsify', ['sim', '--downlink', 'const:2', '--uplink', 'const:2', '--duration', '1', '--json', '-']);
  assert.is(r.status, 0, r.stderr);
  const json = JSON.parse(r.stdout) as { label: string; summary: unknown };
  assert.ok(json.summary !== undefined);
  assert.match(r.stderr, /downlink const:2, uplink const:2/);
  assert.not.ok(existsSync(join(dir, '-')));
});

test('linkshell stats - and graph - read standard input, as mm-delay-graph does', () => {
  const text = readFileSync(LOG, 'utf8');
  const fromFile = bin('linkshell', ['stats', '--format', 'json', LOG]);
  const fromStdin = bin('linkshell', ['stats', '--format', 'json', '-'], text);
  assert.is(fromStdin.status, 0, fromStdin.stderr);
  const a = JSON.parse(fromFile.stdout) as Array<{ log: string; stats: unknown }>;
  const b = JSON.parse(fromStdin.stdout) as Array<{ log: string; stats: unknown }>;
  assert.equal(b[0]!.stats, a[0]!.stats);
  assert.is(b[0]!.log, 'standard input');
  const graph = bin('linkshell', ['graph', '-'], text);
  assert.is(graph.status, 0, graph.stderr);
  assert.match(graph.stdout, /^<svg|^<\?xml/);
  assert.match(graph.stderr, /standard input/);
  const twice = bin('linkshell', ['stats', '-', '-'], text);
  assert.is(twice.status, 2);
  assert.match(twice.stderr, /^linkshell stats: "-" \(standard input\) is named more than once; it can be read only once\n$/);
  const bad = bin('linkshell', ['stats', '-'], '0 + 100\nnot a line\n');
  assert.is(bad.status, 2);
  assert.match(bad.stderr, /^linkshell stats: standard input/);
});

test('linkshell replay --log-in - --log -, gen-trace -o -', () => {
  const replayed = bin('linkshell', ['replay', '--log-in', LOG, '--trace', join(shared, 'traces', '12mbps.up'), '--queue', 'droptail', '--queue-args', 'packets=20']);
  const viaStdin = bin('linkshell', ['replay', '--log-in', '-', '--trace', join(shared, 'traces', '12mbps.up'), '--queue', 'droptail', '--queue-args', 'packets=20', '--log', '-'], readFileSync(LOG, 'utf8'));
  assert.is(viaStdin.status, 0, viaStdin.stderr);
  const events = (t: string) => t.split('\n').filter((l) => !l.startsWith('#'));
  assert.equal(events(viaStdin.stdout), events(replayed.stdout));
  const trace = bin('linkshell', ['gen-trace', 'constant', '--rate', '12', '-o', '-']);
  assert.is(trace.status, 0, trace.stderr);
  assert.is(trace.stdout, '1\n');
  assert.not.ok(existsSync(join(dir, '-')));
});

test('linkshell\'s logs and --summary-json need a file: "-" is refused in one line (standard output is COMMAND\'s), no file named "-"', () => {
  const trace = join(root, 'traces', 'const-12mbps.trace');
  for (const option of ['--uplink-log', '--downlink-log', '--summary-json']) {
    const r = bin('linkshell', ['--trace', trace, '--connect', '127.0.0.1:9', option, '-', '--', 'true']);
    assert.is(r.status, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`^linkshell: ${option} needs a file name: standard output is the COMMAND's while linkshell runs [^\\n]*\\n$`));
    assert.not.ok(existsSync(join(dir, '-')));
  }
});

test('ccbench rfc8867 --thresholds - reads standard input', () => {
  const bad = bin('ccbench', ['rfc8867', '--case', '5.8', '--thresholds', '-'], 'not json');
  assert.is(bad.status, 2, bad.stderr);
  assert.match(bad.stderr, /^ccbench rfc8867: standard input: not JSON/);
});

test('--json has one meaning: linkshell stats prints JSON with --format json; --json still does, with a deprecation line', () => {
  const now = bin('linkshell', ['stats', '--format', 'json', LOG]);
  assert.is(now.status, 0, now.stderr);
  assert.is(now.stderr, '');
  const old = bin('linkshell', ['stats', '--json', LOG]);
  assert.is(old.status, 0, old.stderr);
  assert.is(old.stdout, now.stdout);
  assert.is(old.stderr, 'linkshell stats: --json is deprecated: write --format json (--json means "write JSON to FILE" in the other commands)\n');
  const both = bin('linkshell', ['stats', '--json', '--format', 'table', LOG]);
  assert.is(both.status, 2);
  const bad = bin('linkshell', ['stats', '--format', 'xml', LOG]);
  assert.match(bad.stderr, /^linkshell stats: --format must be one of table, json, got "xml"\n$/);
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();
