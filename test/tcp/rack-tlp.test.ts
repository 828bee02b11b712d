// RACK (RFC 8985 6) and TLP (RFC 8985 7) as pure state machines, against
// hand-computed cases; the sender-level cases are in sender.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Rack } from '../../src/tcp/rack.ts';
import { probeTimeout, TailLossProbe } from '../../src/tcp/tlp.ts';

test('RACK: a segment sent before the most recently sent delivered one is lost RACK.rtt + reo_wnd after it was sent', () => {
  const rack = new Rack();
  rack.onRttSample(40);
  rack.onDelivered({ end: 3000, xmitMs: 2, retransmitted: false }, 50); // RACK.rtt 48
  const reo = rack.reorderingWindow(false, 1, 45);
  assert.is(reo, 10); // min(min_RTT / 4, SRTT)
  assert.is(rack.remaining({ end: 1000, xmitMs: 0, retransmitted: false }, 50, reo), 8); // 0 + 48 + 10 - 50
  assert.is(rack.remaining({ end: 1000, xmitMs: 0, retransmitted: false }, 58, reo), 0);
  assert.is(rack.remaining({ end: 2000, xmitMs: 2, retransmitted: false }, 50, reo), 10); // same time, lower end: sent before
  assert.is(rack.remaining({ end: 4000, xmitMs: 2, retransmitted: false }, 50, reo), Infinity); // sent after
  assert.is(rack.remaining({ end: 5000, xmitMs: 3, retransmitted: false }, 50, reo), Infinity);
});

test('RACK: reo_wnd is 0 in recovery or with 3 segments SACKed, until reordering is seen', () => {
  const rack = new Rack();
  rack.onRttSample(40);
  assert.is(rack.reorderingWindow(true, 0, 45), 0);
  assert.is(rack.reorderingWindow(false, 3, 45), 0);
  assert.is(rack.reorderingWindow(false, 2, 5), 5); // capped at SRTT
  rack.beginAck();
  rack.onDelivered({ end: 3000, xmitMs: 2, retransmitted: false }, 50);
  rack.beginAck();
  rack.onDelivered({ end: 2000, xmitMs: 1, retransmitted: false }, 51); // below RACK.fack, never retransmitted: reordering
  assert.ok(rack.state().reorderingSeen);
  assert.is(rack.reorderingWindow(true, 5, 45), 10);
});

test('RACK: an ACK that acknowledges a segment cumulatively and SACKs one above a hole is no reordering (fack before the ACK)', () => {
  const rack = new Rack();
  rack.onRttSample(40);
  rack.beginAck();
  rack.onDelivered({ end: 1000, xmitMs: 0, retransmitted: false }, 40); // segment 0 in order
  // one ACK: cumulative up to 2000 (segment 1) and a SACK of [3000, 4000) above the lost segment 2; the sender
  // hands RACK the SACKed segment first
  rack.beginAck();
  rack.onDelivered({ end: 4000, xmitMs: 3, retransmitted: false }, 43);
  rack.onDelivered({ end: 2000, xmitMs: 1, retransmitted: false }, 43);
  assert.not.ok(rack.state().reorderingSeen);
  assert.is(rack.reorderingWindow(false, 3, 45), 0); // DupThresh SACKed: segment 2 is lost at once
  // a later ACK that delivers segment 2 (never retransmitted) below fack 4000: that is reordering
  rack.beginAck();
  rack.onDelivered({ end: 3000, xmitMs: 2, retransmitted: false }, 44);
  assert.ok(rack.state().reorderingSeen);
});

test('RACK: segments sent in the same millisecond are ordered by transmission, not by sequence number', () => {
  const rack = new Rack();
  rack.onRttSample(40);
  // at 100 ms: new data [4000, 5000) (transmission 7), then a retransmission of [0, 1000) (transmission 8)
  const newData = { end: 5000, xmitMs: 100, retransmitted: false, order: 7 };
  const retransmission = { end: 1000, xmitMs: 100, retransmitted: true, order: 8 };
  rack.beginAck();
  rack.onDelivered(newData, 150);
  // the new data's SACK says nothing of the retransmission, sent after it: not lost, whatever the time
  assert.is(rack.remaining(retransmission, 1000, 0), Infinity);
  // what was sent before it in that millisecond is (RACK.rtt 50 after its send)
  assert.is(rack.remaining({ end: 9000, xmitMs: 100, retransmitted: false, order: 6 }, 150, 0), 0);
  // without an order, RFC 8985's tie-break by sequence number
  assert.is(rack.remaining({ end: 1000, xmitMs: 100, retransmitted: true }, 150, 0), 0);
});

test('RACK: a retransmission acknowledged sooner than min_RTT after it was sent is taken for the original and ignored', () => {
  const rack = new Rack();
  rack.onRttSample(40);
  rack.onDelivered({ end: 1000, xmitMs: 100, retransmitted: true }, 110);
  assert.is(rack.state().rttMs, undefined);
  rack.onDelivered({ end: 1000, xmitMs: 100, retransmitted: true }, 140);
  assert.equal([rack.state().xmitTs, rack.state().rttMs], [100, 40]);
});

test('PTO = 2 SRTT, + 200 ms with one segment in flight, 1 s without SRTT, never after the RTO', () => {
  assert.is(probeTimeout(40, 10, 300), 80);
  assert.is(probeTimeout(40, 1, 1000), 280);
  assert.is(probeTimeout(undefined, 3, 3000), 1000);
  assert.is(probeTimeout(40, 1, 250), 250);
});

test('TLP episodes: one probe at a time; a retransmitted probe acknowledged beyond itself repaired a loss; a duplicate ACK without SACK ends it quietly', () => {
  const tlp = new TailLossProbe();
  assert.ok(tlp.canArm());
  tlp.onProbe(10_000, true);
  assert.not.ok(tlp.canArm());
  assert.not.ok(tlp.onAck(9000, false)); // below TLP.end_seq
  assert.not.ok(tlp.onAck(10_000, false)); // the probe itself: wait for more
  assert.ok(tlp.onAck(11_000, false)); // beyond it: the loss was repaired by the probe
  assert.ok(tlp.canArm());
  tlp.onProbe(20_000, true);
  assert.not.ok(tlp.onAck(20_000, true)); // the receiver had it: no reduction
  assert.ok(tlp.canArm());
  tlp.onProbe(30_000, false); // a probe of new data: RACK sees any loss
  assert.not.ok(tlp.onAck(31_000, false));
  assert.ok(tlp.canArm());
});

test.run();
