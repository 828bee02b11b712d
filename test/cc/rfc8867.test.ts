import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CASE_IDS, rfc8867Case } from '../../src/cc/rfc8867/cases.ts';
import { runRfc8867Case } from '../../src/cc/rfc8867/run-case.ts';
import { writeSuite, suiteToCsv, formatSuiteTable } from '../../src/cc/rfc8867/report.ts';
import { readThresholdsFile, thresholdsFor, DEFAULT_THRESHOLDS } from '../../src/cc/rfc8867/thresholds.ts';
import { computeCaseMetrics, jainIndex } from '../../src/cc/metrics/rfc8868.ts';
import { FlowRecorder } from '../../src/cc/metrics/flow-records.ts';
import { cbrFlow } from '../../src/cc/sim/cbr-flow.ts';
import { parseLinkLog } from '../../src/link-emu/link-log.ts';
import { linkLogStats } from '../../src/link-emu/log-stats.ts';
import { constantRateTrace } from '../../src/link-emu/trace-generators.ts';
import { errorCodeOf } from '../../src/common/errors.ts';

test('case 5.1 has the parameters RFC 8867 gives it', () => {
  const c = rfc8867Case('5.1');
  assert.is(c.durationMs, 100_000);
  assert.equal(c.forward.schedule, [{ atMs: 0, rateMbps: 1 }, { atMs: 40_000, rateMbps: 2.5 }, { atMs: 60_000, rateMbps: 0.6 }, { atMs: 80_000, rateMbps: 1 }]);
  assert.is(c.queueMs, 300);
  assert.is(c.flows.length, 1);
  assert.equal(c.flows[0], { kind: 'media', direction: 'forward', delayMs: 50, startMs: 0 });
  assert.equal(rfc8867Case('5.5').flows.map((f) => [f.delayMs, f.startMs]), [[10, 0], [25, 10_000], [50, 20_000], [100, 30_000], [150, 40_000]]);
  assert.equal(rfc8867Case('5.8').flows.map((f) => (f.kind === 'media' ? f.pauses ?? [] : [])), [[], [[40_000, 60_000]], []]);
  assert.equal(rfc8867Case('5.3').flows.map((f) => f.direction), ['forward', 'backward']);
  assert.is(rfc8867Case('5.7').flows.filter((f) => f.kind === 'tcp-short').length, 10);
  for (const id of ['5.1', '5.2', '5.3', '5.4', '5.5', '5.6', '5.7', '5.8']) assert.ok(CASE_IDS.includes(id as never), id);
  assert.throws(() => rfc8867Case('5.9'), /unknown RFC 8867 case "5.9"/);
});

test('the variants: 5.1b at 100 ms one-way, 5.6c with a 20 ms queue, 5.7 with one 30-50 KiB download per ON period, libwebrtc\'s 5.7 with one file each; 8869-cellular an alias', () => {
  const b = rfc8867Case('5.1b');
  assert.equal(b.forward, rfc8867Case('5.1').forward);
  assert.equal(b.flows.map((f) => f.delayMs), [100]);
  assert.equal(['5.6', '5.6b', '5.6c'].map((id) => rfc8867Case(id).queueMs), [300, 1000, 20]);
  const short = (id: string) => rfc8867Case(id).flows.filter((f) => f.kind === 'tcp-short');
  for (const f of short('5.7')) assert.equal([f.connectionsPerBurst, f.minFileBytes, f.maxFileBytes, f.maxBursts], [1, 30 * 1024, 50 * 1024, undefined]);
  for (const f of short('5.7-libwebrtc')) assert.equal([f.connectionsPerBurst, f.minFileBytes, f.maxFileBytes, f.maxBursts], [1, 100_000, 1_000_000, 1]);
  assert.equal(short('5.7').map((f) => f.startsOn), [true, true, false, false, false, false, false, false, false, false]);
  assert.is(rfc8867Case('8869-cellular'), rfc8867Case('cellular-trace'));
  assert.not.ok(CASE_IDS.includes('8869-cellular' as never));
});

test('5.1 to 5.3: no packet waits longer than the 300 ms queue, even where the capacity falls (a source far above it throughout)', async () => {
  for (const id of ['5.1', '5.2', '5.3']) {
    const r = await runRfc8867Case(id, cbrFlow({ bitrate: 3e6 }));
    for (const f of r.metrics.flows) {
      // The bound is exact (the link knows its schedule); the queue is full most of the time.
      assert.ok(f.queueingDelayMs.max! <= 300, `${id} flow ${f.flowId}: max wait ${f.queueingDelayMs.max} ms`);
      assert.ok(f.queueingDelayMs.p50! > 250, `${id} flow ${f.flowId}: p50 ${f.queueingDelayMs.p50} ms`);
    }
    assert.is(r.links.forward.maxWaitMs, 300);
  }
});

