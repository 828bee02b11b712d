// Pinned figures of a short deterministic run per scheme: the sender and a
// real receiver over a simulated ATT-LTE-driving-2016 link (model codec, 720p60
// synthetic video, 4 s), with every 100th video datagram dropped before the
// link so that loss recovery runs too. The figures were taken from the sender
// before its schemes moved behind the scheme interface (src/salsify/schemes/);
// a change of the control loop's behaviour changes them. The path is only a
// drop-tail link in each direction, so a change of the stage order elsewhere
// cannot move them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fileURLToPath } from 'node:url';
import { Simulator } from '../../src/net/simulator.ts';
import { createSimNetwork } from '../../src/net/sim-network.ts';
import { SalsifySender, type SenderEvent } from '../../src/salsify/sender.ts';
import { SalsifyReceiver } from '../../src/salsify/receiver.ts';
import { createModelCodec } from '../../src/salsify/model-codec.ts';
import { createSyntheticScene } from '../../src/codec-bridge/video/synthetic-scene.ts';
import { loadTrace } from '../../src/link-emu/trace-files.ts';
import { crc32 } from '../../src/salsify/crc32.ts';

const TRACE = fileURLToPath(new URL('../../../shared/traces/ATT-LTE-driving-2016', import.meta.url));

async function run(scheme: 'salsify-1' | 'salsify-2' | 'conventional') {
  const sim = new Simulator();
  const link = (trace: string) => ({ kind: 'link', trace: loadTrace(`${TRACE}.${trace}`), queue: 'droptail', queueArgs: 'packets=256' }) as const;
  const net = createSimNetwork(sim, { downlink: [link('down')], uplink: [link('up')], seed: 1 });
  let datagram = 0;
  const outside = { ...net.outside, send: (bytes: Uint8Array) => { if (++datagram % 100 !== 0) net.outside.send(bytes); } };
  const codec = createModelCodec();
  const events: SenderEvent[] = [];
  const sender = new SalsifySender({
    ctx: outside, codec, source: createSyntheticScene({ width: 1280, height: 720, fps: 60 }), scheme, connectionId: 77, frames: 240,
    concurrentEncodes: true, log: (e) => events.push(e),
  });
  const receiver = new SalsifyReceiver({ ctx: net.inside, codec, connectionId: 77 });
  sender.start();
  await sim.run({ until: 6000 });
  if (sender.failure) throw sender.failure;
  const sent = events.filter((e): e is Extract<SenderEvent, { kind: 'sent' }> => e.kind === 'sent');
  // One checksum over what the scheme decided for every frame: when, at which quantizer, which encoding, from which state.
  const decisions = events.map((e) =>
    e.kind === 'sent' ? `s${e.sourceIndex}:${e.time.toFixed(6)}:${e.quantizer}:${e.choice}:${e.bytes}:${e.targetBytes}:${e.sourceStateId}:${e.encodeMs.toFixed(6)}`
    : e.kind === 'skip' ? `k${e.sourceIndex}:${e.time.toFixed(6)}:${e.betterBytes}:${e.worseBytes}:${e.targetBytes}`
    : e.kind === 'capture' ? '' : `${e.kind}:${e.time.toFixed(6)}`).join('\n');
  const c = sender.counters;
  return {
    sent: c.sent, skipped: c.skipped, superseded: c.superseded, encoded: c.encoded, datagramsSent: c.datagramsSent, bytesSent: c.bytesSent,
    lossesDetected: c.lossesDetected, keyFrames: c.keyFrames, shown: receiver.counters.framesShown,
    meanQuantizer: Math.round((sent.reduce((a, e) => a + e.quantizer, 0) / sent.length) * 100) / 100,
    decisions: crc32(new TextEncoder().encode(decisions)).toString(16),
  };
}

const PINNED = {
  'salsify-1': { sent: 159, skipped: 81, superseded: 0, encoded: 480, datagramsSent: 2647, bytesSent: 3799075, lossesDetected: 15, keyFrames: 1, shown: 47, meanQuantizer: 37.3, decisions: '9b06ebb4' },
  'salsify-2': { sent: 149, skipped: 91, superseded: 0, encoded: 480, datagramsSent: 2650, bytesSent: 3803222, lossesDetected: 15, keyFrames: 1, shown: 42, meanQuantizer: 40.2, decisions: 'a476fef6' },
  conventional: { sent: 240, skipped: 0, superseded: 0, encoded: 240, datagramsSent: 4094, bytesSent: 5859674, lossesDetected: 7, keyFrames: 1, shown: 54, meanQuantizer: 24.43, decisions: 'bd2d1931' },
} as const;

for (const scheme of ['salsify-1', 'salsify-2', 'conventional'] as const) {
  test(`${scheme}: the figures of a pinned 4 s run`, async () => {
    const figures = await run(scheme);
    assert.equal(figures, PINNED[scheme]);
  });
}

test.run();
