// salsify eval's command line: bad arguments and inputs are one line and exit
// status 2 before anything runs; --help names every scheme of the registry.
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SIM_SCHEME_NAMES } from '../../src/salsify/schemes/registry.ts';
import { PRESET_NAMES } from '../../src/salsify/presets.ts';
import { runEval } from './helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'eval-cli-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

const oneLine = (stderr: string, pattern: RegExp) => {
  assert.is(stderr.split('\n').filter((l) => l !== '' && !/running the TypeScript sources/.test(l)).length, 1, stderr);
  assert.match(stderr, pattern);
};

test('--help names every registered scheme and every scenario', async () => {
  const r = await runEval(['--help']);
  assert.is(r.code, 0);
  const text = r.stdout.replace(/\s+/g, ' ');
  for (const name of [...SIM_SCHEME_NAMES, ...PRESET_NAMES]) assert.ok(text.includes(name), name);
});

for (const [args, pattern] of [
  [['--schemes', 'salsify-1,nope'], /^salsify eval: --schemes must be one or more of .* got "nope" in "salsify-1,nope"\n$/],
  [['--scenarios', 'mars'], /^salsify eval: --scenarios must be one or more of att-lte, .* got "mars"\n$/],
  [['--jobs', '0'], /^salsify eval: --jobs must be an integer from 1 to 256, got "0"\n$/],
  [['--measure-for', '0'], /^salsify eval: --measure-for must be a duration .* more than 0ms and at most 86338s, got "0"\n$/],
  [['--measure-from', '-2'], /^salsify eval: --measure-from must be a duration .* at least 0ms and at most 702s, got "-2"\n$/],
  [['--scenarios', 'wifi', '--measure-from', '702'], /^salsify eval: --measure-from must be below wifi's 702 s of video, got 702 s\n$/],
  [['--downlink-other-traffic', '4000,42'], /^salsify eval: --downlink-other-traffic must be an integer from 43 to 1514, got "42"\n$/],
  [['--downlink-other-traffic', 'some'], /^salsify eval: --downlink-other-traffic must be BYTES_PER_S,PACKET_BYTES or none, got "some"\n$/],
  [['--emit', 'pbs', 'x'], /^salsify eval: --emit must be slurm .* got "pbs"/],
  [['--collect', '/nonexistent/eval'], /^salsify eval: .*\/nonexistent\/eval\/runs\.json/],
] as const) {
  test(`salsify eval ${args.join(' ')}: one line, exit 2`, async () => {
    const out = join(dir, 'out');
    const r = await runEval([...args, '--out', out].filter((a, i, all) => !(args[0] === '--collect' && (a === '--out' || all[i - 1] === '--out'))));
    assert.is(r.code, 2, r.stderr);
    oneLine(r.stderr, pattern);
    assert.not.ok(existsSync(out), 'nothing written');
  });
}

test('a trace that cannot be found: one line naming it, exit 2, nothing run', async () => {
  const out = join(dir, 'no-traces');
  // From a directory with no traces beside it (the checkout has ../shared/traces, which trace names fall back on).
  const r = await runEval(['--scenarios', 'att-lte', '--schemes', 'salsify-1', '--out', out], undefined, { LINKSHELL_TRACES: join(dir, 'empty') }, dir);
  assert.is(r.code, 2, r.stderr);
  oneLine(r.stderr, /^salsify eval: trace "ATT-LTE-driving\.down" not found; tried: /);
  assert.not.ok(existsSync(out));
});

test.run();
