// The summary table and the live status line, from hand-made figures.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DirectionStats } from '../../src/linkshell/direction.ts';
import { Histogram } from '../../src/linkshell/histogram.ts';
import { formatSummary, StatusLine, throughputFigures, type DirectionReport } from '../../src/linkshell/summary.ts';

function stats(over: Partial<DirectionStats> = {}): DirectionStats {
  const delays = new Histogram();
  for (const d of [1, 2, 3, 4, 100]) delays.add(d);
  const lateness = new Histogram();
  for (const l of [0.05, 0.1, 0.2]) lateness.add(l);
  return {
    packetsIn: 10,
    bytesIn: 15040,
    packetsOut: 8,
    bytesOut: 12032,
    drops: { loss: 1, onoff: 0, queue: 1, oversize: 0 },
    dropBytes: { loss: 1504, onoff: 0, queue: 1504, oversize: 0 },
    memoryCapDrops: 2,
    memoryCapDropBytes: 3008,
    heldBytes: 0,
    queueBytes: 1504,
    queuePackets: 1,
    opportunities: 1000,
    capacityBytes: 1_504_000,
    linkDepartureBytes: 752_000,
    queueingDelayMs: delays,
    departureLatenessMs: lateness,
    passthroughDatagrams: 0,
    passthroughBytes: 0,
    lastQueueingDelayMs: 4,
    ...over,
  };
}

test('throughput against capacity over the run', () => {
  const t = throughputFigures(stats(), 1000);
  assert.is(t.capacityMbps, 12.032);
  assert.is(t.throughputMbps, 6.016);
  assert.is(t.utilization, 0.5);
});

test('the summary has one column per direction and every figure the issue asks for', () => {
  const directions: DirectionReport[] = [
    { name: 'uplink', trace: 'up.trace', queue: 'droptail [packets=5]', stats: stats(), socketDrops: 17 },
    { name: 'downlink', trace: 'down.trace', queue: 'infinite', stats: stats({ queueingDelayMs: new Histogram(), departureLatenessMs: new Histogram() }), socketDrops: undefined },
  ];
  const text = formatSummary({ durationMs: 1000, directions, relay: { sources: 2, refusedSourceDatagrams: 0, foreignDatagrams: 0, foreignPortDatagrams: 4, sendErrors: 3, peerRefusals: 0, socketErrors: 0, evictedSources: 0, evictedFlowDatagrams: 0 } });
  assert.match(text, /^linkshell: ran 1\.000 s; 2 inside sources, 4 datagrams from the peer's host but another port than the peer's dropped, 3 send errors\n/);
  const row = (label: string) => text.split('\n').find((l) => l.includes(`│ ${label} `)) ?? '';
  assert.match(row('datagrams in'), /│ 12 +│ 12 +│/);
  assert.match(row('bytes in (on link)'), /│ 18048 +│/);
  assert.match(row('drops: queue'), /│ 1 +│/);
  assert.match(row('drops: memory cap'), /│ 2 +│/);
  assert.match(row('drops: loss'), /│ 1 +│/);
  assert.match(row('drops: oversize'), /│ 0 +│/);
  assert.match(row('drops: socket (kernel)'), /│ 17 +│ not known +│/);
  assert.match(row('capacity'), /│ 12\.032 Mbit\/s/);
  assert.match(row('throughput'), /│ 6\.016 Mbit\/s \(50\.0 %\)/);
  assert.match(row('queueing delay'), /│ p50 3 p95 100 p99 100 max 100 ms +│ no departures +│/);
  assert.match(row('departure lateness'), /│ p50 0\.100 p99 0\.200 max 0\.200 ms +│ no departures +│/);
});

test('the status line shows each direction\'s rate since the last line, queue, latest delay and drops', () => {
  const line = new StatusLine();
  const at = (bytesOut: number): DirectionReport[] => [{ name: 'uplink', trace: 't', queue: 'infinite', stats: stats({ bytesOut }), socketDrops: 0 }];
  assert.is(line.line(500, at(0)), '0.5 s | uplink - Mbit/s, queue 1 pkts/1504 B, delay 4 ms, 4 drops');
  assert.is(line.line(1000, at(62_500)), '1.0 s | uplink 1.00 Mbit/s, queue 1 pkts/1504 B, delay 4 ms, 4 drops');
});

test.run();
