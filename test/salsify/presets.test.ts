// The Salsify paper's scenarios as presets: each one's configuration, every
// field still overridable, and the same expansion from the CLI and the library.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseSimArgs } from '../../src/cli/salsify.ts';
import { pathStages } from '../../src/link-emu/path.ts';
import { constantRateTrace } from '../../src/link-emu/trace-generators.ts';
import { expandPreset, PAPER_OTHER_TRAFFIC, PRESET_NAMES, simPreset, VERIZON_STAND_IN, verizonTrace } from '../../src/salsify/presets.ts';
import { resolveSimConfig, runSalsifySim } from '../../src/salsify/sim-runner.ts';
import { HANG_BOUND_MS } from '../helpers/bounds.ts';

const TRACES = new URL('../../../shared/traces/', import.meta.url).pathname;
process.env.LINKSHELL_TRACES = TRACES;
// The Verizon trace the presets run here: the stand-in unless this machine has Verizon-LTE-driving
// (a Mahimahi install); preset-verizon-trace.test.ts checks both cases on a directory of its own.
const VERIZON = verizonTrace();

test('the preset names are the scenario column of the reference results, and the buffer sweep on att-lte and tmobile-umts', async () => {
  const { readFileSync } = await import('node:fs');
  const csv = readFileSync(new URL('../../../shared/reference/salsify-paper-results.csv', import.meta.url), 'utf8');
  const scenarios = [...new Set(csv.trim().split('\n').slice(1).map((l) => l.split(',')[0]))];
  const sweep = ['att-lte', 'tmobile-umts'].flatMap((t) => [64, 256, 1024].map((n) => `${t}-${n}`));
  assert.equal([...PRESET_NAMES].sort(), [...scenarios, ...sweep].sort());
});

test('every preset: 702 s captured, [62, 702) s measured, 20 ms each way, 1514-byte opportunities, 42 bytes of headers', () => {
  for (const name of PRESET_NAMES) {
    const c = resolveSimConfig({ preset: name });
    assert.equal(
      [c.preset, c.durationS, c.measureFromS, c.measureForS, c.delayMs, c.mtu, c.overheadBytes],
      [name, 702, 62, 640, 20, 1514, 42],
      name,
    );
  }
});

test("every preset carries the paper's bench's own traffic on the downlink; none switches it off, in the library and on the command line", () => {
  for (const name of PRESET_NAMES) assert.equal(resolveSimConfig({ preset: name }).downlinkOtherTraffic, { bytesPerS: 4000, packetBytes: 100 }, name);
  assert.equal(PAPER_OTHER_TRAFFIC, { bytesPerS: 4000, packetBytes: 100 });
  assert.is(resolveSimConfig({ preset: 'att-lte', downlinkOtherTraffic: null }).downlinkOtherTraffic, null);
  assert.is(parseSimArgs(['--preset', 'att-lte', '--downlink-other-traffic', 'none']).configs[0]!.downlinkOtherTraffic, null);
  assert.equal(parseSimArgs(['--preset', 'wifi', '--downlink-other-traffic', '8000.5,43']).configs[0]!.downlinkOtherTraffic, { bytesPerS: 8000.5, packetBytes: 43 });
  // Without a preset, none unless asked; a packet must hold the link's overhead (32 bytes without a preset, 42 with one) and a byte.
  assert.is(parseSimArgs(['--downlink', 'const:2', '--uplink', 'const:2']).configs[0]!.downlinkOtherTraffic, undefined);
  assert.equal(parseSimArgs(['--downlink', 'const:2', '--uplink', 'const:2', '--downlink-other-traffic', '1000,33']).configs[0]!.downlinkOtherTraffic, { bytesPerS: 1000, packetBytes: 33 });
  assert.throws(() => parseSimArgs(['--preset', 'wifi', '--downlink-other-traffic', '1000,42']), /--downlink-other-traffic must be an integer from 43 to 1514, got "42"/);
  assert.throws(() => parseSimArgs(['--preset', 'wifi', '--downlink-other-traffic', '4000']), /--downlink-other-traffic must be BYTES_PER_S,PACKET_BYTES or none, got "4000"/);
  assert.throws(() => parseSimArgs(['--preset', 'wifi', '--downlink-other-traffic', '0,100']), /--downlink-other-traffic must be a number > 0 and at most 1000000000 bytes a second, got "0"/);
});

