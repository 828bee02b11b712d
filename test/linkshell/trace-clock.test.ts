// linkshell --trace-clock-start: the trace held until the first datagram or
// RTP packet, what passes unemulated meanwhile, both directions started
// together, the logs' base timestamp at the start datagram's arrival (and the
// log still replays line for line); and which bytes count as RTP.

import { spawnSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LogEventKind, parseLinkLog } from '../../src/link-emu/link-log.ts';
import { formatAddress } from '../../src/net/address.ts';
import { createUdpEndpoint } from '../../src/net/udp-endpoint.ts';
import { startLinkshell } from '../../src/linkshell/session.ts';
import { summaryDocument } from '../../src/linkshell/summary-json-file.ts';
import { TraceClock } from '../../src/linkshell/trace-clock.ts';
import { ipPacketCarriesRtp, isRtp, udpPayloadCarriesRtp } from '../../src/linkshell/media-packets.ts';
import { packetPumpUnavailable } from '../../src/net/packet-pump.ts';
import { config, echoPeer, root, traceFile, waitFor, work } from './helpers.ts';
import { HANG_BOUND_MS } from '../helpers/bounds.ts';
import { requires } from '../helpers/requires.ts';

// --- packets as WebRTC sends them ---

/** An RTP packet: version 2, payload type 96 (with the marker bit: 0xe0), sequence, timestamp, SSRC, payload. */
function rtp(payloadType = 96, marker = false): Uint8Array {
  const p = new Uint8Array(40);
  p[0] = 0x80;
  p[1] = (marker ? 0x80 : 0) | payloadType;
  p[3] = 7;
  return p;
}
/** An RTCP sender report (packet type 200). */
const rtcp = () => Uint8Array.from([0x80, 200, 0, 6, ...new Array(24).fill(1)]);
/** A STUN binding request (type 0x0001, magic cookie). */
const stun = () => Uint8Array.from([0, 1, 0, 0, 0x21, 0x12, 0xa4, 0x42, ...new Array(12).fill(3)]);
/** A DTLS handshake record (content type 22). */
const dtls = () => Uint8Array.from([22, 0xfe, 0xfd, ...new Array(30).fill(0)]);

function channelData(payload: Uint8Array, channel = 0x4001): Uint8Array {
  const m = new Uint8Array(4 + payload.length);
  m[0] = channel >> 8;
  m[1] = channel & 0xff;
  m[2] = payload.length >> 8;
  m[3] = payload.length & 0xff;
  m.set(payload, 4);
  return m;
}

/** A TURN Send indication: an XOR-PEER-ADDRESS attribute, then DATA holding `payload`. */
function sendIndication(payload: Uint8Array): Uint8Array {
  const peer = [0x00, 0x12, 0, 8, 0, 1, 0x12, 0x34, 1, 2, 3, 4];
  const padded = Math.ceil(payload.length / 4) * 4;
  const body = new Uint8Array(peer.length + 4 + padded);
  body.set(peer);
  body.set([0x00, 0x13, payload.length >> 8, payload.length & 0xff], peer.length);
  body.set(payload, peer.length + 4);
  const m = new Uint8Array(20 + body.length);
  m.set([0x00, 0x16, body.length >> 8, body.length & 0xff, 0x21, 0x12, 0xa4, 0x42]);
  m.set(body, 20);
  return m;
}

/** An IPv4 packet of `protocol` (17 UDP, 6 TCP) around `payload`. */
function ipv4(protocol: 6 | 17, payload: Uint8Array, fragmentOffset = 0): Uint8Array {
  const transport = protocol === 17 ? 8 : 20;
  const p = new Uint8Array(20 + transport + payload.length);
  p[0] = 0x45;
  p[2] = p.length >> 8;
  p[3] = p.length & 0xff;
  p[6] = fragmentOffset >> 8;
  p[7] = fragmentOffset & 0xff;
  p[9] = protocol;
  if (protocol === 6) p[20 + 12] = 5 << 4;
  p.set(payload, 20 + transport);
  return p;
}

test('RTP is told from RTCP, STUN and DTLS, bare and inside TURN ChannelData or a Send indication', () => {
  assert.ok(isRtp(rtp()));
  assert.ok(isRtp(rtp(96, true)), 'the marker bit set');
  assert.not.ok(isRtp(rtcp()));
  assert.not.ok(isRtp(stun()));
  assert.not.ok(isRtp(dtls()));
  assert.not.ok(isRtp(rtp().subarray(0, 11)), 'shorter than an RTP header');
  assert.ok(udpPayloadCarriesRtp(channelData(rtp())));
  assert.not.ok(udpPayloadCarriesRtp(channelData(dtls())));
  assert.not.ok(udpPayloadCarriesRtp(channelData(rtcp())));
  assert.not.ok(udpPayloadCarriesRtp(channelData(rtp()).subarray(0, 20)), 'a ChannelData message cut short');
  assert.ok(udpPayloadCarriesRtp(sendIndication(rtp())));
  assert.not.ok(udpPayloadCarriesRtp(sendIndication(stun())));
  assert.not.ok(udpPayloadCarriesRtp(stun()));
});

