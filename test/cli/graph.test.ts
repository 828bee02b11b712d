// linkshell graph end to end on real Mahimahi logs (drops included), its
// outputs, its figures (equal to linkshell stats' and to Mahimahi's), and bad arguments.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { XMLValidator } from 'fast-xml-parser';
import { HANG_BOUND_MS } from '../helpers/bounds.ts';

const root = join(import.meta.dirname, '../..');
const conformance = join(root, '../shared/conformance');
const work = mkdtempSync(join(tmpdir(), 'linkshell-graph-'));

function linkshell(...args: string[]) {
  const result = spawnSync(process.execPath, [join(root, 'bin/linkshell.js'), ...args], { cwd: root, encoding: 'utf8', timeout: HANG_BOUND_MS, maxBuffer: 64 << 20 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const DROPS = join(conformance, 'att_droptail_p20.up.log');
const UP = join(conformance, 'att_infinite.up.log');
const DOWN = join(conformance, 'att_infinite.down.log');

test('both directions into an SVG file: it parses, has both, and the figures are Mahimahi\'s', () => {
  const out = join(work, 'both.svg');
  const r = linkshell('graph', UP, DOWN, '--out', out);
  assert.is(r.code, 0, r.stderr);
  const svg = readFileSync(out, 'utf8');
  assert.is(XMLValidator.validate(svg), true);
  assert.ok(svg.includes('d0_packets_marks') && svg.includes('d1_packets_marks'));
  assert.ok(svg.includes('att_infinite.up.log (Uplink)') && svg.includes('att_infinite.down.log (Downlink)'));
  // What Mahimahi's mm-throughput-graph 500 prints for these two logs.
  assert.match(r.stdout, /att_infinite\.up\.log \(Uplink\):\n  Average capacity: 1\.08 Mbits\/s\n  Average throughput: 0\.81 Mbits\/s \(75\.4% utilization\)\n  95th percentile per-packet queueing delay: 1603 ms\n  95th percentile signal delay: 1578 ms\n/);
  assert.match(r.stdout, /att_infinite\.down\.log \(Downlink\):\n  Average capacity: 6\.08 Mbits\/s\n  Average throughput: 0\.05 Mbits\/s \(0\.8% utilization\)\n  95th percentile per-packet queueing delay: 14 ms\n  95th percentile signal delay: 356 ms\n/);
  assert.match(r.stdout, new RegExp(`wrote ${out.replace(/[.]/g, '\\.')}\n$`));
});

test('a log with drops (which mm-throughput-graph refuses): SVG on standard output, figures on standard error', () => {
  const r = linkshell('graph', DROPS, '--bin', '1000');
  assert.is(r.code, 0, r.stderr);
  assert.is(XMLValidator.validate(r.stdout), true);
  assert.match(r.stdout, /^<svg /);
  assert.match(r.stderr, /95th percentile per-packet queueing delay: 149 ms\n  95th percentile signal delay: 1347 ms\n  Drops: 1532 packets \(1215090 bytes\)\n$/);
  assert.match(r.stdout, /throughput \(Mbit\/s, per 1000 ms\)/);
  const crosses = /<g class="mark-symbol role-mark d0_drops_marks"[^>]*>(.*?)<\/g>/s.exec(r.stdout);
  assert.ok(crosses && (crosses[1].match(/<path /g) ?? []).length > 0);
});

test('an HTML page: the picture and its specification', () => {
  const out = join(work, 'page.html');
  const r = linkshell('graph', DROPS, '--out', out);
  assert.is(r.code, 0, r.stderr);
  const html = readFileSync(out, 'utf8');
  assert.match(html, /^<!DOCTYPE html>/);
  const svg = /<svg .*<\/svg>/s.exec(html);
  assert.ok(svg);
  assert.is(XMLValidator.validate(svg![0]), true);
  assert.ok(html.includes('<script type="application/vnd.vegalite+json">'));
  assert.ok(html.includes('95th percentile signal delay: 1347 ms'));
});

test('linkshell stats gives the same percentiles, by rank (whole ms), and rounded JSON figures', () => {
  const r = linkshell('stats', '--format', 'json', DROPS);
  assert.is(r.code, 0, r.stderr);
  const [{ stats }] = JSON.parse(r.stdout);
  assert.is(stats.delayMs.p95, 149);
  assert.is(stats.signalDelayMs.p95, 1347);
  for (const v of [stats.delayMs.p50, stats.delayMs.p95, stats.delayMs.p99]) assert.ok(Number.isInteger(v), String(v));
  assert.is(stats.capacityMbps, Number(stats.capacityMbps.toFixed(3)));
  assert.is(stats.utilization, Number(stats.utilization.toFixed(4)));
  const table = linkshell('stats', DROPS);
  assert.match(table.stdout, /signal delay +│ mean [\d.]+ ms, p50 \d+, p95 1347, /);
});

const empty = join(work, 'empty.log');
writeFileSync(empty, '# base timestamp: 0\n');
const bad = join(work, 'bad.log');
writeFileSync(bad, '# base timestamp: 0\n10 + 100\n12 x 5\n');

const BAD: Array<[string[], RegExp]> = [
  [[], /^linkshell graph: give at least one log file \(see linkshell graph --help\)\n$/],
  [[UP, '--bin', '0'], /^linkshell graph: --bin must be an integer from 1 to 3600000, got "0"\n$/],
  [[UP, '--bin', '2.5'], /^linkshell graph: --bin must be an integer/],
  [[UP, '--out', join(work, 'x.png')], /^linkshell graph: --out must name an \.svg or \.html file, got ".*x\.png"/],
  [[UP, '--out', join(work, 'no-such-dir', 'x.svg')], /^linkshell graph: --out: cannot write .*: its directory .* does not exist\n$/],
  [[UP, '--frobnicate'], /^linkshell graph: .*frobnicate.*\(see linkshell graph --help\)\n$/],
  [[join(work, 'missing.log')], /^linkshell graph: cannot read .*missing\.log/],
  [[empty], /^linkshell graph: .*empty\.log: no events/],
  [[bad], /^linkshell graph: .*bad\.log:3: kind "x" is not an event kind/],
];

for (const [args, message] of BAD) {
  test(`bad input: linkshell graph ${args.map((a) => a.replace(work, 'TMP').replace(conformance, 'C')).join(' ')}: one line, exit 2`, () => {
    const r = linkshell('graph', ...args);
    assert.is(r.code, 2, r.stderr);
    assert.match(r.stderr, message);
    assert.is(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.is(r.stdout, '');
  });
}

test('--help', () => {
  const r = linkshell('graph', '--help');
  assert.is(r.code, 0);
  assert.match(r.stdout, /^Usage: linkshell graph LOG\.\.\. \[--out FILE\.svg\|FILE\.html\|-\] \[--bin MS\]\n/);
});

test.run();
