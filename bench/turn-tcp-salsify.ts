// Salsify on the TURN-over-TCP study's paths (bench/turn-tcp.ts): our live
// salsify send runs inside linkshell --netns on the same DSL-like path as the
// sending Chromium; salsify receive and (for tcp) the TCP relay run on the
// host:
//
//   udp:  salsify send --UDP--> [netns | linkshell --netns] --> salsify receive
//   tcp:  salsify send --transport tcp --TCP--> [netns | linkshell] --> relay --UDP--> salsify receive
//
// The namespace's kernel counters are read by the command itself, inside,
// before and after the sender runs. The run is analysed as salsify analyze
// does (analyzeLiveRun), written through src/results (summary.json,
// frames.csv), and summarised for the study's table in study.json.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatTrace } from '../src/link-emu/trace-format.ts';
import { constantRateTrace } from '../src/link-emu/trace-generators.ts';
import { quantile, rampUp } from './turn-tcp-ramp.ts';
import { framesToCsv } from '../src/results/csv.ts';
import { jsonText, runToJson } from '../src/results/json.ts';
import { analyzeLiveRun } from '../src/salsify/live/analyze.ts';
import { startTcpRelay } from '../src/salsify/live/tcp-relay.ts';
import { Cleanup } from '../src/webrtc/cleanup.ts';
import { prepareClip } from '../src/webrtc/clip.ts';
import { counterDelta, parseProcNetCounters } from '../src/webrtc/netns-sender.ts';
import { startNodeChild, waitForOutput } from '../src/webrtc/node-child.ts';

const SALSIFY_BIN = fileURLToPath(new URL('../bin/salsify.js', import.meta.url));
const LINKSHELL_BIN = fileURLToPath(new URL('../bin/linkshell.js', import.meta.url));
/** Salsify's VP8 sender at 720p needs more than a core; at 640x360 it keeps up on this machine. */
export const SALSIFY_SIZE = { width: 640, height: 360 };

export interface SalsifyStudyRun {
  readonly transport: 'udp' | 'tcp';
  readonly loss: number;
  readonly seconds: number;
  readonly dir: string;
  readonly rateMbps: number;
  readonly delayMs: number;
  readonly video: string;
  readonly log: (line: string) => void;
}

/** Bitrate per 500 ms bin of a direction's mm-link log: what entered the link ('+') and what left it ('-'), on the log's time (s). */
function linkRates(logText: string, fromMs: number): { offered: { t: number; mbps: number }[]; delivered: { t: number; mbps: number }[] } {
  const bin = 500;
  const offered = new Map<number, number>();
  const delivered = new Map<number, number>();
  let last = 0;
  for (const line of logText.split('\n')) {
    const m = /^(\d+) ([+-]) (\d+)/.exec(line);
    if (!m) continue;
    const t = Number(m[1]);
    const k = Math.floor((t - fromMs) / bin);
    if (k < 0) continue;
    last = Math.max(last, k);
    const into = m[2] === '+' ? offered : delivered;
    into.set(k, (into.get(k) ?? 0) + Number(m[3]));
  }
  const series = (m: Map<number, number>) => Array.from({ length: last + 1 }, (_, k) => ({ t: ((k + 1) * bin) / 1000, mbps: ((m.get(k) ?? 0) * 8) / bin / 1000 }));
  return { offered: series(offered), delivered: series(delivered) };
}

