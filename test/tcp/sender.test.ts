// The sender, ACK by ACK, against hand-computed windows: the test plays the
// receiver with hand-made ACKs over a zero-delay simulated path.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createSimNetwork } from '../../src/net/sim-network.ts';
import { Simulator } from '../../src/net/simulator.ts';
import { TcpSendingEndpoint } from '../../src/tcp/endpoints.ts';
import { decodeSegment, encodeSegment, FLAG_ACK, FLAG_SACK, FLAG_SYN } from '../../src/tcp/segment.ts';
import type { TcpSender, TcpSenderOptions } from '../../src/tcp/sender.ts';
import { tcpBulkFlow } from '../../src/tcp/bulk-flow.ts';

const MSS = 1000;

function setup(options: Partial<TcpSenderOptions> = {}, totalBytes = Infinity) {
  const sim = new Simulator();
  const net = createSimNetwork(sim, { uplink: [], downlink: [], seed: 1 });
  const sending = new TcpSendingEndpoint(net.inside, { cc: 'newreno', mss: MSS, ...options });
  const sent: Array<[time: number, seq: number, flags: number]> = [];
  net.outside.onReceive((bytes) => {
    const s = decodeSegment(bytes);
    sent.push([sim.now(), s.seq, s.flags]);
  });
  let sender!: TcpSender;
  sim.at(0, () => {
    sender = sending.open(totalBytes);
  });
  const reply = (time: number, ack: number, flags = FLAG_ACK, sack: Array<[number, number]> = []) =>
    sim.at(time, () => net.outside.send(encodeSegment({ flags: flags | (sack.length > 0 ? FLAG_SACK : 0), connection: 0, seq: 0, ack, window: 1 << 20, length: 0, sack })));
  const synAck = (time: number) => reply(time, 0, FLAG_SYN | FLAG_ACK);
  const snapshots: Array<{ at: number; cwnd: number; ssthresh: number; inRecovery: boolean }> = [];
  const snapshot = (time: number) => sim.at(time, () => snapshots.push({ at: time, cwnd: sender.cc.cwnd, ssthresh: sender.cc.ssthresh, inRecovery: sender.isInRecovery() }));
  const sentBetween = (from: number, to: number) => sent.filter(([t]) => t >= from && t < to).map(([, seq]) => seq);
  return { sim, sent, reply, synAck, snapshot, snapshots, sentBetween, sender: () => sender };
}

test('the handshake: SYN, and after the SYN-ACK the initial window of 10 segments', async () => {
  const { sim, synAck, sentBetween, sent } = setup();
  synAck(10);
  await sim.run({ until: 15 });
  assert.equal(sent[0], [0, 0, FLAG_SYN]);
  assert.equal(sentBetween(10, 11), [0, 1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000]);
});

test('3 duplicate ACKs: fast retransmit, ssthresh = FlightSize / 2, cwnd = ssthresh + 3 MSS, +1 MSS per further duplicate', async () => {
  const { sim, synAck, reply, snapshot, snapshots, sentBetween, sender } = setup();
  synAck(10);
  reply(20, 1000); // slow start: cwnd 10000 + 1000 = 11000; sends 10000 and 11000
  for (const t of [21, 22, 23, 24, 25, 26, 27]) reply(t, 1000); // segment 1000 was lost
  snapshot(20.5);
  snapshot(22.5);
  snapshot(23.5);
  snapshot(26.5);
  snapshot(27.5);
  await sim.run({ until: 28 });
  assert.equal(sentBetween(20, 21), [10000, 11000]);
  assert.equal(snapshots[0], { at: 20.5, cwnd: 11000, ssthresh: Infinity, inRecovery: false });
  assert.equal(snapshots[1], { at: 22.5, cwnd: 11000, ssthresh: Infinity, inRecovery: false });
  // third duplicate: FlightSize = 12000 - 1000 = 11000, ssthresh 5500, cwnd 8500
  assert.equal(snapshots[2], { at: 23.5, cwnd: 8500, ssthresh: 5500, inRecovery: true });
  assert.equal(sentBetween(23, 24), [1000]);
  // duplicates 4 to 6 inflate cwnd to 11500: 12000 + 1000 > 1000 + 11500, nothing new
  assert.equal(snapshots[3].cwnd, 11500);
  assert.equal(sentBetween(24, 27), []);
  // the 7th: cwnd 12500 lets segment 12000 out
  assert.equal(snapshots[4].cwnd, 12500);
  assert.equal(sentBetween(27, 28), [12000]);
  assert.is(sender().stats.fastRetransmits, 1);
});

