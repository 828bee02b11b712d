// linkshell --netns end to end, as users run it: iperf3 over UDP (over TCP: tcp-throughput.test.ts),
// round-trip time, several ports, DNS, two runs side by side, and cleanup
// after SIGINT and SIGKILL. Only loopback, the host's end of the link and
// the namespaces these runs create carry traffic; every run is bounded.
// test-runner: slow

import { spawnSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LogEventKind, parseLinkLog } from '../../src/link-emu/link-log.ts';
import { waitFor } from '../helpers/wait-for.ts';
import {
  freePort, netnsTest, iperf3Json, iperf3Server, leftovers, linkshell, namespaceOf, namespacePids, runLinkshell, TRACE_12MBPS, work,
} from './helpers.ts';
import { HANG_BOUND_MS } from '../helpers/bounds.ts';

const maybe = netnsTest;

const UDP_PAYLOAD = 1200;

/** The host's count of UDP datagrams dropped because a receiving socket's buffer was full (RcvbufErrors in /proc/net/snmp). */
function hostUdpReceiveBufferDrops(): number {
  const rows = readFileSync('/proc/net/snmp', 'utf8').split('\n').filter((line) => line.startsWith('Udp:'));
  const names = rows[0]!.split(/\s+/);
  return Number(rows[1]!.split(/\s+/)[names.indexOf('RcvbufErrors')]);
}

maybe('iperf3 over UDP works, its TCP control connection included, with no forwarder; linkshell carries every datagram', async () => {
  const port = await freePort();
  const server = await iperf3Server(port);
  const upLog = join(work, 'udp-up.log');
  try {
    const dropsBefore = hostUdpReceiveBufferDrops();
    const r = await runLinkshell(
      ['--netns', '--trace', TRACE_12MBPS, '--uplink-log', upLog, '--', 'sh', '-c', `exec iperf3 -u -b 8M -l ${UDP_PAYLOAD} -c "$MAHIMAHI_BASE" -p ${port} -t 4 -J`],
      HANG_BOUND_MS,
    );
    assert.is(r.code, 0, r.stderr);
    const socketDrops = hostUdpReceiveBufferDrops() - dropsBefore;
    const { sum_sent: sent, sum_received: received } = iperf3Json(r.stdout).end;
    assert.ok(sent!.bits_per_second > 7.5e6 && sent!.bits_per_second < 8.5e6, `UDP sent at ${sent!.bits_per_second} bit/s`);
    // Every datagram the client sent crossed the link: iperf3's UDP datagram in an IP packet, plus the 4-byte TUN header.
    const log = parseLinkLog(readFileSync(upLog, 'utf8'), upLog);
    let departed = 0;
    let dropped = 0;
    for (let i = 0; i < log.count; i++) {
      if (log.kind[i] === LogEventKind.Departure && log.a[i] === UDP_PAYLOAD + 8 + 20 + 4) departed++;
      if (log.kind[i] === LogEventKind.Drop) dropped++;
    }
    assert.is(dropped, 0, 'the uplink queue dropped packets');
    assert.is(departed, sent!.packets!, `the client sent ${sent!.packets} datagrams, ${departed} left the link`);
    // What iperf3 still counts lost was lost after the link, in the receiving socket: the host's kernel counts those
    // (its UDP RcvbufErrors, for every socket of the host, so it can only overstate them) when the server is starved of CPU.
    const lost = received!.lost_packets!;
    const says = `iperf3 lost ${lost} of ${sent!.packets} datagrams; the host's UDP sockets dropped ${socketDrops} for a full receive buffer`;
    assert.ok(lost <= 0.01 * sent!.packets! || lost <= socketDrops, says);
    if (lost > 0) console.log(`  (${says})`);
  } finally {
    server.stop();
  }
});

