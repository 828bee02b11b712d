// The native packet path (native-tun/src/pump.c): its thread receives in
// batches (recvmmsg) while this thread is held up, and stamps each datagram
// with when the kernel received it; sends queued in one turn leave together.
// The event loop is held by Atomics.wait between synchronous sends: the
// test waits for events, not for wall-clock speed.

import { createSocket, type Socket } from 'node:dgram';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PacketPump, packetPumpUnavailable, takeOverDgramSocket, type PumpArrival } from '../../src/net/packet-pump.ts';
import { createMonotonicClock } from '../../src/net/wall-clock.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { requires } from '../helpers/requires.ts';

// Skipped, and counted with the reason, where the native packet pump is not built.
const native = requires([], { 'packet pump': packetPumpUnavailable() });

function holdEventLoop(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

async function bound(): Promise<Socket> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
  return socket;
}

/** A bound socket that notes the first byte of every datagram it receives, in order. */
async function collectingSink(): Promise<{ sink: Socket; got: number[] }> {
  const sink = await bound();
  const got: number[] = [];
  sink.on('message', (b) => got.push(b[0]));
  return { sink, got };
}

async function connected(to: Socket): Promise<Socket> {
  const socket = await bound();
  await new Promise<void>((resolve) => socket.connect(to.address().port, '127.0.0.1', () => resolve()));
  return socket;
}

native('40 datagrams sent while the event loop is held reach it in one or two batches, each stamped when the kernel got it', async () => {
  const clock = createMonotonicClock();
  const batches: PumpArrival[][] = [];
  const target = await bound();
  const pump = new PacketPump({ originNs: clock.originNs!, onArrivals: (a) => batches.push(a), onError: () => {} });
  const fd = takeOverDgramSocket(target);
  assert.type(fd, 'number');
  pump.addUdp(0, fd!, true);
  const sender = await connected(target);
  try {
    const before = clock.now();
    for (let i = 0; i < 40; i++) {
      sender.send(Buffer.from([i]));
      if (i === 19) holdEventLoop(40); // the second half arrives 40 ms after the first
    }
    holdEventLoop(40);
    const read = clock.now();
    await waitFor(() => batches.flat().length === 40, 10_000, '40 datagrams');
    const arrivals = batches.flat();
    assert.equal(arrivals.map((a) => a.bytes[0]), Array.from({ length: 40 }, (_, i) => i));
    assert.ok(batches.length <= 3, `${batches.length} batches`);
    // (How many receive calls the thread made depends on how fast it is: an idle thread on a core of
    // its own takes each datagram as it comes. The next test makes them wait for it.)
    assert.is(pump.stats().received, 40);
    // Stamped when received, not when this thread got to them: the two halves 40 ms apart, all before the read.
    const gap = arrivals[20].atMs - arrivals[19].atMs;
    assert.ok(gap >= 39, `gap ${gap} ms`);
    for (const a of arrivals) assert.ok(a.atMs >= before - 1 && a.atMs <= read, `arrival ${a.atMs} not in [${before}, ${read}]`);
    assert.is(arrivals[0].address, '127.0.0.1');
    assert.is(arrivals[0].port, sender.address().port);
  } finally {
    pump.close();
    sender.close();
    target.close();
  }
});