test('a partial ACK retransmits the next hole and deflates cwnd; the full ACK ends recovery at min(ssthresh, FlightSize + MSS)', async () => {
  const { sim, synAck, reply, snapshot, snapshots, sentBetween, sender } = setup();
  synAck(10);
  reply(20, 1000);
  for (const t of [21, 22, 23, 24, 25, 26, 27]) reply(t, 1000);
  reply(30, 5000); // partial: recover is 12000; 4000 bytes acked
  snapshot(30.5);
  reply(40, 13000); // full
  snapshot(40.5);
  await sim.run({ until: 45 });
  // cwnd = 12500 - 4000 + 1000 = 9500: retransmit 5000, then 13000 fits (14000 <= 5000 + 9500), 14000 does not
  assert.equal(snapshots[0], { at: 30.5, cwnd: 9500, ssthresh: 5500, inRecovery: true });
  assert.equal(sentBetween(30, 31), [5000, 13000]);
  // FlightSize after the full ACK is 14000 - 13000 = 1000: cwnd = min(5500, 1000 + 1000) = 2000; segment 14000 goes
  assert.equal(snapshots[1], { at: 40.5, cwnd: 2000, ssthresh: 5500, inRecovery: false });
  assert.equal(sentBetween(40, 41), [14000]);
  assert.equal(sender().stats, { ...sender().stats, fastRetransmits: 1, retransmits: 2, recoveries: 1, timeouts: 0 });
});

test('no fast retransmit after a timeout for duplicate ACKs below recover (RFC 6582 section 4)', async () => {
  const { sim, synAck, reply, sender } = setup();
  synAck(10);
  // no ACK: the timer expires at 220 and recover becomes 10000
  reply(230, 1000);
  for (const t of [231, 232, 233]) reply(t, 1000);
  await sim.run({ until: 240 });
  assert.is(sender().stats.timeouts, 1);
  assert.is(sender().stats.fastRetransmits, 0);
  assert.not.ok(sender().isInRecovery());
});

test('recovery states as Linux names them: open, disorder on a duplicate ACK, recovery at the third, open after the full ACK; loss after a timeout until all sent before it is acknowledged', async () => {
  const fast = setup();
  const states: string[] = [];
  const state = (time: number) => fast.sim.at(time, () => states.push(fast.sender().recoveryState()));
  fast.synAck(10);
  fast.reply(20, 1000);
  for (const t of [21, 22, 23]) fast.reply(t, 1000);
  fast.reply(30, 5000); // partial
  fast.reply(40, 12000); // full: recover is 12000
  for (const t of [20.5, 21.5, 22.5, 23.5, 30.5, 40.5]) state(t);
  await fast.sim.run({ until: 45 });
  assert.equal(states, ['open', 'disorder', 'disorder', 'recovery', 'recovery', 'open']);

  const timeout = setup();
  const afterTimeout: string[] = [];
  const stateAfter = (time: number) => timeout.sim.at(time, () => afterTimeout.push(timeout.sender().recoveryState()));
  timeout.synAck(10);
  // no ACK: the timer expires at 220, with 10000 bytes sent
  for (const t of [219, 220.5, 231.5, 250.5]) stateAfter(t);
  timeout.reply(230, 1000);
  timeout.reply(231, 1000); // a duplicate below recover: no fast recovery
  timeout.reply(250, 10000);
  await timeout.sim.run({ until: 255 });
  assert.equal(afterTimeout, ['open', 'loss', 'loss', 'open']);
});

