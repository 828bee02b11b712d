// `salsify webrtc --preset NAME [--trace-start S]`: the paper's scenario as
// linkshell's path (traces, 20 ms each way, drop-tail 256, 1514-byte
// opportunities with 42 bytes of headers, on/off, loss), every part still
// overridable, and both traces replayed from second S (rotateTrace), written
// into the output directory and recorded with the results.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseWebrtcArgs } from '../../src/cli/webrtc-command.ts';
import { loadTrace } from '../../src/link-emu/trace-files.ts';
import { rotateTrace } from '../../src/link-emu/trace-rotate.ts';

const traces = fileURLToPath(new URL('../../../shared/traces', import.meta.url));
process.env.LINKSHELL_TRACES = traces;
const dir = mkdtempSync(join(tmpdir(), 'webrtc-preset-test-'));
const SALSIFY = ['--endpoint', 'salsify-1', '--video', 'synthetic'];

function parsed(args: string[], name: string) {
  const r = parseWebrtcArgs([...SALSIFY, ...args, '--out', join(dir, name)]).salsify;
  assert.ok(r, 'a Salsify endpoint');
  return r!;
}

/** linkshell's value of `option` (the last one given). */
function arg(args: readonly string[] | undefined, option: string): string | undefined {
  const i = (args ?? []).lastIndexOf(option);
  return i < 0 ? undefined : args![i + 1];
}

test('att-lte from its second 9: the paper path, and both traces rotated by 9 s', () => {
  const r = parsed(['--preset', 'att-lte', '--trace-start', '9'], 'att');
  const a = r.linkshellArgs;
  assert.is(arg(a, '--delay'), '20');
  // att-lte's queue is Cellsim's, unbounded (salsify/presets.ts).
  assert.is(arg(a, '--uplink-queue'), 'infinite');
  assert.is(arg(a, '--downlink-queue'), 'infinite');
  assert.is(arg(a, '--uplink-queue-args'), undefined);
  assert.is(arg(a, '--downlink-queue-args'), undefined);
  assert.is(arg(a, '--mtu'), '1514');
  assert.is(arg(a, '--overhead'), '42');
  assert.is(arg(a, '--uplink-loss'), undefined);
  assert.is(arg(a, '--uplink-onoff'), undefined);
  assert.equal(r.scenario, { preset: 'att-lte', traceStartS: 9 });
  assert.is(r.videoTrace, join(dir, 'att', 'downlink-from-9s.trace'));
  assert.equal(loadTrace(r.videoTrace).times, rotateTrace(loadTrace(join(traces, 'ATT-LTE-driving.down')), 9000).times);
  assert.equal(loadTrace(r.feedbackTrace).times, rotateTrace(loadTrace(join(traces, 'ATT-LTE-driving.up')), 9000).times);
});

test('on-off and wifi: the video direction (linkshell uplink) intermittent or lossy; no offset: the trace file itself', () => {
  const onOff = parsed(['--preset', 'on-off'], 'onoff');
  assert.is(arg(onOff.linkshellArgs, '--uplink-onoff'), '5000,200');
  assert.is(onOff.videoTrace, join(traces, '12mbps.down'));
  assert.equal(onOff.scenario, { preset: 'on-off', traceStartS: 0 });
  const wifi = parsed(['--preset', 'wifi'], 'wifi');
  assert.is(arg(wifi.linkshellArgs, '--uplink-loss'), '0.048');
  assert.is(arg(wifi.linkshellArgs, '--downlink-loss'), undefined);
  // At delivery, as the paper's Cellsim lost them (and as salsify sim --preset wifi does); overridable.
  assert.is(arg(wifi.linkshellArgs, '--uplink-loss-at'), 'delivery');
  assert.is(arg(parsed(['--preset', 'wifi', '--downlink-loss-at', 'entry'], 'wifi-entry').linkshellArgs, '--uplink-loss-at'), 'entry');
  assert.is(arg(onOff.linkshellArgs, '--uplink-loss-at'), undefined);
  assert.is(wifi.videoTrace, join(traces, '0.57mbps-poisson.down'));
});

test('every option still overrides the preset', () => {
  const r = parsed(
    ['--preset', 'on-off', '--downlink', 'const:3', '--delay', '5', '--queue', 'droptail', '--queue-args', 'packets=64', '--mtu', '1504', '--overhead', '32', '--downlink-onoff', '1000,100', '--downlink-loss', '0.01'],
    'override',
  );
  const a = r.linkshellArgs;
  assert.is(arg(a, '--delay'), '5');
  assert.is(arg(a, '--uplink-queue-args'), 'packets=64');
  assert.is(arg(a, '--mtu'), '1504');
  assert.is(arg(a, '--overhead'), '32');
  assert.is(arg(a, '--uplink-onoff'), '1000,100');
  assert.is(arg(a, '--uplink-loss'), '0.01');
  assert.match(r.videoTrace, /downlink-const-3mbps\.trace$/);
  assert.is(r.feedbackTrace, join(traces, '12mbps.up'), 'the preset uplink stays');
  const codel = parsed(['--preset', 'att-lte', '--queue', 'infinite'], 'infinite');
  assert.is(arg(codel.linkshellArgs, '--uplink-queue'), 'infinite');
  assert.is(arg(codel.linkshellArgs, '--uplink-queue-args'), undefined, "a queue given drops the preset's drop-tail arguments");
});

test('without a preset nothing of one is added', () => {
  const r = parsed(['--downlink', 'const:2', '--uplink', 'const:2'], 'plain');
  for (const o of ['--delay', '--mtu', '--overhead', '--uplink-onoff', '--uplink-loss']) assert.is(arg(r.linkshellArgs, o), undefined, o);
  assert.equal(r.scenario, { preset: null, traceStartS: 0 });
  assert.ok(readFileSync(r.videoTrace, 'utf8').length > 0);
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();
