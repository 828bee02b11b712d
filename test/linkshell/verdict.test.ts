// The run's verdict (valid / late / kernel drops / unverified) and the
// --summary-json document, from hand-made figures; and from a real run.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DirectionStats } from '../../src/linkshell/direction.ts';
import { Histogram } from '../../src/linkshell/histogram.ts';
import type { DirectionReport, LinkshellReport } from '../../src/linkshell/summary.ts';
import { summaryDocument } from '../../src/linkshell/summary-json-file.ts';
import { formatVerdict, LATENESS_BOUND_MS, runVerdict } from '../../src/linkshell/verdict.ts';
import { root, TRACE_12MBPS, work } from './helpers.ts';

function direction(name: string, lateness: number[], socketDrops: number | undefined): DirectionReport {
  const h = new Histogram();
  for (const l of lateness) h.add(l);
  const stats = {
    packetsIn: lateness.length, bytesIn: 100 * lateness.length, packetsOut: lateness.length, bytesOut: 100 * lateness.length,
    drops: { loss: 0, onoff: 0, queue: 0, oversize: 0 }, dropBytes: { loss: 0, onoff: 0, queue: 0, oversize: 0 },
    memoryCapDrops: 0, memoryCapDropBytes: 0, heldBytes: 0, queueBytes: 0, queuePackets: 0, opportunities: 10, capacityBytes: 15040,
    linkDepartureBytes: 100 * lateness.length, queueingDelayMs: new Histogram(), departureLatenessMs: h, lastQueueingDelayMs: NaN,
    passthroughDatagrams: 0, passthroughBytes: 0,
  } satisfies DirectionStats;
  return { name, trace: 't', queue: 'infinite', stats, socketDrops };
}

const report = (directions: DirectionReport[]): LinkshellReport => ({ durationMs: 1000, directions, receivePath: 'native' });
const punctual = Array.from({ length: 200 }, (_, i) => (i % 10) * 0.1);

test('valid: lateness p99 within the bound and no kernel drops', () => {
  const v = runVerdict(report([direction('uplink', punctual, 0), direction('downlink', [], 0)]));
  assert.is(v.verdict, 'valid');
  assert.is(v.kernelDrops, 0);
  assert.ok(v.latenessP99Ms <= LATENESS_BOUND_MS);
  assert.is(LATENESS_BOUND_MS, 2);
});

test('late: one direction\'s lateness p99 over the bound (the worse direction decides)', () => {
  const late = [...punctual, ...Array.from({ length: 10 }, () => 8)];
  const v = runVerdict(report([direction('uplink', punctual, 0), direction('downlink', late, 0)]));
  assert.is(v.verdict, 'late');
  assert.ok(v.latenessP99Ms > 7.9 && v.latenessP99Ms < 8.1, String(v.latenessP99Ms));
  assert.match(formatVerdict(runVerdict(report([direction('uplink', late, 0)]))), /verdict: late \(departure lateness p99 8\.0\d\d ms \(bound 2 ms\), max 8\.000 ms; 0 kernel drops\)/);
});

test('kernel drops: any datagram the kernel dropped before linkshell took it, whatever the lateness; unverified when not known', () => {
  assert.is(runVerdict(report([direction('uplink', punctual, 3), direction('downlink', punctual, 0)])).verdict, 'kernel drops');
  assert.is(runVerdict(report([direction('uplink', punctual, 3), direction('downlink', punctual, 0)])).kernelDrops, 3);
  assert.is(runVerdict(report([direction('uplink', punctual, 0), direction('downlink', punctual, undefined)])).verdict, 'unverified');
});

test('the JSON document: verdict, bound, figures per direction, no NaN', () => {
  const doc = summaryDocument(report([direction('uplink', punctual, 0), direction('downlink', [], 0)])) as Record<string, unknown>;
  const text = JSON.stringify(doc);
  assert.not.match(text, /NaN/);
  const back = JSON.parse(text);
  assert.is(back.verdict, 'valid');
  assert.is(back.latenessBoundMs, 2);
  assert.is(back.receivePath, 'native');
  assert.is(back.directions[1].departureLatenessMs.p99, null);
  assert.is(back.directions[0].departureLatenessMs.count, 200);
});

test('linkshell --summary-json FILE writes the document; a path that cannot be written is refused before anything runs, and leaves an existing file as it was', () => {
  const out = join(work, 'summary.json');
  const bin = join(root, 'bin/linkshell.js');
  const r = spawnSync(process.execPath, [bin, '--trace', TRACE_12MBPS, '--connect', '127.0.0.1:9', '--summary-json', out, '--', 'true'], { encoding: 'utf8', timeout: 60_000 });
  assert.is(r.status, 0, r.stderr);
  const doc = JSON.parse(readFileSync(out, 'utf8'));
  assert.ok(['valid', 'late', 'kernel drops'].includes(doc.verdict), doc.verdict);
  assert.is(doc.directions.length, 2);
  assert.match(r.stderr, new RegExp(`verdict: ${doc.verdict} \\(`));
  const bad = spawnSync(process.execPath, [bin, '--trace', TRACE_12MBPS, '--connect', '127.0.0.1:9', '--summary-json', join(work, 'no/such/dir/s.json'), '--', 'true'], { encoding: 'utf8', timeout: 60_000 });
  assert.is(bad.status, 2);
  assert.match(bad.stderr, /^linkshell: cannot write .*no\/such\/dir\/s\.json: no such directory\n$/);
  writeFileSync(out, 'kept');
  const same = spawnSync(process.execPath, [bin, '--trace', TRACE_12MBPS, '--connect', '127.0.0.1:9', '--summary-json', out, '--uplink-log', out, '--', 'true'], { encoding: 'utf8', timeout: 60_000 });
  assert.is(same.status, 2);
  assert.is(readFileSync(out, 'utf8'), 'kept');
  assert.ok(existsSync(out));
});

test.run();