test('RTO: expiry one RTO after the data, doubling back-off, ssthresh held on the repeated timeout, cwnd 1 MSS, Karn: no sample from a retransmission', async () => {
  const { sim, synAck, reply, sent, snapshot, snapshots, sender } = setup();
  synAck(10); // RTT 10: SRTT 10, RTTVAR 5, RTO = 10 + max(20, 200) = 210
  snapshot(10.5);
  snapshot(220.5);
  snapshot(640.5);
  reply(700, 1000); // acknowledges the retransmitted segment: no RTT sample, RTO stays 840
  await sim.run({ until: 1600 });
  assert.is(sender().rto.srtt(), 10);
  const times = (seq: number) => sent.filter(([, s, flags]) => s === seq && (flags & FLAG_SYN) === 0).map(([t]) => t);
  assert.equal(times(0), [10, 220, 640]); // timeouts at 10 + 210 and 220 + 420
  assert.equal(times(1000), [10, 700, 1540]); // go-back-N after the ACK, then a timeout 840 ms later
  assert.equal(times(2000), [10, 700]);
  assert.equal(snapshots[1], { at: 220.5, cwnd: 1000, ssthresh: 5000, inRecovery: false });
  assert.equal(snapshots[2], { at: 640.5, cwnd: 1000, ssthresh: 5000, inRecovery: false });
  assert.is(sender().stats.timeouts, 3);
  assert.is(sender().rto.rto(), 1680);
});

test('RFC 6298 style: the same timeout waits the 1 s minimum', async () => {
  const { sim, synAck, sent } = setup({ rto: { style: 'rfc6298' } });
  synAck(10);
  await sim.run({ until: 1500 });
  assert.equal(sent.filter(([, s, f]) => s === 0 && f === 0).map(([t]) => t), [10, 1010]);
});

test('a lost SYN is sent again after 1 s, and data then starts with an RTO of 3 s (RFC 6298 5.7)', async () => {
  const { sim, synAck, sent, sender } = setup();
  synAck(1010);
  await sim.run({ until: 4100 });
  assert.equal(sent.filter(([, , f]) => f === FLAG_SYN).map(([t]) => t), [0, 1000]);
  assert.equal(sent.filter(([, s, f]) => s === 0 && f === 0).map(([t]) => t), [1010, 4010]);
  assert.is(sender().rto.srtt(), undefined);
});

test('a finite transfer ends when its last byte is acknowledged, the last segment carrying FIN', async () => {
  const { sim, synAck, reply, sent, sender } = setup({}, 2500);
  synAck(10);
  reply(20, 2500);
  await sim.run();
  assert.equal(sent.slice(1).map(([, seq, flags]) => [seq, flags]), [[0, 0], [1000, 0], [2000, 1]]);
  assert.ok(sender().isComplete());
  assert.ok(sim.isIdle(), 'no timer left');
});

test('SACK recovery (RFC 6675): two holes in one window, cwnd = ssthresh throughout, lost segments resent as the pipe drains, no timeout', async () => {
  const { sim, synAck, reply, snapshot, snapshots, sentBetween, sender } = setup({ sack: true, prr: false, rackTlp: false });
  synAck(10);
  reply(20, 1000); // cwnd 11000: 10000 and 11000 go
  // segments 1000 and 3000 are lost; the duplicates carry what arrived beyond
  reply(21, 1000, FLAG_ACK, [[2000, 3000]]);
  reply(22, 1000, FLAG_ACK, [[4000, 5000], [2000, 3000]]);
  reply(23, 1000, FLAG_ACK, [[4000, 6000], [2000, 3000]]); // third: ssthresh = 11000 / 2, cwnd = 5500
  snapshot(23.5);
  // pipe at 23: 1000 (retransmitted) + 3000 (not yet lost: only 2000 SACKed above) + 6000..11000 = 8000
  reply(24, 1000, FLAG_ACK, [[4000, 7000], [2000, 3000]]); // 3000 now lost; pipe 1000 + 5000 = 6000
  reply(25, 1000, FLAG_ACK, [[4000, 8000], [2000, 3000]]); // pipe 5000: 6000 > 5500
  reply(26, 1000, FLAG_ACK, [[4000, 9000], [2000, 3000]]); // pipe 4000: room for the lost 3000
  reply(30, 3000, FLAG_ACK, [[4000, 9000]]); // partial ACK: no deflation; pipe 1000 + 3000: new segment 12000
  snapshot(30.5);
  reply(40, 9000); // partial; pipe 9000..12000 = 4000: new segment 13000
  reply(50, 14000); // full: cwnd = min(5500, max(0, 1000) + 1000)
  snapshot(50.5);
  await sim.run({ until: 60 });
  assert.equal(sentBetween(23, 24), [1000]);
  assert.equal(sentBetween(24, 26), []);
  assert.equal(sentBetween(26, 27), [3000]);
  assert.equal(sentBetween(30, 31), [12000]);
  assert.equal(sentBetween(40, 41), [13000]);
  assert.equal(sentBetween(50, 51), [14000, 15000]);
  assert.equal(snapshots[0], { at: 23.5, cwnd: 5500, ssthresh: 5500, inRecovery: true });
  assert.equal(snapshots[1], { at: 30.5, cwnd: 5500, ssthresh: 5500, inRecovery: true });
  assert.equal(snapshots[2], { at: 50.5, cwnd: 2000, ssthresh: 5500, inRecovery: false });
  assert.equal(sender().stats, { ...sender().stats, fastRetransmits: 1, retransmits: 2, recoveries: 1, timeouts: 0 });
});