test('linkshell --netns packets: RTP in a UDP datagram (bare or in TURN) or at the start of a TCP segment (TURN over TCP); not in a later fragment', () => {
  assert.ok(ipPacketCarriesRtp(ipv4(17, rtp())));
  assert.ok(ipPacketCarriesRtp(ipv4(17, channelData(rtp()))));
  assert.not.ok(ipPacketCarriesRtp(ipv4(17, dtls())));
  assert.ok(ipPacketCarriesRtp(ipv4(6, channelData(rtp()))));
  assert.not.ok(ipPacketCarriesRtp(ipv4(6, rtp())), 'TCP carries RTP only in TURN framing');
  assert.not.ok(ipPacketCarriesRtp(ipv4(6, new Uint8Array(0))), 'a bare ACK');
  assert.not.ok(ipPacketCarriesRtp(ipv4(17, rtp(), 0x10)), 'a fragment after the first');
});

// --- the held clock, driven without sockets ---

function heldClock(start: 'now' | 'first-packet' | 'first-rtp') {
  const passed: [number, string][] = [];
  const builds: number[] = [];
  const clock = new TraceClock<{ base: number; name: string }, string>({
    start,
    isRtp: udpPayloadCarriesRtp,
    nowMs: 3.7,
    passThrough: [(_b, flow) => passed.push([0, flow]), (_b, flow) => passed.push([1, flow])],
    build: (base) => {
      builds.push(base);
      return [
        { base, name: 'uplink' },
        { base, name: 'downlink' },
      ];
    },
  });
  return { clock, passed, builds };
}

test('first-rtp: STUN and DTLS pass unemulated both ways; the first RTP packet starts both directions at its arrival ms; after it everything is emulated', () => {
  const { clock, passed, builds } = heldClock('first-rtp');
  assert.equal(clock.started(), []);
  assert.is(clock.entry(0, stun(), 'stun', 10.2), undefined);
  assert.is(clock.entry(1, channelData(dtls()), 'dtls answer', 250.9), undefined);
  assert.is(clock.entry(1, rtcp(), 'rtcp', 300), undefined);
  assert.equal(passed, [[0, 'stun'], [1, 'dtls answer'], [1, 'rtcp']]);
  assert.equal(builds, []);
  assert.equal(clock.entry(0, channelData(rtp()), 'media', 1234.6), { base: 1234, name: 'uplink' });
  assert.equal(builds, [1234], 'both directions built once, with one base timestamp');
  assert.equal(clock.entry(1, stun(), 'stun later', 1300), { base: 1234, name: 'downlink' }, 'once started, every datagram is emulated');
  assert.is(passed.length, 3);
  const report = clock.report();
  assert.is(report.startedAtMs, 1234);
  assert.equal(report.passedUnemulated, [
    { datagrams: 1, bytes: stun().length },
    { datagrams: 2, bytes: channelData(dtls()).length + rtcp().length },
  ]);
});

test('first-packet starts at the first datagram of either direction; now at construction; a run that ends held starts at its end', () => {
  const first = heldClock('first-packet');
  assert.equal(first.clock.entry(1, stun(), 'x', 42.9), { base: 42, name: 'downlink' });
  assert.equal(first.passed, []);
  const now = heldClock('now');
  assert.equal(now.builds, [3]);
  const never = heldClock('first-rtp');
  never.clock.entry(0, stun(), 'x', 5);
  never.clock.ensureStarted(900.5);
  assert.equal(never.builds, [900]);
  assert.ok(never.clock.report().heldToEnd);
  assert.not.ok(first.clock.report().heldToEnd);
  never.clock.ensureStarted(1000);
  assert.equal(never.builds, [900], 'started once');
});

// --- a real session ---

/** One 1504-byte opportunity every 10 ms. */
const EVERY_10MS = traceFile('clock-every-10ms.trace', [10]);

function replayLog(log: string): string {
  const r = spawnSync(process.execPath, [join(root, 'bin/linkshell.js'), 'replay', '--log-in', log, '--trace', EVERY_10MS], { cwd: root, encoding: 'utf8', timeout: HANG_BOUND_MS });
  assert.is(r.status, 0, r.stderr);
  return r.stdout;
}

const events = (text: string) => text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));