maybe('a TCP connection\'s round-trip time is 2 x --delay', async () => {
  const server = createServer((socket: Socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
  const { port } = server.address() as { port: number };
  // Connect, then bounce one byte 10 times; print the connect time and the smallest round trip.
  const script = `
    const net = require('net');
    const t0 = performance.now();
    const s = net.connect(${port}, process.env.MAHIMAHI_BASE, () => {
      const connectMs = performance.now() - t0;
      const rtts = []; let sent = 0;
      const ping = () => { sent = performance.now(); s.write('x'); };
      s.on('data', () => { rtts.push(performance.now() - sent); if (rtts.length < 10) ping(); else { console.log(JSON.stringify({ connectMs, min: Math.min(...rtts), max: Math.max(...rtts) })); s.end(); } });
      ping();
    });`;
  try {
    const r = await runLinkshell(['--netns', '--trace', TRACE_12MBPS, '--delay', '40', '--', process.execPath, '-e', script], HANG_BOUND_MS);
    assert.is(r.code, 0, r.stderr);
    const { connectMs, min } = JSON.parse(r.stdout) as { connectMs: number; min: number };
    assert.ok(min >= 80, `smallest round trip ${min} ms, under 2 x 40 ms`);
    // Each way also takes its link's next opportunity (1 ms); a loaded machine adds its own lateness.
    assert.ok(min < 80 + 30, `smallest round trip ${min} ms, far over 2 x 40 ms`);
    assert.ok(connectMs >= 80, `connected in ${connectMs} ms`);
  } finally {
    server.close();
  }
});

maybe("a TCP connection's last bytes and its close reach the host after COMMAND has exited (--drain)", async () => {
  // The host reads until the connection's end; the command sends its last bytes, closes, and exits at once:
  // with 200 ms of delay each way, they are still on the link when it has gone.
  let received = '';
  let ended = false;
  const server = createServer((socket: Socket) => {
    socket.setEncoding('utf8');
    socket.on('data', (text: string) => (received += text));
    socket.on('end', () => (ended = true));
  });
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
  const { port } = server.address() as { port: number };
  const script = `const s = require('net').connect(${port}, process.env.MAHIMAHI_BASE, () => s.end('last words', () => process.exit(0)));`;
  try {
    const r = await runLinkshell(['--netns', '--trace', TRACE_12MBPS, '--delay', '200', '--', process.execPath, '-e', script], HANG_BOUND_MS);
    assert.is(r.code, 0, r.stderr);
    await waitFor(() => ended, HANG_BOUND_MS, "the end of the command's connection at the host");
    assert.is(received, 'last words');
  } finally {
    server.close();
  }
});

maybe('an application sending to $MAHIMAHI_BASE on several ports is emulated on all of them', async () => {
  const sockets = await Promise.all(
    [0, 1, 2].map(async () => {
      const socket = createSocket('udp4');
      socket.on('message', (bytes, from) => socket.send(bytes, from.port, from.address));
      await new Promise<void>((resolve) => socket.bind(0, '0.0.0.0', () => resolve()));
      return socket;
    }),
  );
  const ports = sockets.map((s) => s.address().port);
  const upLog = join(work, 'ports-up.log');
  // 20 datagrams of 100 bytes to each port; each port's echoes counted and timed.
  const script = `
    const dgram = require('dgram');
    const ports = ${JSON.stringify(ports)};
    const result = {};
    const s = dgram.createSocket('udp4');
    const sentAt = new Map();
    // Done when every echo is back (or, bounded, after 10 s with what came: a lost one fails the test below).
    let echoes = 0;
    const finish = () => { console.log(JSON.stringify(result)); s.close(); process.exit(0); };
    setTimeout(finish, 10000);
    s.on('message', (m, from) => {
      const r = (result[from.port] ??= { echoes: 0, minRtt: Infinity });
      r.echoes++;
      r.minRtt = Math.min(r.minRtt, performance.now() - sentAt.get(m.toString()));
      if (++echoes === 20 * ports.length) finish();
    });
    let n = 0;
    const timer = setInterval(() => {
      for (const port of ports) { const payload = (port + ':' + n + ':').padEnd(100, 'x'); sentAt.set(payload, performance.now()); s.send(payload, port, process.env.MAHIMAHI_BASE); }
      if (++n === 20) clearInterval(timer);
    }, 10);`;
  try {
    const r = await runLinkshell(['--netns', '--trace', TRACE_12MBPS, '--delay', '25', '--uplink-log', upLog, '--', process.execPath, '-e', script], HANG_BOUND_MS);
    assert.is(r.code, 0, r.stderr);
    const result = JSON.parse(r.stdout) as Record<string, { echoes: number; minRtt: number }>;
    for (const port of ports) {
      const got = result[port];
      assert.ok(got, `no echo from port ${port}: ${r.stdout}`);
      assert.is(got.echoes, 20, `port ${port}`);
      assert.ok(got.minRtt >= 50, `port ${port}: round trip ${got.minRtt} ms, under 2 x 25 ms`);
    }
    // On the uplink's log: 60 packets of 100 bytes + 8 (UDP) + 20 (IPv4) + 4 (TUN header).
    const log = parseLinkLog(readFileSync(upLog, 'utf8'), upLog);
    let arrivals = 0;
    for (let i = 0; i < log.count; i++) if (log.kind[i] === LogEventKind.Arrival && log.a[i] === 132) arrivals++;
    assert.is(arrivals, 60);
  } finally {
    for (const socket of sockets) socket.close();
  }
});

maybe('--uplink-onoff: what the application sends while the uplink is off is lost, counted in the summary', async () => {
  const socket = createSocket('udp4');
  let received = 0;
  socket.on('message', () => received++);
  await new Promise<void>((resolve) => socket.bind(0, '0.0.0.0', () => resolve()));
  const { port } = socket.address();
  // 300 datagrams over 1.5 s, against on and off periods of 100 ms on average.
  const script = `
    const s = require('dgram').createSocket('udp4'); let n = 0;
    const timer = setInterval(() => { s.send('x'.repeat(100), ${port}, process.env.MAHIMAHI_BASE); if (++n === 300) { clearInterval(timer); setTimeout(() => s.close(), 300); } }, 5);`;
  try {
    const r = await runLinkshell(['--netns', '--trace', TRACE_12MBPS, '--uplink-onoff', '100,100', '--seed', '7', '--', process.execPath, '-e', script], HANG_BOUND_MS);
    assert.is(r.code, 0, r.stderr);
    const onOffDrops = Number(/drops: on\/off\s*│\s*(\d+)/.exec(r.stderr)?.[1]);
    assert.ok(onOffDrops > 30 && onOffDrops < 270, `${onOffDrops} of 300 dropped while off:\n${r.stderr}`);
    assert.is(received, 300 - onOffDrops);
  } finally {
    socket.close();
  }
});

maybe('DNS inside: the forwarder at $MAHIMAHI_BASE answers from the host, through the link', async () => {
  const script = `
    const t0 = performance.now();
    require('dns').promises.resolve4('localhost').then((a) => console.log(JSON.stringify({ a, ms: performance.now() - t0 })));`;
  const r = await runLinkshell(['--netns', '--trace', TRACE_12MBPS, '--delay', '30', '--', process.execPath, '-e', script], HANG_BOUND_MS);
  assert.is(r.code, 0, r.stderr);
  const { a, ms } = JSON.parse(r.stdout) as { a: string[]; ms: number };
  assert.equal(a, ['127.0.0.1']);
  assert.ok(ms >= 60, `answered in ${ms} ms: not through the link`);
  assert.ok(ms < 2000, `answered in ${ms} ms: not fast`);
  assert.match(r.stderr, /1 DNS answer\b/);
});

maybe('inside, IPv6 is off on the device (no chatter of its own crosses the link), and the kernel\'s drops at both devices are read', async () => {
  const summary = join(work, 'ipv6-summary.json');
  const script = 'for f in /proc/sys/net/ipv6/conf/ls-*-i/disable_ipv6; do [ -e "$f" ] && echo "${f#/proc/sys/net/ipv6/conf/}: $(cat "$f")"; done; true';
  const r = await runLinkshell(['--netns', '--trace', TRACE_12MBPS, '--summary-json', summary, '--', 'sh', '-c', script], HANG_BOUND_MS);
  assert.is(r.code, 0, r.stderr);
  if (existsSync('/proc/sys/net/ipv6')) assert.match(r.stdout, /^ls-[0-9a-z]+-i\/disable_ipv6: 1\n$/);
  const doc = JSON.parse(readFileSync(summary, 'utf8')) as { verdict: string; kernelDrops: number | null; directions: { datagramsIn: number }[] };
  assert.is(doc.kernelDrops, 0, 'the devices\' drop counters were not read');
  assert.is(doc.verdict, 'valid');
  assert.equal(doc.directions.map((d) => d.datagramsIn), [0, 0]);
});

maybe('two runs side by side get their own namespaces, devices and addresses', async () => {
  const script = 'echo "$MAHIMAHI_BASE"; sleep 1';
  const [a, b] = await Promise.all([0, 1].map(() => runLinkshell(['--netns', '--trace', TRACE_12MBPS, '--', 'sh', '-c', script], HANG_BOUND_MS)));
  assert.is(a.code, 0, a.stderr);
  assert.is(b.code, 0, b.stderr);
  assert.is.not(namespaceOf(a.stderr), namespaceOf(b.stderr));
  assert.is.not(a.stdout.trim(), b.stdout.trim());
  assert.match(a.stdout, /^100\.(6[4-9]|[7-9]\d|1[01]\d|12[0-7])\.\d+\.\d+\n$/);
});

for (const signal of ['SIGINT', 'SIGKILL'] as const) {
  maybe(`after ${signal} of linkshell no namespace, device or process is left${signal === 'SIGINT' ? ', and the logs are complete' : ''}`, async () => {
    const upLog = join(work, `${signal}-up.log`);
    const run = linkshell(['--netns', '--trace', TRACE_12MBPS, '--uplink-log', upLog, '--', 'sh', '-c', 'sleep 300 & sleep 300 & wait']);
    let namespace: string | undefined;
    await waitFor(() => (namespace = namespaceOf(run.stderr())) !== undefined, HANG_BOUND_MS, 'linkshell to start');
    let pids: number[] = [];
    await waitFor(() => (pids = namespacePids(namespace!)).length >= 3, HANG_BOUND_MS, 'the command and its two sleeps');
    run.child.kill(signal);
    const { code } = await run.exited;
    // linkshell ends at once on SIGKILL; its watchdog then ends the command's processes and removes the namespace.
    try {
      await waitFor(() => leftovers(namespace!, pids).length === 0, HANG_BOUND_MS, 'the run to be cleaned up');
    } catch {
      assert.unreachable(`left behind: ${leftovers(namespace!, pids).join(', ')}`);
    }
    if (signal === 'SIGINT') {
      assert.is(code, 130, run.stderr());
      const log = parseLinkLog(readFileSync(upLog, 'utf8'), upLog);
      assert.ok(log.count > 0);
      assert.match(run.stderr(), /linkshell: ran \d+\.\d+ s; network namespace /);
    }
  });
}

maybe('without root, --netns says what is missing, that the relay mode needs none of it, and starts nothing', async () => {
  // Root without any capability (so the checkout stays readable wherever it is, a 0700 folder included).
  const noCaps = ['--securebits', '+noroot,+noroot_locked,+no_setuid_fixup,+no_setuid_fixup_locked', '--bounding-set', '-all', '--inh-caps', '-all'];
  const r = spawnSync('setpriv', [...noCaps, process.execPath, join(import.meta.dirname, '../../bin/linkshell.js'), '--netns', '--trace', TRACE_12MBPS, '--', 'true'], {
    encoding: 'utf8',
    timeout: HANG_BOUND_MS,
  });
  if (r.error) return; // no setpriv here
  // What the machine lacks is the environment's fault, not linkshell's: the project's rule, one line and status 2.
  assert.is(r.status, 2, r.stderr);
  assert.equal(r.stderr.split('\n'), [
    'linkshell: --netns needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN missing: it creates TUN devices and a network namespace); run it as root, or use the relay mode (linkshell without --netns), which needs neither',
    '',
  ]);
});

test.run();