test('5.7: the short TCP flows lose less than 5 % of their packets', async () => {
  const r = await runRfc8867Case('5.7', cbrFlow({ bitrate: 500_000 }));
  const tcp = r.metrics.flows.filter((f) => f.controller.startsWith('tcp-short'));
  assert.is(tcp.length, 10);
  const sent = tcp.reduce((a, f) => a + f.packetsSent, 0);
  const dropped = tcp.reduce((a, f) => a + f.packetsDropped, 0);
  assert.ok(sent > 1000, `sent ${sent}`);
  assert.ok(dropped / sent < 0.05, `short flows' loss ${dropped} / ${sent}`);
});

test('5.7-libwebrtc: each short TCP flow downloads one file of 100 to 1000 kB and is then silent', async () => {
  const r = await runRfc8867Case('5.7-libwebrtc', cbrFlow({ bitrate: 500_000 }));
  const tcp = r.metrics.flows.filter((f) => f.controller.startsWith('tcp-short'));
  assert.is(tcp.length, 10);
  for (const f of tcp) {
    // One file: 69 to 691 full segments of 1448 bytes, plus a few retransmissions.
    assert.ok(f.packetsSent >= 69 && f.packetsSent < 1.2 * 691, `flow ${f.flowId}: ${f.packetsSent} packets`);
    assert.ok(f.sendRateKbps.slice(200).every((x) => x === 0), `flow ${f.flowId} still sends after 200 s`);
  }
});

test('Jain\'s index: 1 for equal shares, 1/n for one flow taking all', () => {
  assert.is(jainIndex([3, 3, 3]), 1);
  assert.ok(Math.abs(jainIndex([1, 0, 0, 0]) - 0.25) < 1e-12);
  assert.ok(Math.abs(jainIndex([1, 2]) - 0.9) < 1e-12);
});

test('5.1 with a constant 0.8 Mbit/s source: the metrics a hand computation gives', async () => {
  const r = await runRfc8867Case('5.1', cbrFlow({ bitrate: 800_000 }));
  const f = r.metrics.flows[0]!;
  // 1200-byte payloads + 32 bytes on the link, every 12 ms: 821.3 kbit/s offered on the link.
  assert.ok(Math.abs(f.bitsSent / 100_000 - 821.33) < 0.5, `sent ${f.bitsSent / 100_000} kbit/s`);
  // It fits in 1, 2.5 and 1 Mbit/s, not in 0.6: from 60 to 80 s the queue fills (300 ms: 22500 bytes at 0.6 Mbit/s) and drops.
  assert.ok(f.queueingDelayMs.p50! < 20, `p50 ${f.queueingDelayMs.p50}`);
  assert.ok(f.queueingDelayMs.p99! > 280 && f.queueingDelayMs.max! <= 300, `p99 ${f.queueingDelayMs.p99}, max ${f.queueingDelayMs.max}`);
  const sent = f.packetsSent;
  // Delivered from 60 to 80 s: at most the capacity (0.6 Mbit/s x 20 s); lost: the excess, less what the queue holds.
  const offeredIn06 = (20_000 / 12) * 1232 * 8;
  const expectedLoss = (offeredIn06 - 0.6e6 * 20 - 22_500 * 8) / (1232 * 8);
  assert.ok(Math.abs(f.packetsDropped - expectedLoss) < 30, `dropped ${f.packetsDropped}, about ${expectedLoss} expected`);
  assert.is(f.lossRate, Math.round((f.packetsDropped / f.packetsAtLink) * 1e5) / 1e5);
  assert.ok(sent - f.packetsAtLink >= 0 && sent - f.packetsAtLink <= 5, "only those still crossing the delay at the end have not reached the link");
  // Rates in the bins of the 2.5 Mbit/s piece equal what was sent; in the 0.6 piece, the capacity.
  assert.ok(Math.abs(f.rateKbps[50]! - 821.3) < 15, `rate at 50 s ${f.rateKbps[50]}`);
  assert.ok(Math.abs(f.rateKbps[70]! - r.metrics.directions.forward.capacityKbps[70]!) < 15, `rate at 70 s ${f.rateKbps[70]}`);
  // Convergence: the 0.6 piece never meets the delay bound; the 2.5 Mbit/s piece never the 70 % rate; at 80 s
  // the full queue (300 ms at 0.6 Mbit/s: 180 kbit) drains at 1000 - 821.3 kbit/s, about 1 s, before the mean delay is under 100 ms.
  assert.equal(r.metrics.convergence.map((c) => c.convergenceMs), [0, null, null, 1000]);
  // Lost: about 430 of the 8330 packets sent (5.2 %): the 300 ms queue holds less than the old 1.25 s one did, so more of the 60-80 s excess is dropped.
  assert.ok(f.lossRate > 0.05 && f.lossRate < 0.056, `loss ${f.lossRate}`);
  assert.equal(r.checks.map((c) => [c.check, c.pass]), [['utilisation', true], ['queueingDelayP95', false], ['lossRate', false], ['convergence', false]]);
  assert.is(r.pass, false);
});

