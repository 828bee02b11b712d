// getStats as a browser reports it: a field no snapshot gave is not
// invented. Firefox's outbound-rtp has no targetBitrate or
// qualityLimitationReason, its candidate pair no availableOutgoingBitrate:
// they stay missing, are named in notReported, and are null in the totals
// written to summary.json.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { summarizeStats, totalsWithNulls } from '../../src/webrtc/stats-summary.ts';
import type { StatsSnapshot } from '../../src/webrtc/call.ts';

const snapshot = (t: number, bytes: number, chromiumOnly: boolean): StatsSnapshot => ({
  t,
  report: [
    { type: 'outbound-rtp', kind: 'video', bytesSent: bytes, packetsSent: bytes / 1000, framesEncoded: t / 33, frameWidth: 640, frameHeight: 360, ...(chromiumOnly ? { targetBitrate: 1e6, qualityLimitationReason: 'none', encoderImplementation: 'libvpx' } : {}) },
    { type: 'candidate-pair', nominated: true, state: 'succeeded', currentRoundTripTime: 0.04, ...(chromiumOnly ? { availableOutgoingBitrate: 2e6 } : {}) },
  ],
});

test("the fields Firefox does not report are named and null, the others kept", () => {
  const firefox = summarizeStats([snapshot(0, 0, false), snapshot(500, 62_500, false)], []);
  assert.ok(firefox.notReported.includes('series.targetMbps'));
  assert.ok(firefox.notReported.includes('series.availableMbps'));
  assert.ok(firefox.notReported.includes('series.qualityLimitation'));
  assert.ok(firefox.notReported.includes('totals.encoderImplementation'));
  assert.not.ok(firefox.notReported.includes('series.sendMbps'));
  assert.not.ok(firefox.notReported.includes('totals.bytesSent'));
  assert.is(firefox.series[1]!.targetMbps, undefined);
  assert.is(firefox.series[1]!.sendMbps, 1);
  const totals = totalsWithNulls(firefox.totals);
  assert.is(totals.encoderImplementation, null);
  assert.is(totals.bytesSent, 62_500);
  assert.is(JSON.parse(JSON.stringify(totals)).encoderImplementation, null, 'kept in JSON as null');
  const chromium = summarizeStats([snapshot(0, 0, true), snapshot(500, 62_500, true)], []);
  assert.not.ok(chromium.notReported.includes('series.targetMbps'));
  assert.is(chromium.series[1]!.targetMbps, 1);
});

test.run();