native("each datagram comes with its sender's address and port: IPv4 addresses byte for byte (two senders, in turn, read on the event loop or by the thread), IPv6 as text", async () => {
  const clock = createMonotonicClock();
  for (const readsOnEventLoop of [true, false]) {
    const arrivals: PumpArrival[] = [];
    const target = await bound();
    const target6 = createSocket('udp6');
    await new Promise<void>((resolve) => target6.bind(0, '::1', () => resolve()));
    const pump = new PacketPump({ originNs: clock.originNs!, onArrivals: (a) => arrivals.push(...a), onError: () => {}, readsOnEventLoop });
    pump.addUdp(0, takeOverDgramSocket(target)!, true);
    pump.addUdp(1, takeOverDgramSocket(target6)!, true);
    const senders = await Promise.all(
      ['127.1.2.3', '127.201.0.254'].map(
        (address) =>
          new Promise<Socket>((resolve) => {
            const s = createSocket('udp4');
            s.bind(0, address, () => resolve(s));
          }),
      ),
    );
    const sender6 = createSocket('udp6');
    await new Promise<void>((resolve) => sender6.bind(0, '::1', () => resolve()));
    try {
      for (let i = 0; i < 4; i++) senders[i % 2].send(Buffer.from([i]), target.address().port, '127.0.0.1');
      sender6.send(Buffer.from([4]), target6.address().port, '::1');
      await waitFor(() => arrivals.length === 5, 10_000, '5 datagrams');
      const from = (i: number) => arrivals.find((a) => a.bytes[0] === i)!;
      for (let i = 0; i < 4; i++) {
        assert.is(from(i).address, i % 2 === 0 ? '127.1.2.3' : '127.201.0.254');
        assert.is(from(i).port, senders[i % 2].address().port);
      }
      assert.is(from(4).source, 1);
      assert.is(from(4).address, '::1');
      assert.is(from(4).port, sender6.address().port);
    } finally {
      pump.close();
      for (const s of [...senders, sender6, target, target6]) s.close();
    }
  }
});

native('a datagram that arrives while this thread takes the previous batch is handed over too (no lost wake-up)', async () => {
  // The race: the thread wakes for a second datagram while the first is still to be taken; this thread takes the
  // first just then, so the count of datagrams waiting is the same before and after the second was added. Each round
  // sends two datagrams a few microseconds apart and waits for both; a lost wake-up leaves the second one waiting
  // for ever (nothing else arrives to wake the thread).
  const clock = createMonotonicClock();
  let arrived = 0;
  const target = await bound();
  const pump = new PacketPump({ originNs: clock.originNs!, onArrivals: (a) => (arrived += a.length), onError: () => {} });
  pump.addUdp(0, takeOverDgramSocket(target)!, true);
  const sender = await connected(target);
  try {
    for (let round = 0; round < 400; round++) {
      sender.send(Buffer.from([1]));
      const until = process.hrtime.bigint() + BigInt((round % 40) * 2_000); // 0 to 78 µs apart
      while (process.hrtime.bigint() < until);
      sender.send(Buffer.from([2]));
      await waitFor(() => arrived === 2 * (round + 1), 2_000, `both datagrams of round ${round} (${arrived} of ${2 * (round + 1)} arrived)`);
    }
  } finally {
    pump.close();
    sender.close();
    target.close();
  }
});

native('a datagram queued with send() leaves before one handed over later with sendAt(), even when that one is already due', async () => {
  // (A link delivers a datagram whose departure was not known at its arrival with send(), and may hand the next one,
  // due at once when this thread is late, to the thread with sendAt() in the same turn: the peer must get them in order.)
  const clock = createMonotonicClock();
  const { sink, got } = await collectingSink();
  const from = await bound();
  const pump = new PacketPump({ originNs: clock.originNs!, onArrivals: () => {}, onError: () => {} });
  pump.addUdp(0, takeOverDgramSocket(from)!, true);
  try {
    for (let round = 0; round < 50; round++) {
      pump.send(0, Buffer.from([2 * round]), '127.0.0.1', sink.address().port);
      pump.sendAt(0, Buffer.from([2 * round + 1]), clock.now() - 5, 0, '127.0.0.1', sink.address().port);
      holdEventLoop(1); // the rest of the turn: the thread has the timed one by now
      await waitFor(() => got.length === 2 * (round + 1), 10_000, `round ${round}`);
    }
    assert.equal(got, Array.from({ length: 100 }, (_, i) => i));
  } finally {
    pump.close();
    from.close();
    sink.close();
  }
});

