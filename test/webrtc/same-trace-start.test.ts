// The same trace seconds for every system: with --trace-start S, linkshell
// holds its traces until the media's first packet (Chromium: its first RTP
// packet through TURN; a Salsify endpoint: its first datagram), so two runs
// of one configuration start their media at trace second S, within a frame
// interval of each other, however long their start-up took; the connection
// set-up passed unemulated and was not logged. Two 3 s Salsify endpoint runs
// and two 4 s Chromium calls, each bounded.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test as uvuTest } from 'uvu';
import * as assert from 'uvu/assert';
import { parseWebrtcArgs } from '../../src/cli/webrtc-command.ts';
import { LogEventKind, parseLinkLog } from '../../src/link-emu/link-log.ts';
import { runWebrtcBench } from '../../src/webrtc/bench.ts';
import { runSalsifyEndpoint } from '../../src/webrtc/salsify-endpoint.ts';
import { requires } from '../helpers/requires.ts';

const LIMIT_MS = 300_000;
const TRACE_START_S = 5;
const FRAME_S = 1 / 30;
const dir = mkdtempSync(join(tmpdir(), 'webrtc-trace-start-test-'));
const chromiumTest = requires(['chromium', 'coturn']);

function argv(out: string, extra: string[]): string[] {
  return ['--downlink', 'const:2', '--uplink', 'const:2', '--trace-start', String(TRACE_START_S), '--video', 'synthetic', '--out', out, ...extra];
}

async function bounded<T>(run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`the run took more than ${LIMIT_MS} ms`)), LIMIT_MS);
  try {
    return await run(controller.signal);
  } finally {
    clearTimeout(timer);
  }
}

/** The video link's log: base timestamp and first arrival (ms since linkshell started), and linkshell's trace clock record. */
function linkOf(out: string) {
  const log = parseLinkLog(readFileSync(join(out, 'video-link.log'), 'utf8'), 'video-link.log');
  let firstArrival = NaN;
  for (let i = 0; i < log.count; i++) {
    if (log.kind[i] === LogEventKind.Arrival) {
      firstArrival = log.time[i]!;
      break;
    }
  }
  const linkshell = JSON.parse(readFileSync(join(out, 'linkshell.json'), 'utf8'));
  return { base: log.header.baseTimestamp!, firstArrival, traceClock: linkshell.traceClock };
}

uvuTest.after(() => rmSync(dir, { recursive: true, force: true }));

uvuTest('two Salsify endpoint runs: the first datagram meets trace second S in both (first-packet), after the start-up', async () => {
  const starts: number[] = [];
  for (const k of [1, 2]) {
    const out = join(dir, `salsify-${k}`);
    const args = parseWebrtcArgs(argv(out, ['--endpoint', 'salsify-1', '--duration', '3']));
    const result = await bounded((signal) => runSalsifyEndpoint({ ...args.salsify!, signal }));
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    assert.is(summary.traceClockStart, 'first-packet');
    assert.is(summary.traceStartS, TRACE_START_S);
    starts.push(summary.firstMediaAtTraceS);
    const link = linkOf(out);
    assert.is(link.traceClock.start, 'first-packet');
    assert.is(link.traceClock.startedAtMs, link.base);
    assert.is(link.firstArrival, link.base, 'the first datagram arrives at the trace\'s time zero');
    assert.ok(link.base > 0, `the trace started ${link.base} ms after linkshell, not at its start`);
    assert.ok(result.validity.figures.linkVerdict !== undefined || result.validity.figures.linkLatenessP99Ms !== undefined, 'the validity read linkshell\'s summary document');
  }
  assert.ok(Math.abs(starts[0]! - TRACE_START_S) <= FRAME_S && Math.abs(starts[1]! - starts[0]!) <= FRAME_S, `media from trace seconds ${starts.join(' and ')}`);
});

chromiumTest('two Chromium calls: the first RTP packet meets trace second S in both (first-rtp); ICE and DTLS passed unemulated', async () => {
  const starts: number[] = [];
  for (const k of [1, 2]) {
    const out = join(dir, `chromium-${k}`);
    const args = parseWebrtcArgs(argv(out, ['--duration', '4']));
    const result = await bounded((signal) => runWebrtcBench({ ...args.call!, signal }));
    assert.is(result.config.traceClockStart, 'first-rtp');
    starts.push(result.config.firstMediaAtTraceS as number);
    const link = linkOf(out);
    assert.is(link.traceClock.start, 'first-rtp');
    assert.not.ok(link.traceClock.heldToEnd);
    assert.is(link.firstArrival, link.base, 'the first logged datagram, the first RTP packet, arrives at the trace\'s time zero');
    const passed = link.traceClock.passedUnemulated[0].datagrams + link.traceClock.passedUnemulated[1].datagrams;
    assert.ok(passed >= 4, `the TURN allocation, ICE checks and DTLS handshake passed unemulated (${passed} datagrams)`);
    assert.ok(Math.abs((result.config.connectedAtTraceS as number) - TRACE_START_S) < 1, `connected at trace second ${result.config.connectedAtTraceS}`);
  }
  assert.ok(Math.abs(starts[0]! - TRACE_START_S) <= FRAME_S && Math.abs(starts[1]! - starts[0]!) <= FRAME_S, `media from trace seconds ${starts.join(' and ')}`);
});

uvuTest.run();
