// mm-onoff's process reports its off periods (for the eval's capacity plot):
// exactly the times isOn() says off, whatever the order it was asked in, and
// for the series, no capacity while the link is off.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRng } from '../../src/common/random.ts';
import { OnOffProcess } from '../../src/link-emu/impairments.ts';
import { runSeries } from '../../src/eval/series.ts';
import { runSalsifySim } from '../../src/salsify/sim-runner.ts';

test('the off periods are exactly where an identical process says off', () => {
  for (const startOn of [true, false]) {
    const reported = new OnOffProcess(500, 100, createRng(7), 0, startOn).offPeriods(20_000);
    const probe = new OnOffProcess(500, 100, createRng(7), 0, startOn);
    assert.ok(reported.length > 10, `${reported.length} periods`);
    for (let t = 0; t < 20_000; t += 7) {
      const off = reported.some(([from, to]) => from <= t && t < to);
      assert.is(off, !probe.isOn(t), `t = ${t} ms, starting ${startOn ? 'on' : 'off'}`);
    }
    for (const [from, to] of reported) assert.ok(from < to && to <= 20_000);
  }
});

test('the series: a constant link has no capacity while it is off', () => {
  const bins = runSeries([], 2000, { trace: null, constantMbps: 12, mtu: 1500, offMs: [[250, 500], [1000, 1500]] });
  assert.equal(bins.map((b) => b.capacityMbps), [6, 12, 0, 12]);
});

test('the simulator returns its on-off downlink\'s off periods, and none for a link without', async () => {
  const base = { downlink: { constantMbps: 12 }, uplink: { constantMbps: 12 }, codec: 'model', durationS: 4, scheme: 'salsify-1' } as const;
  const onOff = await runSalsifySim({ ...base, downlinkOnOff: { meanOnMs: 500, meanOffMs: 100 } });
  assert.ok(onOff.downlinkOffMs.length >= 3, `${onOff.downlinkOffMs.length} off periods`);
  for (const [from, to] of onOff.downlinkOffMs) assert.ok(from < to && to <= onOff.endMs);
  assert.equal((await runSalsifySim(base)).downlinkOffMs, []);
});

test.run();
