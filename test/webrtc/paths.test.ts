// salsify webrtc --path and --loss: the options, coturn's configuration for
// a sender in a namespace, the namespace's kernel counters, and (as root)
// the netns sender's set-up without a browser: the pages reached from inside
// over the bridge without crossing the link, UDP dropped for turn-tcp, and
// nothing left once stopped.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createSocket } from 'node:dgram';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseWebrtcArgs } from '../../src/cli/webrtc-command.ts';
import { exitStatusOf } from '../../src/common/errors.ts';
import { netnsUnavailable } from '../../src/netns/prerequisites.ts';
import { coturnConfigText } from '../../src/webrtc/coturn.ts';
import { counterDelta, parseProcNetCounters, startNetnsSender } from '../../src/webrtc/netns-sender.ts';
import { runWebrtcBench } from '../../src/webrtc/bench.ts';
import { processesMentioning } from '../helpers/processes.ts';
import { requires } from '../helpers/requires.ts';
import { HANG_BOUND_MS } from '../helpers/bounds.ts';

const dir = mkdtempSync(join(tmpdir(), 'webrtc-paths-test-'));
const privileged = requires(['iptables'], { netns: netnsUnavailable() });

const SNMP = `Ip: Forwarding DefaultTTL
Ip: 1 64
Tcp: RtoAlgorithm RetransSegs OutSegs
Tcp: 1 3 100
Udp: InDatagrams OutDatagrams
Udp: 0 7
`;

test('kernel counters: /proc/net/snmp read by group and name, and the difference of two readings', () => {
  const before = parseProcNetCounters(SNMP);
  assert.equal(before.Tcp, { RtoAlgorithm: 1, RetransSegs: 3, OutSegs: 100 });
  assert.equal(before.Udp, { InDatagrams: 0, OutDatagrams: 7 });
  const after = parseProcNetCounters(SNMP.replace('Tcp: 1 3 100', 'Tcp: 1 10 250').replace('Udp: 0 7', 'Udp: 2 7'));
  assert.equal(counterDelta(before, after).Tcp, { RtoAlgorithm: 0, RetransSegs: 7, OutSegs: 150 });
  assert.equal(counterDelta(before, after).Udp, { InDatagrams: 2, OutDatagrams: 0 });
  assert.throws(() => parseProcNetCounters('Tcp: A B\nUdp: 1 2\n'), /unexpected counters/);
});

test("coturn listens on the namespace's host address too, when asked", () => {
  const config = { port: 3478, minPort: 40000, maxPort: 40099, user: 'u', password: 'p', realm: 'r' };
  assert.equal(coturnConfigText(config, '/x.log').split('\n').filter((l) => l.startsWith('listening-ip=')), ['listening-ip=127.0.0.1']);
  assert.equal(coturnConfigText({ ...config, extraListeningIps: ['100.64.0.1'] }, '/x.log').split('\n').filter((l) => l.startsWith('listening-ip=')), ['listening-ip=127.0.0.1', 'listening-ip=100.64.0.1']);
});

requires(['chromium', 'coturn'])('--path: turn-udp by default, turn-tcp and p2p; --loss sets both directions and excludes the per-direction options', () => {
  const base = ['--downlink', 'const:2', '--uplink', 'const:2', '--video', 'synthetic', '--out', join(dir, 'parse')];
  assert.is(parseWebrtcArgs(base).call?.path, 'turn-udp');
  if (netnsUnavailable() === undefined) {
    assert.is(parseWebrtcArgs([...base, '--path', 'turn-tcp']).call?.path, 'turn-tcp');
    assert.is(parseWebrtcArgs([...base, '--path', 'p2p']).call?.path, 'p2p');
  }
  const lossy = parseWebrtcArgs([...base, '--loss', '0.005']).call!.linkshellArgs!;
  assert.equal(lossy.slice(lossy.indexOf('--uplink-loss'), lossy.indexOf('--uplink-loss') + 2), ['--uplink-loss', '0.005']);
  assert.equal(lossy.slice(lossy.indexOf('--downlink-loss'), lossy.indexOf('--downlink-loss') + 2), ['--downlink-loss', '0.005']);
  for (const [args, message] of [
    [['--path', 'tcp'], /--path/],
    [['--loss', '0.01', '--uplink-loss', '0.1'], /--loss sets both directions/],
    [['--loss', '2'], /--loss/],
  ] as const) {
    try {
      parseWebrtcArgs([...base, ...args]);
      assert.unreachable(`accepted ${args.join(' ')}`);
    } catch (error) {
      assert.match((error as Error).message, message);
      assert.is(exitStatusOf(error), 2);
    }
  }
});