test('convergence: the first bin from which every bin of the piece is within the band', () => {
  const recorder = new FlowRecorder();
  // A flow that gets 50 % of 1 Mbit/s for 3 s, then 90 %: converged 3 s after the start.
  const trace = constantRateTrace({ rateMbps: 1, bytesPerOpportunity: 1000 });
  for (let ms = 1; ms <= 10_000; ms++) {
    const want = ms <= 3000 ? 0.5 : 0.9;
    if (Math.floor(ms * want / 8) > Math.floor((ms - 1) * want / 8)) recorder.departure('forward', 0, ms, 1000, 5);
  }
  const run = { durationMs: 10_000, eventsRun: 0, counters: {} as never, flows: [{ flowId: 0, label: 'x', factory: 'x', direction: 'forward' as const, delayMs: 0, startMs: 0, stopMs: 10_000, pauses: [], targetBitrate: [] }] };
  const m = computeCaseMetrics({ run, records: recorder, links: { forward: { trace, mtu: 1000, changes: [{ atMs: 0, rateMbps: 1 }] }, backward: { trace, mtu: 1000, changes: [] } } });
  assert.equal(m.convergence.map((c) => c.convergenceMs), [3000]);
  assert.ok(Math.abs(m.flows[0]!.utilisation - (0.3 * 0.5 + 0.7 * 0.9)) < 0.01, `utilisation ${m.flows[0]!.utilisation}`);
});