/** One loss in a window of 20: segment 0; the duplicate ACKs at 20 + i SACK [1000, 1000 (i + 2)]. */
async function oneLossInTwenty(prr: boolean) {
  const { sim, synAck, reply, snapshot, snapshots, sent, sender } = setup({ sack: true, prr, initialWindow: 20, rackTlp: false });
  synAck(10);
  for (let i = 0; i <= 12; i++) reply(20 + i, 0, FLAG_ACK, [[1000, 1000 * (i + 2)]]);
  snapshot(22.5);
  await sim.run({ until: 32.5 });
  const newData = sent.filter(([t, seq, f]) => t > 10 && f === 0 && seq >= 20_000).map(([t, seq]) => [t, seq]);
  return { newData, snapshots, sender: sender(), retransmitted: sent.filter(([t, seq]) => t > 10 && seq === 0).map(([t]) => t) };
}

test('PRR (RFC 6937): one loss in 20 segments, ssthresh 10 of RecoverFS 20: one new segment every second ACK from the start of recovery', async () => {
  const prr = await oneLossInTwenty(true);
  // third duplicate at 22: fast retransmit (prr_out 1000); prr_delivered 1000, pipe 17 000 > ssthresh:
  // sndcnt = ceil(1000 x 10 000 / 20 000) - 1000 < 0, cwnd = pipe
  assert.equal(prr.retransmitted, [22]);
  assert.equal(prr.snapshots[0], { at: 22.5, cwnd: 17_000, ssthresh: 10_000, inRecovery: true });
  // ACK 20 + i delivers 1000 more: sndcnt = ceil(500 (i - 1)) - prr_out reaches a segment at i = 5, 7, 9, 11;
  // at i = 12 pipe (1000 + 6000 + 4000 new) is no longer above ssthresh and PRR-SSRB's min(ssthresh - pipe, ...) is 0
  assert.equal(prr.newData, [[25, 20_000], [27, 21_000], [29, 22_000], [31, 23_000]]);
  // RFC 6675 alone (cwnd = ssthresh): silent until pipe (1000 + (18 - i) 1000) leaves a segment's room, at i = 10
  const rfc6675 = await oneLossInTwenty(false);
  assert.equal(rfc6675.newData, [[30, 20_000], [31, 21_000], [32, 22_000]]);
  assert.is(prr.sender.stats.timeouts, 0);
});

test('RACK (RFC 8985): a loss with only two segments SACKed after it is found when the reordering window (min RTT / 4) has passed, not at a third duplicate', async () => {
  for (const rackTlp of [true, false]) {
    const { sim, synAck, reply, sent, sender } = setup({ sack: true, rackTlp });
    synAck(10); // RTT 10: min_RTT 10, reo_wnd = 2.5
    // segment 0 lost; 1000 and 2000 (sent at 10, like it) are SACKed at 20: RACK.rtt 10, so 0 is lost at 10 + 10 + 2.5
    reply(20, 0, FLAG_ACK, [[1000, 3000]]);
    await sim.run({ until: 100 });
    const resent = sent.filter(([t, seq, f]) => t > 10 && seq === 0 && f === 0).map(([t]) => t);
    assert.equal(resent, rackTlp ? [22.5] : [], `rackTlp ${rackTlp}`);
    assert.is(sender().stats.fastRetransmits, rackTlp ? 1 : 0);
  }
});