test('linkshell --trace-clock-start first-rtp: the STUN exchange passes unemulated, the first RTP packet meets the trace at its time zero, both logs share that base timestamp and replay', async () => {
  const peer = await echoPeer();
  const up = join(work, 'held.up.log');
  const down = join(work, 'held.down.log');
  const session = await startLinkshell(
    config(['--trace', EVERY_10MS, '--connect', formatAddress(peer.localAddress), '--trace-clock-start', 'first-rtp', '--uplink-log', up, '--downlink-log', down]),
    { warn: () => {} },
  );
  const client = await createUdpEndpoint({ peer: session.listenAddress });
  const got: Uint8Array[] = [];
  client.onReceive((bytes) => got.push(bytes));
  try {
    client.send(channelData(stun()));
    await waitFor(() => got.length === 1, 10_000, 'the STUN echo, unemulated');
    const heldUntil = session.now();
    assert.equal(session.report().directions, [], 'no direction while held');
    client.send(channelData(rtp()));
    client.send(channelData(dtls()));
    await waitFor(() => got.length === 3, 10_000, 'the RTP and DTLS echoes, through both links');
    const report = await session.stop();
    const base = report.traceClock!.startedAtMs!;
    assert.ok(base >= Math.floor(heldUntil), `the trace started at ${base} ms, after the STUN echo came back at ${heldUntil} ms`);
    assert.equal(report.traceClock!.passedUnemulated, [
      { datagrams: 1, bytes: 24 },
      { datagrams: 1, bytes: 24 },
    ]);
    assert.is(report.directions[0].stats.packetsIn, 2);
    assert.is(report.directions[1].stats.packetsIn, 2);
    const upLog = parseLinkLog(readFileSync(up, 'utf8'), up);
    const downLog = parseLinkLog(readFileSync(down, 'utf8'), down);
    assert.is(upLog.header.baseTimestamp, base);
    assert.is(downLog.header.baseTimestamp, base, 'both directions start together');
    assert.is(upLog.header.initTimestamp, downLog.header.initTimestamp);
    const arrivals = [...upLog.time].filter((_, i) => upLog.kind[i] === LogEventKind.Arrival);
    assert.is(arrivals.length, 2, 'the RTP and DTLS packets are logged, the STUN one is not');
    assert.is(arrivals[0], base, 'the RTP packet arrives at trace time 0');
    assert.ok(arrivals[1]! >= base);
    // The first opportunity is the trace's first, 10 ms after its start.
    const departures = [...upLog.time].filter((_, i) => upLog.kind[i] === LogEventKind.Departure);
    assert.is(departures[0], base + 10);
    assert.equal(events(replayLog(up)), events(readFileSync(up, 'utf8')));
    const doc = summaryDocument(report) as { traceClock: { start: string; startedAtMs: number } };
    assert.is(doc.traceClock.start, 'first-rtp');
    assert.is(doc.traceClock.startedAtMs, base);
  } finally {
    client.close();
    await session.stop();
    peer.close();
  }
});

// Skipped, and counted with the reason, where the native packet pump is not built.
const native = requires([], { 'packet pump': packetPumpUnavailable() });

native('the start datagram is logged at its arrival even when it is taken late and a stage (on/off) reads the clock as the direction is built', async () => {
  const sink = createSocket('udp4');
  await new Promise<void>((resolve) => sink.bind(0, '127.0.0.1', () => resolve()));
  let received = 0;
  sink.on('message', () => received++);
  const log = join(work, 'held-late.up.log');
  const session = await startLinkshell(
    config(['--trace', EVERY_10MS, '--connect', `127.0.0.1:${sink.address().port}`, '--trace-clock-start', 'first-packet', '--uplink-onoff', '100000,1', '--uplink-log', log]),
    { warn: () => {} },
  );
  const client = createSocket('udp4');
  await new Promise<void>((resolve) => client.connect(session.listenAddress.port, session.listenAddress.address, () => resolve()));
  try {
    client.send(Buffer.alloc(100));
    // The native thread stamps the arrival now; this thread takes it (and builds the directions) 40 ms later.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 40);
    await waitFor(() => received === 1, 10_000, 'the datagram through');
  } finally {
    client.close();
    await session.stop();
    sink.close();
  }
  const parsed = parseLinkLog(readFileSync(log, 'utf8'), log);
  const first = [...parsed.time].find((_, i) => parsed.kind[i] === LogEventKind.Arrival);
  assert.is(first, parsed.header.baseTimestamp, `arrival logged at ${first}, the trace started at ${parsed.header.baseTimestamp}`);
});

test('linkshell --trace-clock-start: a bad value is refused naming the choices', () => {
  assert.throws(() => config(['--trace', EVERY_10MS, '--connect', '127.0.0.1:9', '--trace-clock-start', 'first-media']), /--trace-clock-start.*now.*first-packet.*first-rtp/);
  assert.is(config(['--trace', EVERY_10MS, '--connect', '127.0.0.1:9']).traceClockStart, 'now');
});

test.run();