test('thresholds: defaults, overrides for all cases and per case, bad files named', () => {
  assert.equal(thresholdsFor('5.1'), DEFAULT_THRESHOLDS);
  assert.is(thresholdsFor('5.4', { fairnessMin: 0.9, '5.4': { fairnessMin: 0.95 } }).fairnessMin, 0.95);
  assert.is(thresholdsFor('5.2', { fairnessMin: 0.9, '5.4': { fairnessMin: 0.95 } }).fairnessMin, 0.9);
  const dir = mkdtempSync(join(tmpdir(), 'thresholds-'));
  try {
    const file = (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    };
    for (const [text, message] of [
      ['{', /not JSON/], ['[1]', /must be a JSON object/], ['{"fairness": 1}', /unknown threshold "fairness"/],
      ['{"lossRateMax": "x"}', /lossRateMax must be a finite number >= 0, got "x"/], ['{"5.1": {"utilisationMin": -1}}', /case 5.1: utilisationMin must be/],
    ] as const) {
      const path = file('t.json', text);
      try {
        readThresholdsFile(path);
        assert.unreachable(text);
      } catch (error) {
        assert.is(errorCodeOf(error), 'ERR_BAD_INPUT', text);
        assert.match((error as Error).message, message);
        assert.ok((error as Error).message.startsWith(path), 'names the file');
      }
    }
    assert.throws(() => readThresholdsFile(join(dir, 'missing.json')), /missing\.json/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('deterministic: the same case, controller and seed give byte-identical output files; another seed does not', async () => {
  const dirs = [0, 1, 2].map(() => mkdtempSync(join(tmpdir(), 'rfc8867-det-')));
  try {
    for (const [i, seed] of [[0, 4], [1, 4], [2, 5]] as const) {
      const r = await runRfc8867Case('5.2', 'salsify-1', { seed, logs: true, durationMs: 10_000 });
      await writeSuite(dirs[i]!, [r]);
    }
    const files = readdirSync(dirs[0]!).sort();
    assert.ok(files.includes('summary.csv') && files.includes('5.2.salsify-1.json') && files.includes('5.2.salsify-1.svg') && files.includes('salsify-1.5.2.forward.flow-1.log'), files.join(' '));
    assert.equal(readdirSync(dirs[1]!).sort(), files);
    for (const f of files) assert.ok(readFileSync(join(dirs[0]!, f)).equals(readFileSync(join(dirs[1]!, f))), `${f} differs between two runs`);
    assert.not.ok(readFileSync(join(dirs[0]!, 'salsify-1.5.2.forward.log')).equals(readFileSync(join(dirs[2]!, 'salsify-1.5.2.forward.log'))), 'another seed, another run');
    // The logs are mm-link logs: the shared one and each flow's parse, and the flows' departures add up to the shared link's.
    const stats = (name: string) => linkLogStats(parseLinkLog(readFileSync(join(dirs[0]!, name), 'utf8'), name));
    const whole = stats('salsify-1.5.2.forward.log');
    const flows = [0, 1].map((i) => stats(`salsify-1.5.2.forward.flow-${i}.log`));
    assert.is(flows[0]!.departureBytes + flows[1]!.departureBytes, whole.departureBytes);
    assert.is(flows[0]!.capacityBytes, whole.capacityBytes);
    assert.match(readFileSync(join(dirs[0]!, 'salsify-1.5.2.forward.flow-1.log'), 'utf8'), /^# flow: 1 \(flow 1\), forward$/m);
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
});

test('the table and CSV say each case\'s result', async () => {
  const r = await runRfc8867Case('5.4', cbrFlow({ bitrate: 1e6 }), { durationMs: 60_000 });
  const table = formatSuiteTable([r]);
  assert.match(table, /5\.4/);
  assert.match(table, /pass|FAIL/);
  const csv = suiteToCsv([r]).trim().split('\n');
  assert.is(csv.length, 1 + 3);
  assert.ok(csv[0]!.startsWith('case,controller,seed,flow,'));
  // Three equal CBR flows: fair once the third has started.
  assert.is(r.metrics.fairness[0]!.jainIndex, 1);
});


test('5.3: media both ways, each direction measured against its own capacity schedule', async () => {
  const r = await runRfc8867Case('5.3', cbrFlow({ bitrate: 400_000 }), { durationMs: 50_000 });
  const [forward, backward] = r.metrics.flows;
  assert.is(forward!.direction, 'forward');
  assert.is(backward!.direction, 'backward');
  // 0.4 Mbit/s fits 2, 1 and 0.8 Mbit/s but not the forward link's 0.5 Mbit/s from 40 s (queueing grows there only).
  assert.ok(Math.abs(r.metrics.directions.forward.capacityKbps[45]! - 500) < 13, `forward at 45 s ${r.metrics.directions.forward.capacityKbps[45]}`);
  assert.ok(Math.abs(r.metrics.directions.backward.capacityKbps[45]! - 800) < 13, `backward at 45 s ${r.metrics.directions.backward.capacityKbps[45]}`);
  assert.ok(forward!.queueingDelaySeriesMs[30]! < 20 && backward!.queueingDelaySeriesMs[45]! < 20);
  // Both directions' changes are measured: the start and 20 s, 40 s forward; the start and 35 s backward.
  assert.equal(r.metrics.convergence.map((c) => [c.direction, c.atMs]), [['forward', 0], ['forward', 20_000], ['forward', 40_000], ['backward', 0], ['backward', 35_000]]);
});

test('Salsify as a flow: no target rate, its sent bits against the capacity; paused in 5.8, it sends again on resume', async () => {
  const r = await runRfc8867Case('5.8', 'salsify-1', { durationMs: 70_000 });
  const paused = r.metrics.flows[1]!;
  assert.ok(paused.targetKbps.every((t) => t === null), 'no target bitrate');
  assert.ok(paused.sendRateKbps[30]! > 100, `sends before the pause: ${paused.sendRateKbps[30]}`);
  assert.ok(paused.sendRateKbps.slice(41, 60).every((x) => x === 0), 'nothing while paused');
  assert.ok(paused.sendRateKbps[65]! > 100, `sends again after 60 s: ${paused.sendRateKbps[65]}`);
  assert.ok(paused.bitsSent >= paused.bitsDelivered && paused.bitsDelivered > 0);
});

test('5.6 and 5.6b: the cross traffic as given (here a 3 Mbit/s CBR stand-in), from 0 s; the media from 5 s; 300 and 1000 ms queues', async () => {
  const crossTraffic = () => cbrFlow({ bitrate: 3e6 });
  const short = await runRfc8867Case('5.6', cbrFlow({ bitrate: 200_000 }), { crossTraffic, durationMs: 30_000 });
  const long = await runRfc8867Case('5.6b', cbrFlow({ bitrate: 200_000 }), { crossTraffic, durationMs: 30_000 });
  for (const r of [short, long]) {
    assert.equal(r.metrics.flows.map((f) => [f.controller, f.startMs]), [['cbr-0.2mbps', 5000], ['cbr-3mbps', 0]]);
    assert.is(r.links.forward.queueArgs, `bytes=${r === short ? 75_000 : 250_000}`);
  }
  // Both overload the 2 Mbit/s link: the queue is full, 300 ms or 1000 ms of it.
  assert.ok(Math.abs(short.metrics.flows[0]!.queueingDelayMs.p50! - 300) < 20, `p50 ${short.metrics.flows[0]!.queueingDelayMs.p50}`);
  assert.ok(Math.abs(long.metrics.flows[0]!.queueingDelayMs.p50! - 1000) < 30, `p50 ${long.metrics.flows[0]!.queueingDelayMs.p50}`);
  // Only the media flows are judged: the media's share is its own.
  const share = short.checks.find((c) => c.check === 'mediaShare')!;
  assert.ok(Math.abs(share.value! - short.metrics.flows[0]!.utilisation) < 1e-4);
});

test.run();