test('TLP (RFC 8985): when the ACKs stop, the last segment goes again 2 SRTT after the last ACK; its SACK lets RACK find the tail losses, no RTO', async () => {
  const { sim, synAck, reply, sent, sentBetween, sender } = setup({ sack: true }, 10_000);
  synAck(10); // SRTT 10; segments 0 to 9000 leave at 10
  reply(20, 5000); // 5000 to 9999 are lost; PTO = 2 x 10 ms (5 segments in flight) from 20
  reply(50, 5000, FLAG_ACK, [[9000, 10_000]]); // the probe's SACK: 5000..8999, sent at 10, are lost (10 + RACK.rtt 10 + 2.5 < 50)
  await sim.run({ until: 60 });
  assert.equal(sentBetween(20, 49), [9000]);
  assert.equal(sent.filter(([t]) => t === 40).map(([, seq]) => seq), [9000]);
  // recovery: ssthresh = max(5000 / 2, 2 MSS) = 2500; the fast retransmit, then PRR-SSRB lets one more out:
  // pipe 1000, sndcnt = min(2500 - 1000, max(1000 - 1000, 1000) + 1000)
  assert.equal(sentBetween(50, 51), [5000, 6000]);
  assert.equal(sender().stats, { ...sender().stats, lossProbes: 1, timeouts: 0, fastRetransmits: 1 });
});

test('a SACK of data sent before the head was retransmitted re-arms the RTO (Linux): a retransmission queued behind that data does not time out', async () => {
  const { sim, synAck, reply, sent, sender } = setup({ sack: true });
  synAck(10); // RTT 10: RTO 210; segments 0 to 9000 leave at 10
  reply(20, 0, FLAG_ACK, [[1000, 4000]]); // 0 is lost (3 segments SACKed: reo_wnd 0): resent at 20, the RTO to run out at 230
  // a queue has built up: the rest of the first flight, sent at 10, before the retransmission, is SACKed from 200 on
  reply(200, 0, FLAG_ACK, [[1000, 5000]]); // SACK RTT 190: the RTO (now 232.5) runs from here, to 432.5
  reply(425, 0, FLAG_ACK, [[1000, 6000]]); // again, 7.5 ms before it would run out
  reply(500, 10_000); // the retransmission arrives at last
  await sim.run({ until: 501 });
  assert.equal(sent.filter(([t, seq, f]) => t > 10 && seq === 0 && f === 0).map(([t]) => t), [20]);
  assert.is(sender().stats.timeouts, 0);
});

test('the SACK re-arm runs one RTO from the head\'s last send when the reordering timer was pending (Linux\'s tcp_rearm_rto)', async () => {
  const { sim, synAck, reply, sent, sender } = setup({ sack: true });
  synAck(10); // min RTT 10; segments 0 to 9000 leave at 10
  reply(20, 0, FLAG_ACK, [[2000, 3000]]);
  reply(21, 0, FLAG_ACK, [[1000, 3000]]); // 1000 delivered below 3000: reordering, reo_wnd 2.5 ms
  // the reordering timer fires at 22.5: 0 is lost, recovery resends it
  reply(100, 0, FLAG_ACK, [[1000, 3000], [5000, 6000]]); // 5000 was sent before 0's retransmission: the RTO runs from now; 3000 and 4000 get the reordering timer
  reply(101, 0, FLAG_ACK, [[1000, 3000], [4000, 6000]]); // again, with the reordering timer pending: the RTO runs from 0's last send, 22.5
  let rto = 0;
  sim.at(101.5, () => {
    rto = sender().rto.rto(); // as the re-arm used it
  });
  await sim.run({ until: 600 });
  assert.ok(rto > 0);
  assert.equal(sent.filter(([t, seq, f]) => t > 10 && seq === 0 && f === 0).map(([t]) => t).slice(0, 2), [22.5, 22.5 + rto]);
});

