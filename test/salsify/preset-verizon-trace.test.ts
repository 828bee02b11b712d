// The Verizon presets run the paper's Verizon-LTE-driving when the trace
// lookup finds it and the stand-in Verizon-LTE-short otherwise. Checked on
// directories of our own (not this machine's Mahimahi install): the files
// named Verizon-LTE-driving.down / .up here are small made-up traces, since
// what is tested is the lookup by name and what the presets then say and
// configure, not the trace's content.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TraceLookupOptions } from '../../src/link-emu/trace-files.ts';
import { simPreset, simPresetOn, simPresets, VERIZON_STAND_IN, VERIZON_TRACE, verizonTrace } from '../../src/salsify/presets.ts';

const root = mkdtempSync(join(tmpdir(), 'preset-verizon-'));
test.after(() => rmSync(root, { recursive: true, force: true }));

/** A directory holding the given trace files (one opportunity a millisecond: a made-up trace). */
function tracesDir(name: string, files: readonly string[]): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  for (const f of files) writeFileSync(join(dir, f), '1\n2\n3\n');
  return dir;
}

/** A lookup that sees only $LINKSHELL_TRACES=dir: cwd is an empty directory (so no ./traces or ../shared/traces) and no Mahimahi directory. */
function only(dir: string | undefined): TraceLookupOptions {
  const cwd = join(root, 'cwd', 'empty');
  mkdirSync(cwd, { recursive: true });
  return { cwd, env: dir === undefined ? {} : { LINKSHELL_TRACES: dir }, mahimahiDirs: [] };
}

const VERIZON_PRESETS = ['verizon-lte', 'buffer-64', 'buffer-256', 'buffer-1024'];

test('LINKSHELL_TRACES=DIR holding Verizon-LTE-driving.down and .up: the Verizon presets run it, labelled as the paper\'s trace', () => {
  const lookup = only(tracesDir('both', ['Verizon-LTE-driving.down', 'Verizon-LTE-driving.up']));
  assert.is(verizonTrace(lookup), VERIZON_TRACE);
  for (const name of VERIZON_PRESETS) {
    const p = simPreset(name, lookup);
    assert.equal([p.trace, p.config.downlink, p.config.uplink, p.standInFor], [VERIZON_TRACE, 'Verizon-LTE-driving.down', 'Verizon-LTE-driving.up', undefined], name);
    assert.not.match(p.label, /stand-in/, name);
  }
  assert.is(simPreset('verizon-lte', lookup).label, 'Verizon-LTE-driving');
  assert.is(simPreset('buffer-64', lookup).label, 'Verizon-LTE-driving droptail 64');
  assert.is(simPreset('buffer-1024', lookup).config.queueArgs, 'packets=1024');
  // The other presets do not depend on it.
  assert.equal(simPreset('att-lte', lookup), simPreset('att-lte', only(undefined)));
});

test('no Verizon-LTE-driving, or only one of its two files: the stand-in, and every label says so', () => {
  for (const lookup of [only(undefined), only(tracesDir('down-only', ['Verizon-LTE-driving.down'])), only(tracesDir('empty', []))]) {
    assert.is(verizonTrace(lookup), VERIZON_STAND_IN);
    for (const name of VERIZON_PRESETS) {
      const p = simPreset(name, lookup);
      assert.equal([p.trace, p.config.downlink, p.config.uplink, p.standInFor], [VERIZON_STAND_IN, 'Verizon-LTE-short.down', 'Verizon-LTE-short.up', VERIZON_TRACE], name);
      assert.match(p.label, /^Verizon-LTE-driving.*\(stand-in: Verizon-LTE-short\)$/, name);
    }
  }
});

test('a directory named like the trace is not the trace: the stand-in', () => {
  const dir = tracesDir('dirs', ['Verizon-LTE-driving.up']);
  mkdirSync(join(dir, 'Verizon-LTE-driving.down'));
  assert.is(verizonTrace(only(dir)), VERIZON_STAND_IN);
});

test('the lookup is made when a preset is asked for, not when the module loads', () => {
  const env: Record<string, string | undefined> = {};
  const lookup = { ...only(undefined), env };
  assert.is(simPresets(lookup).get('verizon-lte')!.trace, VERIZON_STAND_IN);
  env.LINKSHELL_TRACES = tracesDir('later', ['Verizon-LTE-driving.down', 'Verizon-LTE-driving.up']);
  assert.is(simPresets(lookup).get('verizon-lte')!.trace, VERIZON_TRACE);
});

test('simPresetOn describes a preset on either trace whatever the lookup finds; nothing else', () => {
  assert.is(simPresetOn('buffer-256', VERIZON_TRACE).label, 'Verizon-LTE-driving droptail 256');
  assert.is(simPresetOn('buffer-256', VERIZON_STAND_IN).label, 'Verizon-LTE-driving droptail 256 (stand-in: Verizon-LTE-short)');
  assert.is(simPresetOn('wifi', VERIZON_TRACE).trace, '0.57mbps-poisson');
  assert.throws(() => simPresetOn('buffer-256', 'ATT-LTE-driving'), /unknown Verizon trace "ATT-LTE-driving"/);
  assert.throws(() => simPresetOn('lte', VERIZON_TRACE), /unknown preset "lte"/);
});

test.run();