native('datagrams waiting at the socket are read in one recvmmsg call, in order', async () => {
  const clock = createMonotonicClock();
  const batches: PumpArrival[][] = [];
  const target = await bound();
  const fd = takeOverDgramSocket(target);
  assert.type(fd, 'number');
  const sender = await connected(target);
  const pump = new PacketPump({ originNs: clock.originNs!, onArrivals: (a) => batches.push(a), onError: () => {} });
  try {
    // All 40 wait in the socket's queue before the pump's thread takes the socket (Node no longer reads it).
    for (let i = 0; i < 40; i++) await new Promise<void>((resolve, reject) => sender.send(Buffer.from([i]), (error) => (error ? reject(error) : resolve())));
    pump.addUdp(0, fd!, true);
    await waitFor(() => batches.flat().length === 40, 10_000, '40 datagrams');
    assert.equal(batches.flat().map((a) => a.bytes[0]), Array.from({ length: 40 }, (_, i) => i));
    const stats = pump.stats();
    assert.is(stats.received, 40);
    // One call takes up to 64 waiting datagrams; a second may find the queue empty.
    assert.ok(stats.receiveCalls <= 2, `${stats.receiveCalls} receive calls for 40 waiting datagrams`);
  } finally {
    pump.close();
    sender.close();
    target.close();
  }
});

