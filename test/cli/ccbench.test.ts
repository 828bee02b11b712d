// ccbench rfc8867 through its binary: help, a run with --out, and every bad
// input as one line and exit status 2.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/ccbench.ts';
import { HANG_BOUND_MS } from '../helpers/bounds.ts';

const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'ccbench-'));

function ccbench(args: string[]): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(root, 'bin', 'ccbench.js'), ...args], { cwd: dir, encoding: 'utf8', timeout: HANG_BOUND_MS });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

test('--help, and the command list', () => {
  const help = ccbench(['rfc8867', '--help']);
  assert.is(help.status, 0);
  assert.match(help.stdout, /^Usage: ccbench rfc8867 /);
  assert.match(help.stdout, /--thresholds FILE/);
  const list = ccbench(['--help']);
  assert.is(list.status, 0);
  assert.match(list.stdout, /ccbench rfc8867/);
});

test('a case through the binary: the table on stdout, the files in --out', () => {
  const out = join(dir, 'out');
  const r = ccbench(['rfc8867', '--case', '5.8', '--controller', 'cbr:0.5', '--seed', '3', '--out', out]);
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, /5\.8 +│ cbr-0\.5mbps/);
  for (const f of ['5.8.cbr-0.5mbps.json', '5.8.cbr-0.5mbps.svg', 'summary.csv', 'cbr-0.5mbps.5.8.forward.log', 'cbr-0.5mbps.5.8.forward.flow-2.log']) assert.ok(existsSync(join(out, f)), f);
  const json = JSON.parse(readFileSync(join(out, '5.8.cbr-0.5mbps.json'), 'utf8'));
  assert.is(json.caseId, '5.8');
  assert.is(json.seed, 3);
  assert.is(json.metrics.flows.length, 3);
  assert.match(readFileSync(join(out, '5.8.cbr-0.5mbps.svg'), 'utf8'), /^<svg|^<\?xml/);
});

test('--controller PATH.ts: a user\'s own controller module', () => {
  writeFileSync(join(dir, 'steady.ts'), `export const name = 'steady';
export function createController(options) {
  return { name, targetBitrate: () => 400_000, onPacketSent() {}, onFeedback() {} };
}
`);
  const r = ccbench(['rfc8867', '--case', '5.4', '--controller', 'steady.ts']);
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, /5\.4 +│ steady +│ 4\d\d \/ 4\d\d \/ 4\d\d/);
});

test('--strict: exit status 3 when a case fails its thresholds, naming it on stderr; 0 when all pass; without it, 0 either way', () => {
  // 5.4 at a constant 0.2 Mbit/s per flow: no queue, no loss, fair, but far below the 0.6 utilisation threshold.
  const failing = ['rfc8867', '--case', '5.4,5.8', '--controller', 'cbr:0.2'];
  const lax = ccbench(failing);
  assert.is(lax.status, 0, lax.stderr);
  assert.match(lax.stdout, /FAIL/);
  const strict = ccbench([...failing, '--strict']);
  assert.is(strict.status, 3, strict.stderr);
  assert.match(strict.stdout, /FAIL/);
  assert.match(strict.stderr, /(^|\n)ccbench rfc8867: --strict: 2 of 2 runs failed their thresholds: 5\.4 cbr-0\.2mbps \(utilisation\); 5\.8 cbr-0\.2mbps \(utilisation\)\n$/);
  // 5.4 with a utilisation threshold it meets: every check passes, status 0.
  writeFileSync(join(dir, 'low.json'), '{"utilisationMin": 0.1}');
  const passing = ccbench(['rfc8867', '--case', '5.4', '--controller', 'cbr:0.2', '--thresholds', 'low.json', '--strict']);
  assert.is(passing.status, 0, passing.stderr);
  assert.not.match(passing.stderr, /--strict/);
});

test('the old case name 8869-cellular still names cellular-trace', () => {
  const r = ccbench(['rfc8867', '--case', '8869-cellular', '--controller', 'cbr:0.3']);
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, /cellular-trace/);
});

/** Runs `ccbench ARGS` in this process (from the test's directory); the exit status and what went to stderr. */
async function inProcess(args: string[]): Promise<{ status: number; stderr: string }> {
  let stderr = '';
  const write = process.stderr.write;
  const cwd = process.cwd();
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
    return true;
  }) as typeof process.stderr.write;
  process.chdir(dir);
  try {
    return { status: await main(args), stderr };
  } finally {
    process.chdir(cwd);
    process.stderr.write = write;
  }
}

test('bad inputs: one line naming the option or file, exit status 2', async () => {
  writeFileSync(join(dir, 'bad.json'), '{"nope": 1}');
  writeFileSync(join(dir, 'a-file'), 'x');
  writeFileSync(join(dir, 'empty.ts'), 'export const x = 1;\n');
  const cases: Array<[string[], RegExp]> = [
    [['rfc8867', '--case', '5.9'], /--case must be one or more of 5\.1, .* got "5\.9"/],
    [['rfc8867', '--case', '5.1,5.1'], /--case names "5\.1" twice/],
    [['rfc8867', '--seed=-1'], /--seed must be a non-negative integer/],
    [['rfc8867', '--controller', 'gcc,gcc'], /--controller names "gcc" twice/],
    [['rfc8867', '--controller', 'cbr:0'], /cbr:MBPS needs a rate > 0/],
    [['rfc8867', '--case', '5.1', '--controller', 'cbr:1', '--thresholds', 'bad.json'], /bad\.json: unknown threshold "nope"/],
    [['rfc8867', '--case', '5.1', '--controller', 'cbr:1', '--thresholds', 'missing.json'], /missing\.json/],
    [['rfc8867', '--case', '5.1', '--controller', 'cbr:1', '--out', 'a-file'], /a-file/],
    [['rfc8867', 'extra'], /unexpected argument "extra"/],
    [['rfc8867', '--case', '5.1', '--controller', 'empty.ts'], /empty\.ts: not a rate controller module: missing `export const name`/],
    [['rfc8867', '--case', '5.1', '--controller', 'nothere.ts'], /nothere\.ts: not a built-in controller/],
    [['rfc8867', '--bogus'], /bogus/],
    [['frobnicate'], /unknown command "frobnicate"/],
  ];
  for (const [args, message] of cases) {
    const r = await inProcess(args);
    const what = `${args.join(' ')}: status ${r.status}, stderr ${JSON.stringify(r.stderr)}`;
    assert.is(r.status, 2, what);
    assert.is(r.stderr.trimEnd().split('\n').length, 1, what);
    assert.match(r.stderr, message, what);
  }
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();
