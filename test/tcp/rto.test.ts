import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RtoEstimator } from '../../src/tcp/rto.ts';

test('RFC 6298 style: SRTT, RTTVAR and RTO after samples, computed by hand', () => {
  const rto = new RtoEstimator({ style: 'rfc6298', minRtoMs: 0 });
  assert.is(rto.rto(), 1000); // 2.1: before any sample
  rto.sample(100); // 2.2: SRTT = R, RTTVAR = R/2, RTO = SRTT + 4 RTTVAR
  assert.is(rto.srtt(), 100);
  assert.is(rto.rttvar(), 50);
  assert.is(rto.rto(), 300);
  rto.sample(200); // 2.3: RTTVAR = 3/4 50 + 1/4 |100 - 200| = 62.5; SRTT = 7/8 100 + 1/8 200 = 112.5
  assert.is(rto.rttvar(), 62.5);
  assert.is(rto.srtt(), 112.5);
  assert.is(rto.rto(), 112.5 + 250);
});

test('RFC 6298 style: the 1 s minimum rounds the RTO up', () => {
  const rto = new RtoEstimator({ style: 'rfc6298' });
  rto.sample(100);
  assert.is(rto.rto(), 1000);
});

test('Linux style (default): RTO = SRTT + max(4 RTTVAR, 200 ms)', () => {
  const rto = new RtoEstimator();
  rto.sample(100); // 4 RTTVAR = 200
  assert.is(rto.rto(), 300);
  for (let i = 0; i < 50; i++) rto.sample(100); // RTTVAR decays towards 0: the 200 ms floor remains
  assert.ok(Math.abs(rto.rto() - 300) < 1e-6, `${rto.rto()}`);
  rto.sample(20); // RTTVAR = 3/4 ~0 + 1/4 80 = 20, 4 RTTVAR = 80 < 200; SRTT = 90
  assert.ok(Math.abs(rto.rto() - 290) < 1e-6, `${rto.rto()}`);
});

test('Linux style: rttvar rises at once to the round\'s largest mdev and falls a quarter of the way back once a round (tcp_rtt_estimator)', () => {
  const rto = new RtoEstimator();
  rto.sample(100, { sndUna: 0, sndNxt: 10 }); // srtt 100, mdev 200, rttvar 200, round ends at 10
  // round 1 (SND.UNA <= 10): a sample of 500: error 400, srtt 150; mdev = 200 + 400 - 50 = 550 -> rttvar 550
  rto.sample(500, { sndUna: 5, sndNxt: 20 });
  assert.is(rto.srtt(), 150);
  assert.is(rto.rto(), 150 + 550);
  // still round 1: a sample of 150 (error 0): mdev = 550 - 137.5 = 412.5; rttvar stays 550
  rto.sample(150, { sndUna: 8, sndNxt: 20 });
  assert.is(rto.rto(), 150 + 550);
  // SND.UNA 12 passes 10: round 1 ends. mdev = 412.5 - 103.125 = 309.375; rttvar falls a quarter of the way to round 1's
  // largest mdev, 550: it stays 550; round 2's largest starts again from the 200 ms minimum
  rto.sample(150, { sndUna: 12, sndNxt: 30 });
  assert.is(rto.rto(), 150 + 550);
  // round 3: mdev = 309.375 x 3/4 = 232.03 -> max(200, 232.03); rttvar -= (550 - 232.03) / 4
  rto.sample(150, { sndUna: 31, sndNxt: 40 });
  const mdev = 309.375 * 0.75;
  assert.ok(Math.abs(rto.rto() - (150 + 550 - (550 - mdev) / 4)) < 1e-9, `${rto.rto()}`);
  // a falling RTT moves mdev by an eighth of the usual step: error -100, step (100 - mdev / 4) / 8
  const before = rto.rto();
  rto.sample(50, { sndUna: 32, sndNxt: 40 });
  assert.ok(rto.rto() < before && rto.rto() > before - 20, `${before} -> ${rto.rto()}`);
});

test('back-off doubles the RTO up to the maximum, and a new sample clears it', () => {
  const rto = new RtoEstimator({ style: 'rfc6298', minRtoMs: 0, maxRtoMs: 60_000 });
  rto.sample(100);
  rto.backOff();
  assert.is(rto.rto(), 600);
  rto.backOff();
  assert.is(rto.rto(), 1200);
  assert.is(rto.backoffCount(), 2);
  for (let i = 0; i < 10; i++) rto.backOff();
  assert.is(rto.rto(), 60_000);
  rto.sample(100); // RTTVAR = 3/4 50 + 0 = 37.5, SRTT 100
  assert.is(rto.rto(), 250);
  assert.is(rto.backoffCount(), 0);
});

test('bad options are refused', () => {
  assert.throws(() => new RtoEstimator({ minRtoMs: -1 }), /minRtoMs/);
  assert.throws(() => new RtoEstimator({ minRtoMs: 2000, maxRtoMs: 1000 }), /maxRtoMs/);
  assert.throws(() => new RtoEstimator({ style: 'bsd' as 'linux' }), /style/);
});

test.run();