native('sends queued in one turn leave together (one sendmmsg), in order, to the address given; a refused peer is reported as ECONNREFUSED', async () => {
  const clock = createMonotonicClock();
  const { sink, got } = await collectingSink();
  const from = await bound();
  const errors: string[] = [];
  const pump = new PacketPump({ originNs: clock.originNs!, onArrivals: () => {}, onError: (_s, code) => errors.push(code) });
  pump.addUdp(0, takeOverDgramSocket(from)!, true);
  const toNowhere = await bound();
  const nowherePort = toNowhere.address().port;
  toNowhere.close(); // nobody listens there any more
  const refused = await bound();
  await new Promise<void>((resolve) => refused.connect(nowherePort, '127.0.0.1', () => resolve()));
  pump.addUdp(1, takeOverDgramSocket(refused)!, false);
  try {
    for (let i = 0; i < 10; i++) pump.send(0, Buffer.from([i]), '127.0.0.1', sink.address().port);
    assert.is(pump.stats().sent, 0); // queued until the end of the turn
    await waitFor(() => got.length === 10, 10_000, '10 datagrams');
    assert.equal(got, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.is(pump.stats().sendCalls, 1);
    pump.send(1, Buffer.from([1]));
    await waitFor(() => errors.length > 0 || pump.stats().sendRefused > 0, 10_000, 'a refusal');
    pump.send(1, Buffer.from([2]));
    await waitFor(() => errors.includes('ECONNREFUSED') || pump.stats().sendRefused > 0, 10_000, 'ECONNREFUSED');
  } finally {
    pump.close();
    from.close();
    refused.close();
    sink.close();
  }
});

native('departures due by a wake leave in that wake, one sendmmsg for a run to one socket, in due order, and the timer waits the slack', async () => {
  // A slack far longer than the test: the timer cannot be what sends them. Ten datagrams already due are handed
  // over; nothing wakes the thread until a datagram arrives, and that wake sends all ten with one sendmmsg.
  const clock = createMonotonicClock();
  const { sink, got } = await collectingSink();
  const target = await bound();
  let arrived = 0;
  const pump = new PacketPump({ originNs: clock.originNs!, onArrivals: (a) => (arrived += a.length), onError: () => {}, sendSlackMs: 60_000 });
  pump.addUdp(0, takeOverDgramSocket(target)!, true);
  const sender = await connected(target);
  try {
    const now = clock.now();
    // Handed over out of order: they leave by due time (ties in the order handed over).
    for (let i = 9; i >= 0; i--) pump.sendAt(0, Buffer.from([i]), now - 100 + Math.floor(i / 2), i, '127.0.0.1', sink.address().port);
    assert.is(pump.stats().timedPending, 10);
    sender.send(Buffer.from([99]));
    // (The thread counts its sends once they are done: the sink may have them a moment before.)
    await waitFor(() => got.length === 10 && arrived === 1 && pump.stats().timedSent === 10, 10_000, 'ten departures and the arrival');
    assert.equal(got, [1, 0, 3, 2, 5, 4, 7, 6, 9, 8]);
    const stats = pump.stats();
    assert.is(stats.timedSent, 10);
    assert.is(stats.timedSendCalls, 1);
    assert.is(stats.timerWakes, 0);
    const lateness = pump.drainLateness();
    assert.is(lateness.length, 20);
    for (let i = 1; i < lateness.length; i += 2) assert.ok(lateness[i] >= 95, `left ${lateness[i]} ms after its due time`);
  } finally {
    pump.close();
    sender.close();
    target.close();
    sink.close();
  }
});

native('due departures of one size to one destination leave as one segmented message (UDP_SEGMENT); the peer receives each datagram as it was, in order', async () => {
  // Due together: 40 of 300 bytes and a shorter last one to the sink (one message, cut by the kernel), then 3 to a
  // second sink (another destination: another message), then 2 of another size to the first sink again.
  const clock = createMonotonicClock();
  const sinks = [await bound(), await bound()];
  const got: Buffer[][] = [[], []];
  sinks.forEach((sink, i) => sink.on('message', (b) => got[i].push(b)));
  const source = await bound();
  const pump = new PacketPump({ originNs: clock.originNs!, onArrivals: () => {}, onError: () => {}, sendSlackMs: 60_000 });
  pump.addUdp(0, takeOverDgramSocket(source)!, false);
  const datagram = (n: number, size: number) => Buffer.alloc(size, n);
  const plan: { to: number; bytes: Buffer }[] = [
    ...Array.from({ length: 40 }, (_, n) => ({ to: 0, bytes: datagram(n, 300) })),
    { to: 0, bytes: datagram(40, 120) },
    ...Array.from({ length: 3 }, (_, n) => ({ to: 1, bytes: datagram(41 + n, 300) })),
    { to: 0, bytes: datagram(44, 50) },
    { to: 0, bytes: datagram(45, 50) },
  ];
  try {
    const due = clock.now() - 10;
    plan.forEach(({ to, bytes }, tag) => pump.sendAt(0, bytes, due, tag, '127.0.0.1', sinks[to].address().port));
    // (Timed sends go at the thread's next wake: a removed source's wake-up is one.)
    pump.addUdp(1, takeOverDgramSocket(await bound())!, false);
    pump.remove(1);
    await waitFor(() => got[0].length + got[1].length === plan.length, 10_000, `${plan.length} datagrams`);
    assert.equal(got[0], plan.filter((p) => p.to === 0).map((p) => p.bytes));
    assert.equal(got[1], plan.filter((p) => p.to === 1).map((p) => p.bytes));
    const stats = pump.stats();
    assert.is(stats.timedSent, plan.length);
    assert.is(stats.timedSendCalls, 1);
    assert.is(stats.segmentedSends, 3);
  } finally {
    pump.close();
    for (const s of [...sinks, source]) s.close();
  }
});

native('with nothing arriving, the timer sends a departure once its due time and the slack have passed', async () => {
  const clock = createMonotonicClock();
  const sink = await bound();
  let receivedAt = NaN;
  sink.on('message', () => (receivedAt = clock.now()));
  const pump = new PacketPump({ originNs: clock.originNs!, onArrivals: () => {}, onError: () => {}, sendSlackMs: 20 });
  const from = await bound();
  pump.addUdp(0, takeOverDgramSocket(from)!, true);
  try {
    const due = clock.now() + 30;
    pump.sendAt(0, Buffer.from([7]), due, 0, '127.0.0.1', sink.address().port);
    await waitFor(() => !Number.isNaN(receivedAt) && pump.stats().timedSent === 1, 10_000, 'the departure');
    // (Not before its due time plus the slack: the timer is set for then, and nothing else woke the thread.)
    assert.ok(receivedAt >= due + 20, `received at ${receivedAt}, due ${due} + 20 ms of slack`);
    const stats = pump.stats();
    assert.is(stats.timerWakes, 1);
    assert.is(stats.timedSent, 1);
    const lateness = pump.drainLateness();
    assert.ok(lateness[1] >= 20, `${lateness[1]} ms late`);
  } finally {
    pump.close();
    from.close();
    sink.close();
  }
});

native('read on the event loop: with nothing arriving, the thread looks at the sources every 20 ms, not more often', async () => {
  const clock = createMonotonicClock();
  const target = await bound();
  const pump = new PacketPump({ originNs: clock.originNs!, onArrivals: () => {}, onError: () => {}, readsOnEventLoop: true });
  pump.addUdp(0, takeOverDgramSocket(target)!, true);
  try {
    // (A slower machine wakes it less often, never more: at most one wake per 20 ms, and one for the source added.)
    const wakes0 = pump.stats().wakes;
    const start = clock.now();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const wakes = pump.stats().wakes - wakes0;
    const elapsed = clock.now() - start;
    assert.ok(wakes <= Math.floor(elapsed / 20) + 2, `${wakes} wakes in ${elapsed.toFixed(0)} ms`);
  } finally {
    pump.close();
    target.close();
  }
});

native('read on the event loop: one wake reads the datagram, sends the departures due by then (one sendmmsg) and hands the arrival over', async () => {
  const clock = createMonotonicClock();
  const { sink, got } = await collectingSink();
  const target = await bound();
  const arrivals: PumpArrival[] = [];
  const pump = new PacketPump({ originNs: clock.originNs!, onArrivals: (a) => arrivals.push(...a), onError: () => {}, sendSlackMs: 60_000, readsOnEventLoop: true });
  pump.addUdp(0, takeOverDgramSocket(target)!, true);
  const sender = await connected(target);
  try {
    const now = clock.now();
    for (let i = 0; i < 5; i++) pump.sendAt(0, Buffer.from([i]), now - 50, i, '127.0.0.1', sink.address().port);
    const before = clock.now();
    sender.send(Buffer.from([99]));
    await waitFor(() => got.length === 5 && arrivals.length === 1 && pump.stats().timedSent === 5, 10_000, 'five departures and the arrival');
    assert.equal(got, [0, 1, 2, 3, 4]);
    assert.ok(arrivals[0].atMs >= before - 1, `stamped ${arrivals[0].atMs}, sent at ${before}`);
    let stats = pump.stats();
    // (Read by the loop, or, if the thread looked just while it waited, by the thread: either way in one wake.)
    assert.is(stats.receivedOnLoop + stats.watchReads, 1);
    assert.is(stats.timedSendCalls, 1);
    assert.is(stats.timerWakes, 0);
    // With the loop free, it is the loop that reads (the thread only what it finds waiting at its look every 20 ms).
    for (let i = 0; i < 20; i++) {
      sender.send(Buffer.from([i]));
      await waitFor(() => arrivals.length === 2 + i, 10_000, `datagram ${i}`);
    }
    stats = pump.stats();
    assert.ok(stats.receivedOnLoop >= 1, `${stats.receivedOnLoop} of 21 read on the loop`);
    assert.is(stats.received, 21);
  } finally {
    pump.close();
    sender.close();
    target.close();
    sink.close();
  }
});

native('read on the event loop: while the loop is held, the thread reads what waits, in order, with the kernel\'s stamps', async () => {
  const clock = createMonotonicClock();
  const batches: PumpArrival[][] = [];
  const target = await bound();
  const pump = new PacketPump({ originNs: clock.originNs!, onArrivals: (a) => batches.push(a), onError: () => {}, readsOnEventLoop: true });
  pump.addUdp(0, takeOverDgramSocket(target)!, true);
  const sender = await connected(target);
  try {
    const before = clock.now();
    for (let i = 0; i < 40; i++) {
      sender.send(Buffer.from([i]));
      if (i === 19) holdEventLoop(30); // the second half arrives 30 ms after the first
    }
    // Held until the thread has read all 40 (the loop cannot: it is held); bounded, not timed.
    const deadline = Date.now() + 10_000;
    while (pump.stats().received < 40 && Date.now() < deadline) holdEventLoop(1);
    const read = clock.now();
    const stats = pump.stats();
    assert.is(stats.received, 40);
    assert.is(stats.receivedOnLoop, 0);
    assert.ok(stats.watchReads >= 1);
    await waitFor(() => batches.flat().length === 40, 10_000, '40 datagrams');
    const arrivals = batches.flat();
    assert.equal(arrivals.map((a) => a.bytes[0]), Array.from({ length: 40 }, (_, i) => i));
    assert.ok(arrivals[20].atMs - arrivals[19].atMs >= 29, `gap ${arrivals[20].atMs - arrivals[19].atMs} ms`);
    for (const a of arrivals) assert.ok(a.atMs >= before - 1 && a.atMs <= read, `arrival ${a.atMs} not in [${before}, ${read}]`);
  } finally {
    pump.close();
    sender.close();
    target.close();
  }
});

native('read on the event loop: a connected socket refused by its peer (a socket error) is reported and still read on the loop', async () => {
  const clock = createMonotonicClock();
  const errors: string[] = [];
  let arrived = 0;
  const pump = new PacketPump({ originNs: clock.originNs!, onArrivals: (a) => (arrived += a.length), onError: (_s, code) => errors.push(code), readsOnEventLoop: true });
  const gone = await bound();
  const peerPort = gone.address().port;
  gone.close(); // nobody listens there for now
  const socket = await bound();
  await new Promise<void>((resolve) => socket.connect(peerPort, '127.0.0.1', () => resolve()));
  pump.addUdp(1, takeOverDgramSocket(socket)!, false);
  let peer: Socket | undefined;
  try {
    // (libuv reports a pending socket error and stops watching the fd: the pump reads the error and watches again.)
    pump.send(1, Buffer.from([1]));
    await waitFor(() => errors.includes('ECONNREFUSED') || pump.stats().sendRefused > 0, 10_000, 'the refusal');
    pump.send(1, Buffer.from([2]));
    await waitFor(() => errors.includes('ECONNREFUSED'), 10_000, 'ECONNREFUSED reported by a read');
    peer = createSocket('udp4');
    await new Promise<void>((resolve) => peer!.bind(peerPort, '127.0.0.1', () => resolve()));
    for (let i = 0; i < 10; i++) {
      peer.send(Buffer.from([i]), socket.address().port, '127.0.0.1');
      await waitFor(() => arrived === i + 1, 10_000, `datagram ${i} from the peer`);
    }
    assert.ok(pump.stats().receivedOnLoop >= 1, `${pump.stats().receivedOnLoop} of 10 read on the loop`);
  } finally {
    pump.close();
    socket.close();
    peer?.close();
  }
});

native('arguments are checked: a closed pump, a source id out of range, a bad fd, an address that is not one', () => {
  const clock = createMonotonicClock();
  const pump = new PacketPump({ originNs: clock.originNs!, onArrivals: () => {}, onError: () => {} });
  assert.throws(() => pump.addUdp(70000, 0, false), /id must be an integer in 0\.\.65543/);
  assert.throws(() => pump.addUdp(1, 1 << 29, false), /fd 536870912/);
  assert.throws(() => pump.send(0, Buffer.from([1]), 'not-an-address', 9), /not an IPv4 or IPv6 address/);
  assert.throws(() => new PacketPump({ originNs: clock.originNs!, onArrivals: () => {}, onError: () => {}, sendSlackMs: -1 }), /sendSlackMs must be a number in 0\.\.10000000/);
  pump.close();
  pump.close(); // idempotent
  assert.is(pump.stats().received, 0); // the counters as they were at the close
});

test.run();