test('a SACK of data sent before a timeout\'s retransmission schedules no tail loss probe (Linux: none outside the Open state)', async () => {
  const { sim, synAck, reply, sent, sender } = setup({ sack: true });
  synAck(10); // segments 0 to 9000 leave at 10 and are not acknowledged
  // a probe at 30 (2 SRTT) sends 10000; the RTO, restarted then, expires at 240 and resends 0: loss
  reply(300, 0, FLAG_ACK, [[1000, 2000]]); // 1000, sent at 10, arrives at last: an RTT sample (RTO 340), the RTO re-armed from now
  await sim.run({ until: 600 });
  assert.equal(sent.filter(([t, , f]) => t > 10 && f === 0).map(([t, seq]) => [t, seq]), [[30, 10_000], [240, 0]]);
  assert.is(sender().stats.lossProbes, 1);
});

test('no tail loss probe in loss: an ACK of new data after a timeout, whose SACK resets the back-off, arms none (Linux: only in the Open state)', async () => {
  const { sim, synAck, reply, sent, sender } = setup({ sack: true });
  synAck(10); // segments 0 to 9000 leave at 10; a probe at 30 sends 10000; the RTO at 240 resends 0: loss until 11000 is acknowledged
  reply(300, 1000, FLAG_ACK, [[2000, 3000]]); // 0's retransmission and a SACK of 2000 (sent at 10): an RTT sample, the back-off gone
  await sim.run({ until: 600 });
  assert.equal(sent.filter(([t, , f]) => t > 10 && f === 0).map(([t, seq]) => [t, seq]), [[30, 10_000], [240, 0], [300, 1000], [300, 3000]]);
  assert.is(sender().stats.lossProbes, 1);
  assert.is(sender().recoveryState(), 'loss');
});

test('after a timeout with RACK-TLP the go-back-N skips what was SACKed (RFC 8985 6.3), which does not count against cwnd', async () => {
  const { sim, synAck, reply, sentBetween, sender } = setup({ sack: true });
  synAck(10); // segments 0 to 9000 leave at 10
  reply(20, 0, FLAG_ACK, [[5000, 10_000]]); // 0 to 4000 lost: recovery resends them (all lost again); the RTO restarts with the first, at 20
  reply(240, 1000); // after the timeout at 230 (segment 0 again, cwnd 1 MSS): cwnd 2 MSS
  reply(250, 3000); // cwnd 4 MSS: 3000 and 4000, then past the SACKed 5000..9999 to 10000 and 11000 (the SACKed bytes leave the window)
  await sim.run({ until: 255 });
  assert.equal(sentBetween(20, 21), [0, 1000, 2000, 3000, 4000]);
  assert.equal(sentBetween(230, 231), [0]);
  assert.equal(sentBetween(240, 241), [1000, 2000]);
  assert.equal(sentBetween(250, 251), [3000, 4000, 10_000, 11_000]);
  assert.is(sender().stats.timeouts, 1);
});

test('slow start doubles cwnd every round trip with ACKs for every second segment (RFC 3465, L = 2)', async () => {
  const sim = new Simulator();
  const net = createSimNetwork(sim, { uplink: [{ kind: 'delay', ms: 50 }], downlink: [{ kind: 'delay', ms: 50 }], seed: 1 });
  const flow = tcpBulkFlow({ cc: 'newreno', mss: MSS, recordCwnd: true }).create(net.inside, net.outside, { flowId: 0, seed: '1' });
  sim.at(0, () => flow.start());
  await sim.run({ until: 700 });
  flow.stop();
  const cwndAt = (t: number) => flow.stats().cwnd.filter((s) => s.timeMs <= t).at(-1)!.cwndBytes / MSS;
  // handshake 0-100; window k (10 * 2^k segments) leaves at 100 + 100 k and is acknowledged by 200 + 100 k
  assert.equal([150, 250, 350, 450, 550, 650].map(cwndAt), [10, 20, 40, 80, 160, 320]);
  assert.is(flow.stats().retransmits, 0);
});

test.run();
