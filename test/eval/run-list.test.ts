// The eval's run list and its keys: every scheme the registry names (and the
// oracle), scenarios x schemes x seeds in one order, --measure-for ending the
// run with its window, a rerun command that gives back the very config, and a
// hash that follows the config and the input files' content (not their mtime).
import { copyFileSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseEvalArgs } from '../../src/cli/eval-command.ts';
import { parseSimArgs } from '../../src/cli/salsify.ts';
import { configHash, runKey } from '../../src/eval/config-hash.ts';
import { buildRunList, type EvalPlan } from '../../src/eval/run-list.ts';
import { PRESET_NAMES } from '../../src/salsify/presets.ts';
import { SIM_SCHEME_NAMES } from '../../src/salsify/schemes/registry.ts';
import { resolveSimConfig, type SalsifySimConfig } from '../../src/salsify/sim-runner.ts';
import { SHARED_TRACES } from './helpers.ts';

process.env.LINKSHELL_TRACES = SHARED_TRACES;
const dir = mkdtempSync(join(tmpdir(), 'eval-runlist-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

const plan = (p: Partial<EvalPlan> = {}): EvalPlan => ({ scenarios: ['att-lte', 'wifi'], schemes: ['salsify-1', 'oracle'], seeds: 2, codec: 'model', video: 'synthetic', ...p });

test('scenarios x schemes x seeds, in that order, every registered scheme available', () => {
  const runs = buildRunList(plan());
  assert.equal(runs.map((r) => r.id), ['att-lte/salsify-1/1', 'att-lte/salsify-1/2', 'att-lte/oracle/1', 'att-lte/oracle/2', 'wifi/salsify-1/1', 'wifi/salsify-1/2', 'wifi/oracle/1', 'wifi/oracle/2']);
  assert.equal(runs.map((r) => r.index), [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.is(new Set(runs.map((r) => r.hash)).size, 8);
  const all = buildRunList(plan({ scenarios: ['wifi'], schemes: SIM_SCHEME_NAMES, seeds: 1 }));
  assert.equal(all.map((r) => r.config.scheme), [...SIM_SCHEME_NAMES]);
  assert.ok(PRESET_NAMES.length >= 8);
});

test("--measure-for: the window is that long and the capture ends a drain after it; the rerun command gives the same config", () => {
  for (const run of buildRunList(plan({ measureForS: 3, encodeTiming: 'paper' }))) {
    assert.is(run.config.measureFromS, 62);
    assert.is(run.config.measureForS, 3);
    assert.is(run.config.durationS, 702);
    assert.is(run.videoS, 67);
    const args = run.command.split(' ').slice(3);
    assert.equal(parseSimArgs(args).configs[0], run.config, run.command);
  }
  for (const run of buildRunList(plan({ seeds: 1 }))) {
    assert.is(run.config.durationS, 702);
    assert.is(run.videoS, 702);
    assert.equal(parseSimArgs(run.command.split(' ').slice(3)).configs[0], run.config, run.command);
  }
});

test("--measure-from: the window starts there (and ends with --measure-for); the rerun command gives the same config; the hash differs", () => {
  const quick = buildRunList(plan({ measureFromS: 0, measureForS: 1, seeds: 1 }));
  for (const run of quick) {
    assert.is(run.config.measureFromS, 0);
    assert.is(run.config.measureForS, 1);
    assert.is(run.videoS, 1 + run.config.drainMs / 1000);
    assert.match(run.command, / --measure-from 0 --measure-for 1$/);
    assert.equal(parseSimArgs(run.command.split(' ').slice(3)).configs[0], run.config, run.command);
  }
  const preset = buildRunList(plan({ measureForS: 1, seeds: 1 }));
  assert.ok(quick.every((run, i) => run.hash !== preset[i]!.hash));
});

test("--downlink-other-traffic: every run carries it (none: null); the rerun command gives the same config; the hash differs", () => {
  const base = buildRunList(plan({ seeds: 1 }));
  for (const [other, text] of [[null, 'none'], [{ bytesPerS: 8000, packetBytes: 200 }, '8000,200']] as const) {
    const runs = buildRunList(plan({ seeds: 1, downlinkOtherTraffic: other }));
    for (const [i, run] of runs.entries()) {
      assert.equal(run.config.downlinkOtherTraffic, other);
      assert.match(run.command, new RegExp(` --downlink-other-traffic ${text}$`));
      assert.equal(parseSimArgs(run.command.split(' ').slice(3)).configs[0], run.config, run.command);
      assert.is.not(run.hash, base[i]!.hash);
    }
  }
  assert.ok(base.every((run) => run.config.downlinkOtherTraffic?.bytesPerS === 4000 && !run.command.includes('other-traffic')));
});

test("pairs (--paper-rows): only those scenario x scheme pairs, in the matrix's order, each the same run (hash) as in the whole matrix", () => {
  const whole = buildRunList(plan());
  const some = buildRunList(plan({ pairs: ['wifi/salsify-1', 'att-lte/oracle'] }));
  assert.equal(some.map((r) => r.id), ['att-lte/oracle/1', 'att-lte/oracle/2', 'wifi/salsify-1/1', 'wifi/salsify-1/2']);
  assert.equal(some.map((r) => r.index), [0, 1, 2, 3]);
  for (const run of some) assert.is(run.hash, whole.find((r) => r.id === run.id)!.hash, run.id);
  // From the paper's CSV: its 21 rows of the six Salsify schemes, none of the oracle's.
  const args = parseEvalArgs(['--paper-rows', '--schemes', 'salsify-1,salsify-2,salsify-4,conventional-1s,salsify-nograce,salsify-targetsize,oracle', '--scenarios', 'att-lte,verizon-lte,tmobile-umts,on-off,wifi,buffer-64,buffer-256,buffer-1024']);
  assert.is(args.plan?.pairs?.length, 21);
  assert.ok(args.plan?.pairs?.includes('verizon-lte/salsify-targetsize') && args.plan.pairs.includes('tmobile-umts/salsify-4'));
  assert.not.ok(args.plan?.pairs?.some((p) => p.endsWith('/oracle') || p === 'on-off/salsify-4'));
  try {
    parseEvalArgs(['--paper-rows', '--schemes', 'oracle']);
    assert.unreachable('the paper has no oracle row');
  } catch (error) {
    assert.match((error as Error).message, /^--paper-rows: the paper reports none of --scenarios .* x --schemes oracle$/);
  }
});

test('the hash follows the content of a trace, not its name, path or mtime', () => {
  const a = join(dir, 'a.down');
  copyFileSync(join(SHARED_TRACES, '12mbps.down'), a);
  const config = resolveSimConfig({ downlink: a, uplink: join(SHARED_TRACES, '12mbps.up'), scheme: 'salsify-1' });
  const h1 = configHash(runKey(config));
  assert.is(configHash(runKey(config)), h1, 'stable');
  assert.is(runKey(config).inputs.downlink?.sha256.length, 64);
  utimesSync(a, new Date(0), new Date(0));
  const b = join(dir, 'b.down');
  copyFileSync(a, b);
  // The same content under another name still differs in the config's downlink name, so compare digests.
  assert.equal(runKey({ ...config, downlink: b }).inputs.downlink?.sha256, runKey(config).inputs.downlink?.sha256);
  const c = join(dir, 'c.down');
  writeFileSync(c, '1\n2\n');
  assert.is.not(runKey({ ...config, downlink: c }).inputs.downlink?.sha256, runKey(config).inputs.downlink?.sha256);
  assert.is.not(configHash(runKey({ ...config, seed: 2 })), h1);
  assert.is.not(configHash(runKey({ ...config, codec: 'vp8' })), h1);
});

test.run();