export async function runSalsifyOverNetns(run: SalsifyStudyRun): Promise<void> {
  const cleanup = new Cleanup();
  const temp = mkdtempSync(join(tmpdir(), 'turn-tcp-salsify-'));
  cleanup.add('temporary directory', () => rmSync(temp, { recursive: true, force: true }));
  try {
    const clip = await prepareClip(join(temp, 'clip.y4m'), { video: run.video, width: SALSIFY_SIZE.width, height: SALSIFY_SIZE.height, fps: 30 });
    const trace = join(run.dir, `const-${run.rateMbps}mbps.trace`);
    writeFileSync(trace, formatTrace(constantRateTrace({ rateMbps: run.rateMbps })));
    const receiver = startNodeChild(SALSIFY_BIN, ['receive', '--port', '0', '--bind', '0.0.0.0', '--out', run.dir, '--codec', 'vp8', '--idle-timeout', '3']);
    cleanup.add('salsify receive', () => receiver.stop());
    const listen = (await waitForOutput(receiver, /listening on (\S+)/, 'salsify receive', 60_000))[1]!;
    const receiverPort = Number(listen.split(':').pop());
    let port = receiverPort;
    let relayStats: () => unknown = () => null;
    if (run.transport === 'tcp') {
      const relay = await startTcpRelay({ listen: { address: '0.0.0.0', port: 0 }, to: { address: '127.0.0.1', family: 4, port: receiverPort } });
      cleanup.add('TCP relay', () => relay.close());
      port = relay.port;
      relayStats = () => relay.stats();
    }
    const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    const snapshot = (name: string) => `cat /proc/net/snmp /proc/net/netstat > ${q(join(run.dir, name))}`;
    const send = [process.execPath, SALSIFY_BIN, 'send', '--transport', run.transport, '--video', clip.path, '--fps', '30', '--scheme', 'salsify-1', '--codec', 'vp8',
      '--duration', String(run.seconds), '--drain', '2000ms', '--out', run.dir].map(q).join(' ');
    const script = `${snapshot('kernel-before.txt')}; ${send} --to "$MAHIMAHI_BASE:${port}"; status=$?; ${snapshot('kernel-after.txt')}; exit $status`;
    const loss = String(run.loss);
    const linkshell = startNodeChild(LINKSHELL_BIN, [
      '--netns', trace, trace, '--uplink-log', join(run.dir, 'video-link.log'), '--downlink-log', join(run.dir, 'feedback-link.log'),
      '--uplink-queue', 'droptail', '--uplink-queue-args', 'packets=256', '--downlink-queue', 'droptail', '--downlink-queue-args', 'packets=256',
      '--delay', String(run.delayMs), '--uplink-loss', loss, '--downlink-loss', loss, '--seed', '1', '--', 'sh', '-c', script,
    ]);
    cleanup.add('linkshell --netns', () => linkshell.stop());
    run.log(`salsify send (${run.transport}) inside linkshell --netns for ${run.seconds} s; receiver on ${listen}${run.transport === 'tcp' ? `, TCP relay on port ${port}` : ''}`);
    const status = await linkshell.exited;
    writeFileSync(join(run.dir, 'linkshell.txt'), linkshell.output());
    if (status !== 0) throw new Error(`linkshell --netns -- salsify send ended with status ${status}: ${linkshell.output().trim().split('\n').slice(-3).join(' / ')}`);
    const bound = setTimeout(() => void receiver.stop(), 15_000);
    await receiver.exited;
    clearTimeout(bound);
    const analysis = await analyzeLiveRun(run.dir, { linkLog: join(run.dir, 'video-link.log') });
    writeFileSync(join(run.dir, 'frames.csv'), framesToCsv(analysis.frames));
    writeFileSync(join(run.dir, 'summary.json'), jsonText(runToJson(analysis, analysis.summary, { extra: { transport: run.transport, loss: run.loss, relay: relayStats(), notes: analysis.notes } })));

    const before = parseProcNetCounters(readFileSync(join(run.dir, 'kernel-before.txt'), 'utf8'));
    const after = parseProcNetCounters(readFileSync(join(run.dir, 'kernel-after.txt'), 'utf8'));
    const delta = counterDelta(before, after);
    const videoLog = readFileSync(join(run.dir, 'video-link.log'), 'utf8');
    const base = Number(/^# base timestamp: (\d+)/m.exec(videoLog)?.[1] ?? 0);
    const { offered, delivered } = linkRates(videoLog, base);
    const o = rampUp(offered, run.seconds);
    const i = rampUp(delivered, run.seconds);
    const delays = analysis.frames.map((f) => f.signalDelayMs).filter((v) => Number.isFinite(v));
    const s = analysis.summary;
    const study = {
      outMbps: o.steadyMbps, inMbps: i.steadyMbps, outT90: o.t90, inT90: i.t90,
      // Salsify has no retransmission: what it sees lost is whole frames (some datagram never came).
      lossPct: (100 * s.framesLost) / Math.max(1, s.framesSent),
      tcpRetrans: delta.Tcp?.RetransSegs, tcpOutSegs: delta.Tcp?.OutSegs, udpOut: delta.Udp?.OutDatagrams,
      rttMs: NaN, jitterMs: NaN,
      delayP50: quantile(delays, 0.5), delayP95: quantile(delays, 0.95),
      ssimDb: s.ssimDb.mean,
      shown: `${s.framesShown}/${s.framesCaptured}`,
      resolution: `${SALSIFY_SIZE.width}x${SALSIFY_SIZE.height}`,
      relay: relayStats(),
      lines: [
        { series: 'outgoing (onto the link)', run: run.dir.replace(/.*-(r\d+)$/, '$1'), points: offered },
        { series: 'incoming (off the link)', run: run.dir.replace(/.*-(r\d+)$/, '$1'), points: delivered },
      ],
    };
    writeFileSync(join(run.dir, 'study.json'), JSON.stringify(study, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 2) + '\n');
    run.log(`delay p50 ${study.delayP50.toFixed(1)} p95 ${study.delayP95.toFixed(1)} ms, SSIM ${study.ssimDb.toFixed(2)} dB, ${study.shown} shown, TCP retransmissions ${study.tcpRetrans}`);
  } finally {
    await cleanup.run();
  }
}
