// Proportional Rate Reduction (RFC 6937) ACK by ACK, against hand-computed
// sndcnt; the sender-level cases are in sender.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ProportionalRateReduction } from '../../src/tcp/prr.ts';

test('pipe above ssthresh: sndcnt = CEIL(prr_delivered x ssthresh / RecoverFS) - prr_out', () => {
  const prr = new ProportionalRateReduction(10_000, 20_000, 1000);
  assert.is(prr.onAck(1000, 19_000), 19_500); // ceil(1000 x 0.5) - 0
  prr.onSend(1000);
  assert.is(prr.onAck(1000, 18_000), 18_000); // ceil(2000 x 0.5) - 1000 = 0
  assert.is(prr.onAck(1000, 17_000), 17_500); // 1500 - 1000
  assert.is(prr.onAck(333, 16_000), 16_000 + Math.ceil(3333 * 0.5) - 1000); // CEIL of a fraction of a byte
  assert.equal(prr.state(), { prrDelivered: 3333, prrOut: 1000 });
});

test('pipe at or below ssthresh: PRR-SSRB sends up to MAX(prr_delivered - prr_out, DeliveredData) + MSS, at most ssthresh - pipe', () => {
  const prr = new ProportionalRateReduction(10_000, 20_000, 1000);
  assert.is(prr.onAck(5000, 8000), 10_000); // min(2000, max(5000, 5000) + 1000)
  prr.onSend(2000);
  assert.is(prr.onAck(1000, 4000), 4000 + 5000); // min(6000, max(6000 - 2000, 1000) + 1000)
  const fewDelivered = new ProportionalRateReduction(10_000, 20_000, 1000);
  fewDelivered.onSend(3000);
  assert.is(fewDelivered.onAck(1000, 2000), 2000 + 2000); // min(8000, max(1000 - 3000, 1000) + 1000)
});

test('PRR-CRB, the conservative bound: no more than prr_delivered - prr_out', () => {
  const prr = new ProportionalRateReduction(10_000, 20_000, 1000, 'crb');
  prr.onSend(1000);
  assert.is(prr.onAck(3000, 4000), 4000 + 2000);
  assert.is(prr.onAck(0, 4000), 4000 + 2000);
  prr.onSend(5000);
  assert.is(prr.onAck(1000, 4000), 4000); // never negative
});

test.run();