test('each preset: its trace, queue, loss and on/off', () => {
  const pick = (name: string) => {
    const c = resolveSimConfig({ preset: name });
    return { down: c.downlink, up: c.uplink, queue: `${c.queue} ${c.queueArgs}`.trim(), loss: c.downlinkLoss, at: c.downlinkLossAt, onOff: c.downlinkOnOff };
  };
  const plain = { loss: 0, at: undefined, onOff: null };
  // The rows the paper labels with no buffer: Cellsim's unbounded queue (presets.ts says how this was checked).
  assert.equal(pick('att-lte'), { down: 'ATT-LTE-driving.down', up: 'ATT-LTE-driving.up', queue: 'infinite', ...plain });
  assert.equal(pick('tmobile-umts'), { down: 'TMobile-UMTS-driving.down', up: 'TMobile-UMTS-driving.up', queue: 'infinite', ...plain });
  assert.equal(pick('verizon-lte'), { down: `${VERIZON}.down`, up: `${VERIZON}.up`, queue: 'droptail packets=256', ...plain });
  for (const n of [64, 256, 1024]) {
    assert.equal(pick(`buffer-${n}`), { down: `${VERIZON}.down`, up: `${VERIZON}.up`, queue: `droptail packets=${n}`, ...plain });
    assert.equal(pick(`att-lte-${n}`), { down: 'ATT-LTE-driving.down', up: 'ATT-LTE-driving.up', queue: `droptail packets=${n}`, ...plain });
    assert.equal(pick(`tmobile-umts-${n}`), { down: 'TMobile-UMTS-driving.down', up: 'TMobile-UMTS-driving.up', queue: `droptail packets=${n}`, ...plain });
    assert.match(simPreset(`att-lte-${n}`).label, /not in the paper/);
  }
  assert.equal(pick('on-off'), { down: '12mbps.down', up: '12mbps.up', queue: 'infinite', loss: 0, at: undefined, onOff: { meanOnMs: 5000, meanOffMs: 200 } });
  assert.equal(pick('wifi'), { down: '0.57mbps-poisson.down', up: '0.57mbps-poisson.up', queue: 'infinite', loss: 0.048, at: 'delivery', onOff: null });
  // The stand-in is said wherever the Verizon trace appears.
  for (const name of ['verizon-lte', 'buffer-64', 'buffer-256', 'buffer-1024']) {
    if (VERIZON !== VERIZON_STAND_IN) continue;
    assert.match(simPreset(name).label, /Verizon-LTE-driving.*\(stand-in: Verizon-LTE-short\)/);
    assert.is(simPreset(name).standInFor, 'Verizon-LTE-driving');
  }
  assert.is(simPreset('att-lte').standInFor, undefined);
  assert.throws(() => simPreset('lte'), /unknown preset "lte" \(expected one of att-lte, /);
});

test('the path a preset builds: delay before the queue on the video path; wifi loses at delivery', () => {
  const c = resolveSimConfig({ preset: 'wifi' });
  const trace = constantRateTrace({ rateMbps: 1 });
  const stages = pathStages('downlink', { trace, delayMs: c.delayMs, loss: c.downlinkLoss, lossAt: c.downlinkLossAt, mtu: c.mtu });
  assert.equal(stages.map((s) => s.kind), ['delay', 'link', 'loss']);
  assert.is((stages[1] as { mtu?: number }).mtu, 1514);
});

test('every field stays overridable, in the library and on the command line', () => {
  const c = resolveSimConfig({ preset: 'buffer-64', delayMs: 0, queueArgs: 'packets=10', durationS: 100, measureFromS: 0, downlink: { constantMbps: 3 } });
  assert.equal([c.delayMs, c.queueArgs, c.durationS, c.measureFromS, c.measureForS, c.uplink], [0, 'packets=10', 100, 0, 640, `${VERIZON}.up`]);
  const noPreset: { preset?: string; delayMs: number } = { delayMs: 5 };
  assert.equal(expandPreset(noPreset), { delayMs: 5 });
  const cli = parseSimArgs(['--preset', 'on-off', '--delay', '5', '--downlink-onoff', '100,10', '--measure-from', '30', '--scheme', 'salsify-2,oracle']).configs;
  assert.equal(cli.map((x) => [x.scheme, x.delayMs, x.downlinkOnOff, x.measureFromS, x.measureForS, x.downlink, x.mtu]), [
    ['salsify-2', 5, { meanOnMs: 100, meanOffMs: 10 }, 30, 640, '12mbps.down', 1514],
    ['oracle', 5, { meanOnMs: 100, meanOffMs: 10 }, 30, 640, '12mbps.down', 1514],
  ]);
  // Without --delay etc. the preset's values stand.
  const plain = parseSimArgs(['--preset', 'buffer-1024']).configs[0]!;
  assert.equal([plain.delayMs, plain.queue, plain.queueArgs, plain.durationS], [20, 'droptail', 'packets=1024', 702]);
  // --queue without --queue-args: the queue's own defaults, as without a preset.
  assert.is(parseSimArgs(['--preset', 'att-lte', '--queue', 'infinite']).configs[0]!.queueArgs, '');
  assert.throws(() => parseSimArgs(['--preset', 'wifi', '--measure-from', '702']), /--measure-from must be a number of seconds from 0 to below durationS \(702\)/);
  assert.throws(() => parseSimArgs(['--preset', 'nope']), /--preset must be one of att-lte, .*, got "nope"/);
});

test('a short run of a preset goes through the library as through the CLI', async () => {
  const r = await runSalsifySim({ preset: 'wifi', durationS: 4, measureFromS: 1, measureForS: 2, drainMs: 500 });
  assert.is(r.config.preset, 'wifi');
  assert.equal(r.window, { fromMs: 1000, toMs: 3000 });
  assert.is(r.summary.framesCaptured, 120);
  // About 4.8 % of the downlink's datagrams that left the (unbounded) queue are lost.
  const d = r.counters.downlink;
  const lossRate = d.drops.loss / (d.packetsOut + d.drops.loss);
  assert.ok(lossRate > 0.02 && lossRate < 0.08, `loss ${lossRate}`);
});

test('salsify sim --preset with --measure-for simulates the window, not the preset\'s 702 s', async () => {
  const r = await runSalsifySim({ preset: 'att-lte', measureFromS: 0, measureForS: 1 });
  assert.equal(r.window, { fromMs: 0, toMs: 1000 });
  // The window's end, then the 2 s drain twice: capture until 3 s, simulate until 5 s.
  assert.is(r.endMs, 5000);
  assert.is(r.counters.sender.captured, 180);
  assert.is(r.summary.framesCaptured, 60);
});

test('salsify sim --preset prints what it ran, the stand-in and the window', async () => {
  const { spawnSync } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const r = spawnSync(process.execPath, ['bin/salsify.js', 'sim', '--preset', 'buffer-64', '--duration', '2', '--measure-from', '0.5', '--encode-timing', 'paper'], {
    cwd: root, encoding: 'utf8', env: { ...process.env, LINKSHELL_TRACES: TRACES }, timeout: HANG_BOUND_MS,
  });
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, VERIZON === VERIZON_STAND_IN ? /preset buffer-64: Verizon-LTE-driving droptail 64 \(stand-in: Verizon-LTE-short\)\n/ : /preset buffer-64: Verizon-LTE-driving droptail 64\n/);
  assert.match(r.stdout, /measured over the source frames captured in \[0\.5, 2\) s/);
  assert.match(r.stdout, /queue droptail \[packets=64\], delay 20 ms, other traffic on the downlink 4000 B\/s in 100-byte packets, .*encode timing paper, frame clock single-buffer, display refresh 59\.94 Hz, seed 1\n/);
  const bad = spawnSync(process.execPath, ['bin/salsify.js', 'sim', '--preset', 'att-lte', '--encode-timing', 'fast'], { cwd: root, encoding: 'utf8', timeout: HANG_BOUND_MS });
  assert.is(bad.status, 2);
  assert.match(bad.stderr, /--encode-timing must be one of libvpx, paper, got "fast"/);
});

test.run();