privileged('the netns sender: the host page server reached from inside at 127.0.0.1 off the link, UDP dropped for turn-tcp, nothing left once stopped', async () => {
  const trace = join(dir, 'const.trace');
  writeFileSync(trace, '1\n');
  const server = createServer((_request, response) => response.end('page'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const pagePort = (server.address() as { port: number }).port;
  const udp = createSocket('udp4');
  let udpArrived = 0;
  udp.on('message', () => udpArrived++);
  await new Promise<void>((resolve) => udp.bind(0, '0.0.0.0', () => resolve()));
  const videoLog = join(dir, 'video.log');
  const sender = await startNetnsSender({
    videoTrace: trace, feedbackTrace: trace, videoLog, feedbackLog: join(dir, 'feedback.log'), extraArgs: ['--delay', '5'],
    pagePort, dir, chromium: '/bin/true', blockUdp: true,
  });
  let stopped = false;
  try {
    assert.is(sender.udpBlockedBy, 'iptables');
    assert.match(readFileSync(sender.chromiumWrapper, 'utf8'), new RegExp(`exec ip netns exec ${sender.namespace} /bin/true "\\$@"`));
    const before = sender.counters();
    // Asynchronously: the bridge's host end runs in this process.
    const inside = (code: string) =>
      new Promise<{ stdout: string; stderr: string }>((resolve) => {
        const child = spawn('ip', ['netns', 'exec', sender.namespace, process.execPath, '-e', code], { stdio: ['ignore', 'pipe', 'pipe'], timeout: HANG_BOUND_MS });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d) => (stdout += d));
        child.stderr.on('data', (d) => (stderr += d));
        child.on('close', () => resolve({ stdout, stderr }));
      });
    const page = await inside(`fetch('http://127.0.0.1:${pagePort}/').then((r) => r.text()).then((t) => process.stdout.write(t), (e) => { console.error(String(e)); process.exit(1); })`);
    assert.is(page.stdout, 'page', page.stderr);
    // A datagram to the host over the link: dropped in the namespace (EPERM from iptables), never arriving.
    const datagram = await inside(`const s = require('node:dgram').createSocket('udp4'); s.send('x', ${udp.address().port}, '${sender.hostAddress}', (e) => { process.stdout.write(e ? e.code : 'sent'); s.close(); })`);
    assert.is(datagram.stdout, 'EPERM', datagram.stderr);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.is(udpArrived, 0);
    const delta = counterDelta(before, sender.counters());
    assert.ok((delta.Tcp?.OutSegs ?? 0) > 0, 'the page fetch counted as TCP inside');
    assert.is(await sender.stop(), 0);
    stopped = true;
    // Nothing of the page crossed the link (only what the kernel itself may send: no TCP of the fetch).
    const logged = readFileSync(videoLog, 'utf8').split('\n').filter((l) => / \+ /.test(l)).length;
    assert.ok(logged < 5, `${logged} packets entered the link`);
    assert.not.match(spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout, sender.namespace);
    assert.not.ok(existsSync(join(dir, 'pages.sock')) && spawnSync('ss', ['-xl'], { encoding: 'utf8' }).stdout.includes(join(dir, 'pages.sock')));
  } finally {
    if (!stopped) await sender.stop();
    udp.close();
    await new Promise((resolve) => server.close(resolve));
  }
});

const calls = requires(['chromium', 'coturn', 'iptables'], { netns: netnsUnavailable() });

calls('a 4 s call over TURN over TCP: connected, only TCP on the link (no UDP left the namespace), the counters in path.json, nothing left', async () => {
  const out = join(dir, 'turn-tcp');
  const args = parseWebrtcArgs(['--path', 'turn-tcp', '--loss', '0.01', '--downlink', 'const:6', '--uplink', 'const:6', '--delay', '10', '--video', 'synthetic', '--size', '320x180', '--duration', '4', '--drain', '500', '--out', out]);
  const result = await runWebrtcBench({ ...args.call! });
  assert.ok(result.summary.framesShown > 30, `${result.summary.framesShown} frames shown`);
  const path = JSON.parse(readFileSync(join(out, 'path.json'), 'utf8'));
  assert.is(path.path, 'turn-tcp');
  assert.is(path.udpBlockedBy, 'iptables');
  assert.is(path.kernelCounters.wholeRun.Udp.OutDatagrams, 0);
  assert.ok(path.kernelCounters.delta.Tcp.OutSegs > 100, 'the media went over TCP');
  assert.ok(readFileSync(join(out, 'video-link.log'), 'utf8').split('\n').filter((l) => / \+ /.test(l)).length > 100, 'it crossed the link');
  // The trace clock started at the first RTP packet, found inside TURN over TCP in the namespace's IP packets.
  const traceClock = JSON.parse(readFileSync(join(out, 'linkshell.json'), 'utf8')).traceClock;
  assert.is(traceClock.start, 'first-rtp');
  assert.is(traceClock.heldToEnd, false);
  assert.ok(traceClock.passedUnemulated[0].datagrams > 0, 'the TCP and TURN set-up passed unemulated');
  assert.not.match(spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout, path.kernelCounters.namespace);
  // linkshell's watchdog (which names the namespace) ends just after it.
  for (let i = 0; i < 50 && processesMentioning(path.kernelCounters.namespace).length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(processesMentioning(path.kernelCounters.namespace), []);
});

test.after(() => rmSync(dir, { recursive: true, force: true }));
test.run();
