// The figures of `linkshell stats` and `linkshell graph` follow Mahimahi's
// mm-throughput-graph and mm-delay-graph: hand-computed cases, and the values
// Mahimahi's scripts print for the real Mahimahi logs in ../shared/conformance.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { parseLinkLog } from '../../src/link-emu/link-log.ts';
import { linkLogStats, rankQuantile, roundedStats, signalDelaySeries, throughputBins } from '../../src/link-emu/log-stats.ts';

test('rankQuantile: the value at index floor(q n), as Mahimahi indexes; the largest for q = 1', () => {
  const v = Float64Array.from([10, 20, 30, 40]);
  assert.is(rankQuantile(v, 0.5), 30); // interpolation would say 25
  assert.is(rankQuantile(v, 0.95), 40); // interpolation would say 38.5
  assert.is(rankQuantile(v, 0), 10);
  assert.is(rankQuantile(v, 1), 40);
  assert.ok(Number.isNaN(rankQuantile([], 0.5)));
  assert.throws(() => rankQuantile(v, 1.5), /quantile must be in/);
  // 305 and 306 at the 95th percentile: Mahimahi prints 306, interpolation 305.5.
  const many = Float64Array.from({ length: 40 }, (_, i) => (i < 37 ? 300 : i === 37 ? 305 : 306));
  assert.is(rankQuantile(many, 0.95), 306);
});

// Base timestamp 100. Packets: A arrives 100 (delay 5), B arrives 103 (delay 4),
// C arrives 104 and is dropped, D arrives 106 (delay 2).
const HAND_LOG = `# mahimahi mm-link (Uplink) [t] > x.log
# base timestamp: 100
100 + 1000
100 # 1500
103 + 500
104 + 1500
104 d 1 1500
105 - 1000 5
106 + 250
107 - 500 4
108 - 250 2
300 # 1500
`;

test('a hand-made log: capacity, throughput, utilisation, delays and signal delay by Mahimahi\'s definitions', () => {
  const s = linkLogStats(parseLinkLog(HAND_LOG, 'hand.log'));
  assert.is(s.durationMs, 200);
  assert.is(s.capacityMbps, (3000 * 8) / 200 / 1000); // 0.12
  assert.is(s.throughputMbps, (1750 * 8) / 200 / 1000); // 0.07
  assert.is(s.utilization, 1750 / 3000);
  assert.is(s.drops, 1);
  assert.is(s.dropBytes, 1500);
  assert.equal(s.delayMs, { mean: 11 / 3, p50: 4, p95: 5, p99: 5, max: 5 });
  // Signal delay per ms, arrivals 100..106: 100 -> 5, 101 -> 4+2 = 6 (waits for B at 103), 102 -> 5,
  // 103 -> 4, 104 -> 2+2 = 4 (C was dropped: it does not count), 105 -> 3, 106 -> 2.
  const series = signalDelaySeries(parseLinkLog(HAND_LOG, 'hand.log'));
  assert.is(series.startMs, 100);
  assert.equal(Array.from(series.values), [5, 6, 5, 4, 4, 3, 2]);
  // Sorted 2 3 4 4 5 5 6: p95 at index floor(6.65) = 6.
  assert.is(s.signalDelayMs!.p95, 6);
  assert.is(s.signalDelayMs!.p50, 4);
});

test('throughput bins count from the base timestamp and include drops', () => {
  const bins = throughputBins(parseLinkLog(HAND_LOG, 'hand.log'), 100);
  assert.is(bins.length, 3);
  assert.equal(bins.map((b) => b.startMs), [0, 100, 200]);
  assert.equal(bins[0], { startMs: 0, capacityMbps: 0.12, ingressMbps: (3250 * 8) / 100 / 1000, egressMbps: 0.14, dropMbps: 0.12, dropPackets: 1 });
  assert.equal(bins[1], { startMs: 100, capacityMbps: 0, ingressMbps: 0, egressMbps: 0, dropMbps: 0, dropPackets: 0 });
  assert.is(bins[2].capacityMbps, 0.12);
});

test('JSON figures are rounded to the precision they carry', () => {
  const s = roundedStats(linkLogStats(parseLinkLog(HAND_LOG, 'hand.log')));
  assert.is(s.utilization, 0.5833);
  assert.is(s.delayMs!.mean, 3.667);
  assert.is(s.throughputMbps, 0.07);
});

// What Mahimahi's own scripts print for these logs (mm-delay-graph for all, and
// mm-throughput-graph 500 for those without drops, which it refuses).
const MAHIMAHI = [
  { log: 'att_droptail_p20.up.log', p95: 149, p95Signal: 1347 },
  { log: 'att_infinite.down.log', p95: 14, p95Signal: 356, capacity: '6.08', throughput: '0.05', utilisation: '0.8' },
  { log: 'att_infinite.up.log', p95: 1603, p95Signal: 1578, capacity: '1.08', throughput: '0.81', utilisation: '75.4' },
  { log: 'const3_droptail_p20.up.log', p95: 41, p95Signal: 49 },
  { log: 'verizon8s_once.up.log', p95: 67, p95Signal: 67, capacity: '7.86', throughput: '4.67', utilisation: '59.4' },
];

for (const m of MAHIMAHI) {
  test(`Mahimahi's figures for ${m.log}`, () => {
    const path = new URL(`../../../shared/conformance/${m.log}`, import.meta.url);
    const s = linkLogStats(parseLinkLog(readFileSync(path, 'utf8'), m.log));
    assert.is(s.delayMs!.p95, m.p95);
    assert.is(s.signalDelayMs!.p95, m.p95Signal);
    if (m.capacity !== undefined) {
      assert.is(s.capacityMbps.toFixed(2), m.capacity);
      assert.is(s.throughputMbps.toFixed(2), m.throughput);
      assert.is((100 * s.utilization).toFixed(1), m.utilisation);
    }
  });
}

test.run();
